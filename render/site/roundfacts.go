package site

import (
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/roundload"
)

// A report's rounds as the history reads them: the latest round's
// results are Load's; an older round's come from the round cache when
// used (render/roundload), one round at a time, and what the history
// shows of it besides its values (its start, its engines) is kept by
// render/blocks' history pass (historyOf).

// RoundResults is one round of a report's results.
type RoundResults struct {
	ID     string
	Record *schema.Round // nil for round 1
	// Results are the latest round's (Load's); nil for an older round,
	// whose results are Cached's (Load).
	Results []*schema.Result
	// Cached is an older round as the round cache gave it (its results
	// and memos: render/blocks' roundsdata.go); nil for the latest.
	Cached *roundload.Round
	// Facts are what the history shows of the round besides its
	// values, filled by the history's pass (set by Load, so that the
	// field itself is not written while pages and the home page render:
	// only what it points to, under the history's sync.Once).
	Facts *RoundFacts
}

// Load returns the round's results: an older round's from the round
// cache, decoded anew (not kept: the history reads each once).
func (r RoundResults) Load() ([]*schema.Result, error) {
	if r.Cached == nil {
		return r.Results, nil
	}
	return r.Cached.Load()
}

// RoundFacts are what the history shows of a round besides its values.
type RoundFacts struct {
	Done bool // filled
	// First is the earliest start of its results ("" when none says),
	// FirstDate the date of the first result that has a start.
	First, FirstDate string
	// Engines is each experiment's engine as its first result with a
	// version says ("vllm 0.13.0").
	Engines map[string]string
	// Finished: the round holds a finished result (schema.FinishedIn).
	// An older round whose every result was interrupted measured
	// nothing: the history names it instead of showing it.
	Finished bool
}

// FactsOf returns the facts of a round's results.
func FactsOf(results []*schema.Result) *RoundFacts {
	f := &RoundFacts{Done: true, Engines: map[string]string{}, Finished: schema.FinishedIn(results)}
	for _, res := range results {
		if res.Start != "" && (f.First == "" || res.Start < f.First) {
			f.First = res.Start
		}
		if f.FirstDate == "" && len(res.Start) >= 10 {
			f.FirstDate = res.Start[:10]
		}
		if _, ok := f.Engines[res.Experiment]; !ok && res.Engine.Version != "" {
			f.Engines[res.Experiment] = res.Engine.Name + " " + res.Engine.Version
		}
	}
	return f
}

// FactsNow are the round's facts: the history's, else made now (an
// older round read again: "" and none if it cannot be).
func (r RoundResults) FactsNow() *RoundFacts {
	if r.Facts != nil && r.Facts.Done {
		return r.Facts
	}
	results, _ := r.Load()
	return FactsOf(results)
}

// Date is the round's start date (2026-10-26), "" when unknown.
func (r RoundResults) Date() string {
	if r.Record != nil && len(r.Record.Start) >= 10 {
		return r.Record.Start[:10]
	}
	return r.FactsNow().FirstDate
}

// Start is the round's start time (RFC 3339), "" when unknown.
func (r RoundResults) Start() string {
	if r.Record != nil && r.Record.Start != "" {
		return r.Record.Start
	}
	return r.FactsNow().First
}
