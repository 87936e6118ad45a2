package metrics

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// TestSpecDecodeAndRampUpOutput: vLLM's Speculative Decoding section
// closes the text block ("{:<40} {:<10.2f}" rows, the per-position list
// under its heading), and the JSON carries the ramp-up keys after
// max_concurrency, rps_change_events and the spec_decode_* keys after
// rtfx, before the metric groups, with per_turn after them. The
// per-position rates are fractions in the JSON, as vLLM stores them
// (it prints them ×100), percentages in the text.
func TestSpecDecodeAndRampUpOutput(t *testing.T) {
	s := mustSummarize(t, handRecords(), Options{})
	s.SpecDecode = &schema.SpecDecode{AcceptanceRatePct: 60, AcceptanceLength: 2.8, Drafts: 100, DraftTokens: 300, AcceptedTokens: 180, PerPositionPct: []float64{80, 60, 40}}
	var b bytes.Buffer
	if err := WriteText(&b, s, Options{}); err != nil {
		t.Fatal(err)
	}
	want := `---------------Speculative Decoding---------------
Acceptance rate (%):                     60.00     
Acceptance length:                       2.80      
Drafts:                                  100       
Draft tokens:                            300       
Accepted tokens:                         180       
Per-position acceptance (%):
  Position 0:                            80.00     
  Position 1:                            60.00     
  Position 2:                            40.00     
==================================================
`
	if !strings.HasSuffix(b.String(), want) {
		t.Fatalf("text ends\n%s\nwant\n%s", b.String()[max(0, b.Len()-len(want)-200):], want)
	}
	var j bytes.Buffer
	h := VLLMHeader{Date: "20260101-000000", Backend: "openai", ModelID: "m", NumPrompts: 3,
		RampUpStrategy: "linear", RampUpStartRPS: 1, RampUpEndRPS: 9,
		RPSChanges: []schema.RPSChange{{RPS: 1, Timestamp: "2026-01-01T00:00:00.000000"}},
		PerTurn:    []schema.TurnSummary{{Turn: 1, Completed: 2, TTFT: s.TTFT}}}
	if err := WriteVLLMJSON(&j, handRecords(), s, h, false); err != nil {
		t.Fatal(err)
	}
	out := j.String()
	order := []string{`"max_concurrency": null, "ramp_up_strategy": "linear", "ramp_up_start_rps": 1, "ramp_up_end_rps": 9, "duration"`,
		`"rtfx": 0.0, "rps_change_events": [{"rps": 1, "timestamp": "2026-01-01T00:00:00.000000"}], "spec_decode_acceptance_rate": 60.0, "spec_decode_acceptance_length": 2.8, "spec_decode_num_drafts": 100, "spec_decode_draft_tokens": 300, "spec_decode_accepted_tokens": 180, "spec_decode_per_position_acceptance_rates": [0.8, 0.6, 0.4], "per_turn": [{"turn": 1, "completed": 2, "failed": 0, "mean_ttft_ms": `,
	}
	for _, o := range order {
		if !strings.Contains(out, o) {
			t.Errorf("JSON lacks %s\n%s", o, out)
		}
	}
}
