package metrics

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// steadyRecords is a hand-drawn closed-loop run with a cap of 2: five
// requests whose in-flight count is 1 on [0,1), 2 on [1,3), and then
// dips to 1 and returns to 2 at t = 3, 4 and 5 (a request ends as the next
// is sent) before the drain at t = 6.
func steadyRecords() []schema.Request {
	req := func(i int, send float64, events ...float64) schema.Request {
		return schema.Request{Index: i, PromptTokens: 10, OutputTokens: len(events), ArrivalS: 0, SendS: send,
			EndS: events[len(events)-1], EventS: events, Success: true}
	}
	return []schema.Request{
		req(0, 0, 1, 2, 3), // A [0,3)
		req(1, 1, 2, 3, 4), // B [1,4)
		req(2, 3, 4, 5),    // C [3,5)
		req(3, 4, 6),       // D [4,6), one token
		req(4, 5, 6, 7),    // E [5,7)
	}
}

func TestSteadyStateHandComputed(t *testing.T) {
	opt := Options{MaxConcurrency: 2, Percentiles: []float64{50}}
	ss, err := SteadyState(steadyRecords(), opt, SteadyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ss == nil {
		t.Fatal("no steady state")
	}
	// ceil(0.95 × 2) = 2 in flight: first reached at t=1 (B sent), last
	// left at t=6 (D ends, E alone until 7).
	// Inside [1,6]: B, C, D sent and finished (3 requests); A, B, C, D
	// finished (4 → 0.8 req/s); B, C, D, E sent (40 prompt tokens → 8
	// tok/s); token events at 1,2,3 (A) 2,3,4 (B) 4,5 (C) 6 (D) 6 (E) =
	// 10 → 2 tok/s. TTFT of B, C, D = 1, 1, 2 s; TPOT of B = (3−1)/2 = 1 s
	// and C = 1 s (D has one token).
	want := schema.SteadyState{Threshold: 0.95, MinInFlight: 2, StartS: 1, EndS: 6, DurationS: 5, Requests: 3,
		RequestThroughput: 0.8, InputThroughput: 8, OutputThroughput: 2, TotalTokenThroughput: 10}
	got := *ss
	got.TTFT, got.TPOT, got.Warning = nil, nil, ""
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if m := *ss.TTFT.MeanMs; math.Abs(m-4000.0/3) > 1e-9 || *ss.TTFT.MedianMs != 1000 {
		t.Errorf("TTFT %+v", ss.TTFT)
	}
	if *ss.TPOT.MeanMs != 1000 || *ss.TPOT.MedianMs != 1000 {
		t.Errorf("TPOT %+v", ss.TPOT)
	}
	// 5 s < max(10 s, 10 % of 7 s): warned.
	if !strings.Contains(ss.Warning, "shorter than 10.00 s") {
		t.Errorf("warning %q", ss.Warning)
	}
	if ss, _ := SteadyState(steadyRecords(), opt, SteadyOptions{MinWindowS: 4}); ss.Warning != "" {
		t.Errorf("4 s minimum: warning %q", ss.Warning)
	}
	// Threshold 0.5 of 2 = 1 in flight: the window spans the whole run.
	ss, _ = SteadyState(steadyRecords(), opt, SteadyOptions{Threshold: 0.5})
	if ss.StartS != 0 || ss.EndS != 7 || ss.Requests != 5 {
		t.Errorf("threshold 0.5: %+v", ss)
	}
}

func TestSteadyStateNotComputed(t *testing.T) {
	for name, opt := range map[string]Options{
		"no cap":      {},
		"finite rate": {MaxConcurrency: 2, RequestRate: 10},
		"never full":  {MaxConcurrency: 3},
	} {
		ss, err := SteadyState(steadyRecords(), opt, SteadyOptions{})
		if err != nil || ss != nil {
			t.Errorf("%s: got %+v, %v; want nil", name, ss, err)
		}
	}
	if _, err := SteadyState(steadyRecords(), Options{MaxConcurrency: 2}, SteadyOptions{Threshold: 1.5}); err == nil {
		t.Error("threshold 1.5 accepted")
	}
}

func TestSteadyStateOutput(t *testing.T) {
	reqs := steadyRecords()
	opt := Options{MaxConcurrency: 2}
	sum, err := Summarize(reqs, opt)
	if err != nil {
		t.Fatal(err)
	}
	h := VLLMHeader{Date: "20261124-000000", Backend: "openai", ModelID: "m", NumPrompts: 5, Options: opt, SteadyStateKey: true}
	var buf bytes.Buffer
	if err := WriteVLLMJSON(&buf, reqs, sum, h, false); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if string(doc["steady_state"]) != "null" {
		t.Errorf("not computed: steady_state = %s, want null", doc["steady_state"])
	}
	sum.SteadyState, _ = SteadyState(reqs, opt, SteadyOptions{})
	buf.Reset()
	if err := WriteVLLMJSON(&buf, reqs, sum, h, false); err != nil {
		t.Fatal(err)
	}
	var got struct {
		SS *schema.SteadyState `json:"steady_state"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil || got.SS == nil || got.SS.Requests != 3 {
		t.Errorf("steady_state = %+v (%v)", got.SS, err)
	}
	h.SteadyStateKey = false
	buf.Reset()
	_ = WriteVLLMJSON(&buf, reqs, sum, h, false)
	if bytes.Contains(buf.Bytes(), []byte("steady_state")) {
		t.Error("vLLM layout carries steady_state")
	}
	var text bytes.Buffer
	if err := WriteSteadyText(&text, sum.SteadyState, 2); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"In-flight threshold:                     2 (0.95 x 2)", "Window (s):                              1.00 - 6.00",
		"Requests in window:                      3", "Output token throughput (tok/s):         2.00", "Median TTFT (ms):                        1000.00"} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("text lacks %q:\n%s", line, text.String())
		}
	}
}

// BenchmarkSteadyState: the steady-state window of a 10,000-request
// closed-loop run (cap 64, 128 token events each).
func BenchmarkSteadyState(b *testing.B) {
	const n, cap, events = 10000, 64, 128
	reqs := make([]schema.Request, n)
	for i := range reqs {
		send := float64(i/cap) * 1.3
		ev := make([]float64, events)
		for k := range ev {
			ev[k] = send + 0.05 + float64(k)*0.01
		}
		reqs[i] = schema.Request{Index: i, PromptTokens: 100, OutputTokens: events, SendS: send, EndS: ev[events-1], EventS: ev, Success: true}
	}
	opt := Options{MaxConcurrency: cap}
	for b.Loop() {
		ss, err := SteadyState(reqs, opt, SteadyOptions{})
		if err != nil || ss == nil {
			b.Fatal(err, ss)
		}
	}
}
