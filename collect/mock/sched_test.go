package mock

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

type simReq struct {
	at          time.Duration
	prompt, out int
}

// simulate drives the engine in virtual time (the fake clock) and returns
// each request's token emission times.
func simulate(b Batching, reqs []simReq) [][]time.Duration {
	e := engine{b: b}
	seqs := make(map[*seq]int, len(reqs))
	res := make([][]time.Duration, len(reqs))
	var now time.Duration
	next := 0
	for next < len(reqs) || !e.idle() {
		if e.idle() {
			now = max(now, reqs[next].at)
		}
		for next < len(reqs) && reqs[next].at <= now {
			q := newSeq(reqs[next].prompt, reqs[next].out)
			seqs[q] = next
			e.add(q)
			next++
		}
		d, ok := e.plan()
		if !ok {
			continue
		}
		now += d
		for _, q := range e.commit() {
			i := seqs[q]
			res[i] = append(res[i], now)
		}
	}
	return res
}

const ms = time.Millisecond

// TestEngineStepAccounting checks step times and token times exactly.
func TestEngineStepAccounting(t *testing.T) {
	cases := []struct {
		name string
		b    Batching
		reqs []simReq
		want [][]time.Duration
	}{
		{
			// Prefill 100 tok at 1000 tok/s = 100 ms + 10 ms base; then
			// decode steps of 10 ms + 1 ms per sequence.
			name: "one request",
			b:    Batching{PrefillTokPerS: 1000, DecodeStep: 10 * ms, DecodeStepPerSeq: ms, MaxBatch: 2},
			reqs: []simReq{{0, 100, 3}},
			want: [][]time.Duration{{110 * ms, 121 * ms, 132 * ms}},
		},
		{
			// Max batch 2: the third request waits until both finish,
			// then is admitted at the next step boundary.
			name: "queue beyond max batch",
			b:    Batching{PrefillTokPerS: 1000, DecodeStep: 10 * ms, DecodeStepPerSeq: ms, MaxBatch: 2},
			reqs: []simReq{{0, 10, 2}, {0, 10, 2}, {0, 10, 2}},
			want: [][]time.Duration{{30 * ms, 42 * ms}, {30 * ms, 42 * ms}, {62 * ms, 73 * ms}},
		},
		{
			// Budget 4 tokens a step: a 10-token prompt prefills over 3
			// steps (4, 4, 2); the request arriving at 5 ms joins at the
			// first boundary (10 ms... no: steps are 14 ms) and shares the
			// budget with the decode of the first.
			name: "chunked prefill",
			b:    Batching{PrefillTokPerS: 1000, DecodeStep: 10 * ms, MaxBatch: 2, MaxNumBatchedTokens: 4},
			reqs: []simReq{{0, 10, 2}, {5 * ms, 3, 1}},
			// steps: [A4]=14 → [A4,B0: budget 0]=14 (28) → [A2,B2]=14 (42) → A first token at 42;
			// [A decode 1, B1]=11 (53): A done, B first token (B done).
			want: [][]time.Duration{{42 * ms, 53 * ms}, {53 * ms}},
		},
		{
			// KV cache of 120 tokens: two requests of 50 fit, the third
			// waits for one to finish although the batch has room.
			name: "kv cache",
			b:    Batching{DecodeStep: 10 * ms, MaxBatch: 10, KVCacheTokens: 120},
			reqs: []simReq{{0, 40, 10}, {0, 40, 10}, {0, 40, 10}},
			want: [][]time.Duration{
				{10 * ms, 20 * ms, 30 * ms, 40 * ms, 50 * ms, 60 * ms, 70 * ms, 80 * ms, 90 * ms, 100 * ms},
				{10 * ms, 20 * ms, 30 * ms, 40 * ms, 50 * ms, 60 * ms, 70 * ms, 80 * ms, 90 * ms, 100 * ms},
				{110 * ms, 120 * ms, 130 * ms, 140 * ms, 150 * ms, 160 * ms, 170 * ms, 180 * ms, 190 * ms, 200 * ms},
			},
		},
		{
			// A request bigger than the whole cache still runs, alone.
			name: "kv cache too small",
			b:    Batching{DecodeStep: 10 * ms, KVCacheTokens: 10},
			reqs: []simReq{{0, 40, 2}, {0, 1, 1}},
			want: [][]time.Duration{{10 * ms, 20 * ms}, {30 * ms}},
		},
		{
			// Per-1k-context cost: 1 ms per 1000 context tokens of decoding
			// sequences. Prompt 2000: decode steps cost 10 + 2.001, 10 + 2.002.
			name: "context cost",
			b:    Batching{DecodeStep: 10 * ms, DecodeStepPerKTok: ms},
			reqs: []simReq{{0, 2000, 3}},
			want: [][]time.Duration{{10 * ms, 22*ms + 1*time.Microsecond, 34*ms + 3*time.Microsecond}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := simulate(c.b, c.reqs)
			for i := range c.want {
				if !slices.Equal(got[i], c.want[i]) {
					t.Errorf("request %d tokens at %v, want %v", i, got[i], c.want[i])
				}
			}
		})
	}
}

