package bench

import (
	"slices"
	"strings"
	"testing"
)

// TestSpecDecodeDelta: counters as vLLM exposes them (two engines, float
// values, other series around), before and after; the section's numbers
// follow vLLM's definitions.
func TestSpecDecodeDelta(t *testing.T) {
	before, err := parseSpecCounters(strings.NewReader(`# HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.
# TYPE vllm:spec_decode_num_drafts_total counter
vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 10.0
vllm:spec_decode_num_drafts_total{engine="1",model_name="m"} 10.0
vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} 60.0
vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} 30.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"} 15.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="1"} 10.0
vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="2"} 5.0
vllm:num_requests_running{model_name="m"} 3.0
`))
	if err != nil || before == nil || before.Drafts != 20 {
		t.Fatalf("%v %+v", err, before)
	}
	after, _ := parseSpecCounters(strings.NewReader(`vllm:spec_decode_num_drafts_total{engine="0"} 60
vllm:spec_decode_num_drafts_total{engine="1"} 60
vllm:spec_decode_num_draft_tokens_total{engine="0"} 360
vllm:spec_decode_num_accepted_tokens_total{engine="0"} 210
vllm:spec_decode_num_accepted_tokens_per_pos_total{position="0",engine="0"} 95
vllm:spec_decode_num_accepted_tokens_per_pos_total{position="1",engine="0"} 70
vllm:spec_decode_num_accepted_tokens_per_pos_total{position="2",engine="0"} 45
`))
	sd := SpecDecodeDelta(before, after)
	// 100 drafts, 300 draft tokens, 180 accepted: 60 %, 1 + 1.8 = 2.8;
	// per position 80, 60, 40 of 100 drafts
	if sd.Drafts != 100 || sd.DraftTokens != 300 || sd.AcceptedTokens != 180 || sd.AcceptanceRatePct != 60 || sd.AcceptanceLength != 2.8 {
		t.Fatalf("%+v", sd)
	}
	if !slices.Equal(sd.PerPositionPct, []float64{80, 60, 40}) {
		t.Fatalf("per position %v", sd.PerPositionPct)
	}
	// no spec-decode series: nil, and no section
	if c, err := parseSpecCounters(strings.NewReader("vllm:num_requests_running 1\n")); c != nil || err != nil {
		t.Fatalf("%+v %v", c, err)
	}
	if SpecDecodeDelta(before, before) != nil {
		t.Fatal("no drafts during the run: want nil")
	}
}
