package metrics

import (
	"math/rand/v2"
	"strings"

	"github.com/perflab/perflab/collect/schema"
)

// genRecords makes n seeded, realistic records: Poisson-ish arrivals, some
// client queueing, TTFTs of tens to hundreds of ms, ITLs with a share of
// coalesced (near-zero) gaps, a few multi-token events, failures with and
// without partial events, missing usage counts, and texts that need JSON
// escaping.
func genRecords(seed uint64, n, maxEvents int) []schema.Request {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	words := []string{"the", "quick", "brown", "fox", "é", "日本", "🚀", `"q"`, `back\slash`, "tab\there", "nl\nx", "ctl\x01", "del\x7f"}
	reqs := make([]schema.Request, n)
	arrival := rng.Float64() * 0.1
	for i := range reqs {
		r := &reqs[i]
		r.Index = i
		arrival += rng.ExpFloat64() * 0.05
		r.ArrivalS = arrival
		r.SendS = arrival
		if rng.Float64() < 0.3 {
			r.SendS += rng.ExpFloat64() * 0.4 // waited for the cap
		}
		r.PromptTokens = 50 + rng.IntN(2000)
		if rng.Float64() < 0.8 {
			r.UsagePromptTokens = schema.I(r.PromptTokens + rng.IntN(3))
		}
		ne := 1 + rng.IntN(maxEvents)
		t := r.SendS + 0.02 + rng.ExpFloat64()*0.15
		r.EventS = make([]float64, ne)
		for k := range r.EventS {
			if k > 0 {
				switch x := rng.Float64(); {
				case x < 0.25:
					t += rng.Float64() * 2e-5 // coalesced in one read
				case x < 0.27:
					t += 0 // same timestamp
				default:
					t += rng.ExpFloat64() * 0.02
				}
			}
			r.EventS[k] = t
		}
		r.EndS = t + rng.Float64()*1e-3
		r.Success = true
		r.HTTPStatus = 200
		r.OutputTokens = ne
		switch x := rng.Float64(); {
		case x < 0.05:
			r.OutputTokens = 0 // no usage: fallback
		case x < 0.1:
			r.OutputTokens = ne * 3 // multi-token events
		}
		var text []string
		for range 1 + rng.IntN(12) {
			text = append(text, words[rng.IntN(len(words))])
		}
		r.GeneratedText = strings.Join(text, " ")
		switch x := rng.Float64(); {
		case x < 0.04: // HTTP error: no events
			r.Success, r.HTTPStatus, r.Error = false, 500, "Internal Server Error"
			r.EventS, r.OutputTokens, r.UsagePromptTokens = nil, 0, nil
			r.EndS = r.SendS + 0.01
		case x < 0.06: // broke mid-stream: partial events
			r.Success, r.Error = false, "Traceback (most recent call last):\n  ClientPayloadError: \"reset\" é"
			r.OutputTokens = 0
		}
	}
	return reqs
}
