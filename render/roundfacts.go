package render

import (
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/roundload"
)

// A report's rounds as the history reads them: the latest round's
// results are Load's; an older round's come from the round cache when
// used (render/roundload), one round at a time, and what the history
// shows of it besides its values (its start, its engines) is kept by
// history()'s pass.

// roundResults is one round of a report's results.
type roundResults struct {
	ID     string
	Record *schema.Round // nil for round 1
	// Results are the latest round's (Load's); nil for an older round,
	// whose results are cached's (results).
	Results []*schema.Result
	// cached is an older round as the round cache gave it (its results
	// and memos: roundsdata.go); nil for the latest.
	cached *roundload.Round
	// facts are what the history shows of the round besides its
	// values, filled by history() (set by Load, so that the field itself
	// is not written while pages and the home page render: only what it
	// points to, under history's sync.Once).
	facts *roundFacts
}

// results are the round's results: an older round's from the round
// cache, decoded anew (not kept: history() reads each once).
func (r roundResults) results() ([]*schema.Result, error) {
	if r.cached == nil {
		return r.Results, nil
	}
	return r.cached.Load()
}

// roundFacts are what the history shows of a round besides its values.
type roundFacts struct {
	done bool // filled
	// first is the earliest start of its results ("" when none says).
	first, firstDate string
	// engines is each experiment's engine as its first result with a
	// version says ("vllm 0.13.0").
	engines map[string]string
}

// factsOf returns the facts of a round's results.
func factsOf(results []*schema.Result) *roundFacts {
	f := &roundFacts{done: true, engines: map[string]string{}}
	for _, res := range results {
		if res.Start != "" && (f.first == "" || res.Start < f.first) {
			f.first = res.Start
		}
		if f.firstDate == "" && len(res.Start) >= 10 {
			f.firstDate = res.Start[:10]
		}
		if _, ok := f.engines[res.Experiment]; !ok && res.Engine.Version != "" {
			f.engines[res.Experiment] = res.Engine.Name + " " + res.Engine.Version
		}
	}
	return f
}

// factsNow are the round's facts: history()'s, else made now (an older
// round read again: "" and none if it cannot be).
func (r roundResults) factsNow() *roundFacts {
	if r.facts != nil && r.facts.done {
		return r.facts
	}
	results, _ := r.results()
	return factsOf(results)
}

// date is the round's start date (2026-10-26), "" when unknown.
func (r roundResults) date() string {
	if r.Record != nil && len(r.Record.Start) >= 10 {
		return r.Record.Start[:10]
	}
	return r.factsNow().firstDate
}