// closedLoop runs conc clients back to back in virtual time, each sending
// its next request when the last one ends, and returns output tokens per
// second and the mean time per output token after the first.
func closedLoop(b Batching, conc, perClient, prompt, out int) (tokPerS float64, tpot time.Duration) {
	e := engine{b: b}
	type st struct {
		client, left int
		first        time.Duration
	}
	info := map[*seq]*st{}
	var now time.Duration
	submit := func(c, left int) {
		q := newSeq(prompt, out)
		info[q] = &st{client: c, left: left}
		e.add(q)
	}
	for c := range conc {
		submit(c, perClient-1)
	}
	tokens := 0
	var tpotSum time.Duration
	n := 0
	for !e.idle() {
		d, _ := e.plan()
		now += d
		for _, q := range e.commit() {
			tokens++
			s := info[q]
			if q.generated == 1 {
				s.first = now
			}
			if q.generated == q.outLen {
				tpotSum += (now - s.first) / time.Duration(out-1)
				n++
				if s.left > 0 {
					submit(s.client, s.left-1)
				}
			}
		}
	}
	return float64(tokens) / now.Seconds(), tpotSum / time.Duration(n)
}

// TestEngineConcurrency: more concurrency gives more throughput up to the
// max batch, then throughput flattens while queueing grows; TPOT grows
// with the batch.
func TestEngineConcurrency(t *testing.T) {
	b, _ := Preset("vllm")
	b.MaxBatch = 64
	var prevTput float64
	var prevTPOT time.Duration
	tputs := map[int]float64{}
	for _, conc := range []int{1, 4, 16, 64, 256} {
		tput, tpot := closedLoop(b, conc, 4, 256, 64)
		tputs[conc] = tput
		t.Logf("concurrency %3d: %7.0f tok/s, TPOT %v", conc, tput, tpot)
		if conc <= 64 {
			if tput <= prevTput*1.5 {
				t.Errorf("concurrency %d: throughput %.0f, not well above %.0f", conc, tput, prevTput)
			}
			if tpot <= prevTPOT {
				t.Errorf("concurrency %d: TPOT %v not above %v", conc, tpot, prevTPOT)
			}
		}
		prevTput, prevTPOT = tput, tpot
	}
	// Beyond the max batch throughput stays within 10 % of the full batch.
	if r := tputs[256] / tputs[64]; r < 0.9 || r > 1.1 {
		t.Errorf("throughput at 256 / at 64 = %.2f, want about 1", r)
	}
}

// TestEngineMaxBatchTradeoff: a bigger max batch gives more throughput and
// a higher TPOT at high concurrency.
func TestEngineMaxBatchTradeoff(t *testing.T) {
	b, _ := Preset("vllm")
	small, big := b, b
	small.MaxBatch, big.MaxBatch = 32, 256
	tSmall, pSmall := closedLoop(small, 256, 2, 512, 128)
	tBig, pBig := closedLoop(big, 256, 2, 512, 128)
	t.Logf("max batch 32: %.0f tok/s TPOT %v; 256: %.0f tok/s TPOT %v", tSmall, pSmall, tBig, pBig)
	if tBig <= tSmall*1.5 || pBig <= pSmall {
		t.Errorf("max batch 256 vs 32: throughput %.0f vs %.0f, TPOT %v vs %v", tBig, tSmall, pBig, pSmall)
	}
}

