package blocks

import (
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/analysis"
	"github.com/perflab/perflab/render/roundload"
	"github.com/perflab/perflab/render/site"
	"github.com/perflab/perflab/render/wire"
)

// What the history takes of a round is small: each run's headline figure
// (historyValues), each sweep's SLO answer (sloAnswers) and the round's
// facts (site.FactsOf). It is a roundDigest, made of the round's results
// and of a digestInput alone, and the digests of a report's older rounds
// are kept in the round cache as one entry (roundload.Prefix: keyed by
// the input's encoding and every older round's key in order), so that
// the build of round 100 reads that entry and decodes round 99 and 100,
// not 99 rounds of results.

// digestInput is everything of the report that a round's digest is
// made of besides its results: the campaign as the build has it (front
// matter and site defaults applied). digestOf sees the report through a
// copy holding this alone, and the prefix's key hashes its encoding, so
// that what the digest reads is what its key covers.
type digestInput struct {
	Campaign schema.Campaign
}

// roundDigest is what the history takes of one round.
type roundDigest struct {
	Values []historyValue
	SLO    []sloValue
	Facts  site.RoundFacts
}

// historyValue is one run's headline figure, total throughput per GPU,
// and its requests: Failed of Requests failed (a run that stalled on a
// request stays ok, its throughput over its whole time). A run that
// gave no figure because it went wrong has its Status instead (V 0;
// runOutcome): crashed, failed (an ok run none of whose requests
// completed is failed too) or interrupted; "" for a figure.
type historyValue struct {
	Exp, Prof        string
	Pt               schema.Point
	V                float64
	Failed, Requests int
	Status           schema.Status
	// Work is the run's workload (workloadKey): where it differs from
	// the round before's, the history seeks change points on each side
	// apart.
	Work string
}

// sloValue is a sweep profile × experiment's SLO answer in a round.
type sloValue struct {
	Key, Label string
	A          analysis.SLOAnswer
}

// historyDigests is the entry of a prefix of older rounds.
type historyDigests struct {
	Rounds []roundDigest
}

// digestOf is a round's digest.
func digestOf(in *digestInput, results []*schema.Result) roundDigest {
	r := &Report{Campaign: &in.Campaign}
	return roundDigest{Values: roundValues(r, results), SLO: roundSLO(r, results), Facts: *site.FactsOf(results)}
}

// historyDigestsOf returns the digest of each of the report's rounds, up
// to the first that cannot be read (err): the older rounds' from the
// longest prefix of them the round cache holds, the rest from their
// results; the digests of all older rounds are kept for the next build
// when the cache lacked them.
func historyDigestsOf(r *Report) ([]roundDigest, error) {
	in := &digestInput{Campaign: *r.Campaign}
	var older []*roundload.Round
	for _, rr := range r.Rounds {
		if rr.Cached == nil {
			break
		}
		older = append(older, rr.Cached)
	}
	p := roundload.NewPrefix("history", wire.Append(nil, *in), older)
	var ds []roundDigest
	if n, b := p.Longest(); n > 0 {
		var hd historyDigests
		if wire.Decode(b, &hd) == nil && len(hd.Rounds) == n {
			ds = hd.Rounds
		}
	}
	had := len(ds)
	for ri := had; ri < len(r.Rounds); ri++ {
		results, err := r.Rounds[ri].Load()
		if err != nil {
			return ds, err
		}
		ds = append(ds, digestOf(in, results))
	}
	if had < p.Len() {
		p.Set(p.Len(), wire.Append(nil, historyDigests{Rounds: ds[:p.Len()]}))
	}
	return ds, nil
}