// TestPresetsDiffer: the presets are ordered as documented, at one stream
// (latency) and at high concurrency (throughput).
func TestPresetsDiffer(t *testing.T) {
	var lastTput float64
	lastTPOT := time.Hour
	for _, name := range []string{"vllm", "sglang", "trtllm"} {
		b, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Validate(); err != nil {
			t.Fatal(err)
		}
		_, tpot1 := closedLoop(b, 1, 2, 1024, 128)
		tput, _ := closedLoop(b, 512, 1, 1024, 128)
		t.Logf("%-7s TPOT@1 %v, %0.f tok/s @512", name, tpot1, tput)
		if tput <= lastTput || tpot1 >= lastTPOT {
			t.Errorf("%s: not faster than the preset before it", name)
		}
		lastTput, lastTPOT = tput, tpot1
	}
	if _, err := Preset("tgi"); err == nil {
		t.Error("unknown preset accepted")
	}
}

func TestEngineAbort(t *testing.T) {
	e := engine{b: Batching{DecodeStep: ms, MaxBatch: 1, KVCacheTokens: 1000}}
	a, b := newSeq(1, 100), newSeq(1, 1)
	e.add(a)
	e.add(b)
	e.plan()
	e.commit()
	a.aborted.Store(true) // the client of a left: b gets its slot
	e.plan()
	if got := e.commit(); len(got) != 1 || got[0] != b {
		t.Fatalf("after abort, step emitted %v, want b", got)
	}
	if !e.idle() || e.kvUsed != 0 {
		t.Fatalf("after b finished: idle %v, KV cache in use %d", e.idle(), e.kvUsed)
	}
}

// TestBatchingServer runs the real-time scheduler behind HTTP: requests
// beyond the max batch wait for a slot, so their TTFT includes the whole
// generation of the first ones.
func TestBatchingServer(t *testing.T) {
	b := Batching{DecodeStep: 5 * ms, MaxBatch: 2}
	s, url := newTestServer(t, Config{Batching: &b})
	const n, out = 4, 6
	// First-token times from one start taken before any request: the
	// scheduler's first step cannot begin before it.
	first := make([]time.Duration, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp := post(t, url+"/v1/completions", fmt.Sprintf(`{"prompt":"p%d","max_tokens":%d,"stream":true,"ignore_eos":true}`, i, out))
			defer resp.Body.Close()
			evs, err := readSSE(resp.Body)
			if err != nil {
				t.Error(err)
				return
			}
			sum := summarize(t, evs)
			if len(sum.tokenEvents) != out || !sum.done {
				t.Errorf("request %d: %d tokens, done %v", i, len(sum.tokenEvents), sum.done)
				return
			}
			first[i] = sum.tokenEvents[0].at.Sub(start)
		}()
	}
	wg.Wait()
	slices.Sort(first)
	// Two run at once; the other two wait for their 6 steps of 5 ms and
	// then a prefill step.
	if first[2] < 7*5*ms {
		t.Errorf("first tokens at %v: the queued requests did not wait for a slot", first)
	}
	if st := s.Stats(); st.Steps < 2*out || st.Completed != n {
		t.Errorf("stats %+v", st)
	}
}

// TestEngineKVCacheLongPrompts: with the preset's KV cache, long prompts
// fit fewer sequences at once, so throughput at high concurrency is lower
// than the same engine with an unlimited cache.
func TestEngineKVCacheLongPrompts(t *testing.T) {
	b, _ := Preset("vllm")
	unlimited := b
	unlimited.KVCacheTokens = 0
	tKV, _ := closedLoop(b, 128, 1, 16000, 1024)
	tFree, _ := closedLoop(unlimited, 128, 1, 16000, 1024)
	t.Logf("16k prompts at concurrency 128: %.0f tok/s with a %d-token KV cache, %.0f unlimited", tKV, b.KVCacheTokens, tFree)
	if tKV >= tFree*0.8 {
		t.Errorf("KV cache limit did not cut throughput: %.0f vs %.0f", tKV, tFree)
	}
}
