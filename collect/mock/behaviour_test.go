package mock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestUsageChunk: the usage chunk comes exactly when include_usage asks,
// on both endpoints, and its numbers match the tokens streamed.
func TestUsageChunk(t *testing.T) {
	_, url := newTestServer(t, Config{})
	for _, c := range []struct {
		path, body string
		chat       bool
	}{
		{"/v1/completions", `"prompt":"hello world"`, false},
		{"/v1/chat/completions", `"messages":[{"role":"user","content":"hello world"}]`, true},
	} {
		for _, opts := range []string{``, `,"stream_options":{"include_usage":false}`, `,"stream_options":{"include_usage":true}`} {
			resp := post(t, url+c.path, `{`+c.body+`,"max_tokens":7,"stream":true,"ignore_eos":true`+opts+`}`)
			evs, err := readSSE(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			s := summarize(t, evs)
			want := strings.Contains(opts, "true")
			if (s.usageChunks == 1) != want || s.usageChunks > 1 {
				t.Errorf("%s %s: %d usage chunks", c.path, opts, s.usageChunks)
			}
			tokens := len(s.tokenEvents)
			if c.chat {
				tokens-- // the role chunk
			}
			if tokens != 7 || !s.done || s.finish != "length" {
				t.Errorf("%s %s: %d token events, done %v, finish %q", c.path, opts, tokens, s.done, s.finish)
			}
			if want && s.usage != nil {
				promptLen := Tokenizer{}.Count("hello world")
				if c.chat {
					promptLen = Tokenizer{}.Count(ChatPrompt([]Message{{Role: "user", Content: "hello world"}}))
				}
				if *s.usage != (usage{promptLen, promptLen + 7, 7}) {
					t.Errorf("%s: usage %+v, prompt has %d tokens", c.path, *s.usage, promptLen)
				}
			}
			// Generated text re-encodes to exactly completion_tokens.
			if n := (Tokenizer{}).Count(s.text); n != 7 {
				t.Errorf("%s: text %q is %d tokens", c.path, s.text, n)
			}
		}
	}
}

// TestMaxTokens: ignore_eos gives exactly max_tokens; without it the
// pseudo-EOS may stop earlier (finish "stop"), never later, deterministically.
func TestMaxTokens(t *testing.T) {
	_, url := newTestServer(t, Config{EOSMeanTokens: 20})
	complete := func(body string) (text, finish string, n int) {
		resp := post(t, url+"/v1/completions", body)
		defer resp.Body.Close()
		var r struct {
			Choices []completionChoice
			Usage   usage
		}
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			t.Fatal(err)
		}
		return r.Choices[0].Text, r.Choices[0].FinishReason, r.Usage.CompletionTokens
	}
	for _, max := range []int{1, 5, 100} {
		if _, fin, n := complete(fmt.Sprintf(`{"prompt":"x","max_tokens":%d,"ignore_eos":true}`, max)); n != max || fin != "length" {
			t.Errorf("ignore_eos max_tokens %d: %d tokens, finish %q", max, n, fin)
		}
	}
	stops := 0
	for i := range 20 {
		body := fmt.Sprintf(`{"prompt":"prompt %d","max_tokens":30}`, i)
		text, fin, n := complete(body)
		if n > 30 || n < 1 {
			t.Errorf("%s: %d tokens", body, n)
		}
		if fin == "stop" {
			stops++
		}
		if text2, _, _ := complete(body); text2 != text {
			t.Errorf("%s: two runs differ", body)
		}
	}
	// Natural lengths are uniform in [1, 39]: most stop before 30.
	if stops < 5 || stops == 20 {
		t.Errorf("%d of 20 requests stopped early at mean 20 and max 30", stops)
	}
	// min_tokens holds the pseudo-EOS off.
	if _, _, n := complete(`{"prompt":"prompt 0","max_tokens":30,"min_tokens":30}`); n != 30 {
		t.Errorf("min_tokens 30: %d tokens", n)
	}
}

// TestFixedTiming: first event not before TTFT, token k not before
// TTFT + k*ITL (absolute deadlines), and not absurdly late.
func TestFixedTiming(t *testing.T) {
	const ttft, itl, n = 20 * ms, 5 * ms, 10
	_, url := newTestServer(t, Config{TTFT: ttft, ITL: itl})
	for _, path := range []string{"/v1/completions", "/v1/chat/completions"} {
		start := time.Now()
		resp := post(t, url+path, `{"prompt":"a","messages":[{"role":"user","content":"a"}],"max_tokens":10,"stream":true,"ignore_eos":true}`)
		evs, err := readSSE(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		s := summarize(t, evs)
		tok := s.tokenEvents
		if path == "/v1/chat/completions" {
			tok = tok[1:] // the role chunk goes with the first token
			if d := s.tokenEvents[0].at.Sub(start); d < ttft {
				t.Errorf("chat role chunk at %v, before TTFT", d)
			}
		}
		if len(tok) != n {
			t.Fatalf("%s: %d token events", path, len(tok))
		}
		for k, e := range tok {
			d := e.at.Sub(start)
			lo := ttft + time.Duration(k)*itl
			if d < lo || d > lo+500*ms {
				t.Errorf("%s: token %d at %v, want in [%v, %v]", path, k, d, lo, lo+500*ms)
			}
		}
	}
}

// TestFaultsDeterministic: the same seed fails the same requests, the
// rates come out near what was asked, and each kind looks as documented.
func TestFaultsDeterministic(t *testing.T) {
	f := Faults{ErrorRate: 0.1, StallRate: 0.1, CutRate: 0.1, GarbageRate: 0.1}
	count := map[fault]int{}
	for n := range uint64(10000) {
		k1, at1 := decideFault(42, f, n, 50)
		k2, at2 := decideFault(42, f, n, 50)
		if k1 != k2 || at1 != at2 {
			t.Fatal("decideFault is not deterministic")
		}
		if at1 < 0 || at1 >= 50 {
			t.Fatalf("fault at %d outside [0, 50)", at1)
		}
		count[k1]++
	}
	for _, k := range []fault{faultError, faultStall, faultCut, faultGarbage} {
		if c := count[k]; c < 900 || c > 1100 {
			t.Errorf("%v: %d of 10000, want about 1000", k, c)
		}
	}
	differ := false
	for n := range uint64(100) {
		a, _ := decideFault(1, f, n, 50)
		b, _ := decideFault(2, f, n, 50)
		differ = differ || a != b
	}
	if !differ {
		t.Error("seeds 1 and 2 give the same faults")
	}

	// Over HTTP: two servers with the same seed, the same request order.
	cfg := Config{Seed: 7, Faults: Faults{ErrorRate: 0.2, CutRate: 0.2, GarbageRate: 0.2, StallRate: 0.1, Stall: 300 * ms}}
	outcomes := func() []string {
		_, url := newTestServer(t, cfg)
		var out []string
		for i := range 30 {
			out = append(out, outcome(t, url, fmt.Sprintf(`{"prompt":"p%d","max_tokens":8,"stream":true,"ignore_eos":true}`, i)))
		}
		return out
	}
	a, b := outcomes(), outcomes()
	if strings.Join(a, ",") != strings.Join(b, ",") {
		t.Fatalf("same seed, different outcomes:\n%v\n%v", a, b)
	}
	seen := map[string]bool{}
	for _, o := range a {
		seen[strings.Fields(o)[0]] = true
	}
	for _, k := range []string{"ok", "http500", "cut", "garbage", "stall"} {
		if !seen[k] {
			t.Errorf("no %q among %v", k, a)
		}
	}
}

// outcome classifies one streamed request: ok, http500, cut (no [DONE],
// read error), garbage (an event that is not JSON) or stall (a long gap).
func outcome(t *testing.T, url, body string) string {
	resp := post(t, url+"/v1/completions", body)
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		var e struct{ Error struct{ Code int } }
		json.NewDecoder(resp.Body).Decode(&e)
		return fmt.Sprintf("http%d", e.Error.Code)
	}
	evs, err := readSSE(resp.Body)
	done, bad := false, 0
	for i, e := range evs {
		if e.data == "[DONE]" {
			done = true
		} else if !json.Valid([]byte(e.data)) {
			bad++
		}
		// The stall is 300 ms; a scheduling hiccup on a busy box is less.
		if i > 0 && e.at.Sub(evs[i-1].at) >= 200*ms {
			return "stall"
		}
	}
	switch {
	case err != nil && !done:
		return fmt.Sprintf("cut %d", len(evs))
	case bad == 1 && done && len(evs) == 8+2:
		return "garbage"
	case err == nil && done && bad == 0 && len(evs) == 9:
		return "ok"
	}
	return fmt.Sprintf("odd err=%v done=%v bad=%d events=%d", err, done, bad, len(evs))
}

// TestStallForever: a stall without a duration holds the stream until the
// client gives up; the server notices and frees the request.
func TestStallForever(t *testing.T) {
	s, url := newTestServer(t, Config{Faults: Faults{StallRate: 1}, ITL: ms})
	ctx, cancel := context.WithTimeout(context.Background(), 150*ms)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/completions", strings.NewReader(`{"prompt":"x","max_tokens":5,"stream":true,"ignore_eos":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Fatal("stalled stream ended normally")
	}
	if st := s.Stats(); st.Stalls != 1 || st.Completed != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestCloseEndsStreams: closing the server ends in-flight streams, in both
// modes, without [DONE].
func TestCloseEndsStreams(t *testing.T) {
	for _, cfg := range []Config{{ITL: 10 * ms}, {Batching: &Batching{DecodeStep: 10 * ms}}} {
		r, err := Start(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		results := make(chan string, 4)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := http.Post(r.URL+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"x","max_tokens":1000,"stream":true,"ignore_eos":true}`))
				if err != nil {
					results <- err.Error()
					return
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				results <- string(b)
			}()
		}
		time.Sleep(100 * ms)
		start := time.Now()
		if err := r.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		wg.Wait()
		close(results)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("close took %v", d)
		}
		for b := range results {
			if strings.Contains(b, "[DONE]") || !strings.Contains(b, "data: ") {
				t.Errorf("stream after close: %.80q", b)
			}
		}
		if _, err := http.Get(r.URL + "/health"); err == nil {
			t.Error("server still answers after Close")
		}
	}
}

// TestClientGoneFreesBatchSlot: a client that leaves frees its batch slot
// for the next request.
func TestClientGoneFreesBatchSlot(t *testing.T) {
	s, url := newTestServer(t, Config{Batching: &Batching{DecodeStep: 2 * ms, MaxBatch: 1}})
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/completions", strings.NewReader(`{"prompt":"x","max_tokens":10000,"stream":true,"ignore_eos":true}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 {
		t.Fatalf("first request: HTTP %d", resp.StatusCode)
	}
	buf := make([]byte, 100)
	resp.Body.Read(buf)
	cancel()
	resp.Body.Close()
	start := time.Now()
	r := post(t, url+"/v1/completions", `{"prompt":"y","max_tokens":3,"ignore_eos":true}`)
	r.Body.Close()
	if r.StatusCode != 200 || time.Since(start) > 2*time.Second {
		t.Errorf("second request: %d after %v", r.StatusCode, time.Since(start))
	}
	if st := s.Stats(); st.Completed != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want string // substring of the error; "" for valid
	}{
		{"zero", Config{}, ""},
		{"negative ttft", Config{TTFT: -1}, "TTFT"},
		{"both modes", Config{TTFT: ms, Batching: &Batching{}}, "not both"},
		{"rate above 1", Config{Faults: Faults{CutRate: 1.5}}, "CutRate"},
		{"rates sum", Config{Faults: Faults{CutRate: 0.6, ErrorRate: 0.6}}, "add up"},
		// vLLM requires max_num_batched_tokens >= max_num_seqs.
		{"budget below batch", Config{Batching: &Batching{MaxBatch: 256, MaxNumBatchedTokens: 128}}, "MaxNumBatchedTokens"},
		{"empty served name", Config{ServedModelNames: []string{""}}, "empty name"},
	}
	for _, c := range cases {
		err := c.cfg.Validate()
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v, want %q", c.name, err, c.want)
		}
	}
}

// TestStartupDelay: 503 while "loading", then healthy.
func TestStartupDelay(t *testing.T) {
	const delay = 200 * ms
	start := time.Now()
	r, err := Start(context.Background(), Config{StartupDelay: delay})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	resp := post(t, r.URL+"/v1/completions", `{"prompt":"x","max_tokens":1}`)
	resp.Body.Close()
	if resp.StatusCode != 503 {
		t.Errorf("completions while loading: HTTP %d", resp.StatusCode)
	}
	for {
		resp, err := http.Get(r.URL + "/health")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 200 {
			break
		}
		if resp.StatusCode != 503 {
			t.Fatalf("health while loading: HTTP %d", resp.StatusCode)
		}
		time.Sleep(10 * ms)
	}
	if d := time.Since(start); d < delay {
		t.Errorf("healthy after %v, before the %v startup delay", d, delay)
	}
}

// TestCrash: the request after CrashAfterRequests kills the engine: it and
// the streams in flight break, and Wait reports the crash.
func TestCrash(t *testing.T) {
	r, err := Start(context.Background(), Config{ITL: 5 * ms, CrashAfterRequests: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var wg sync.WaitGroup
	streamErrs := make(chan error, 2)
	for i := range 2 {
		resp := post(t, r.URL+"/v1/completions", fmt.Sprintf(`{"prompt":"p%d","max_tokens":10000,"stream":true,"ignore_eos":true}`, i))
		if resp.StatusCode != 200 {
			t.Fatalf("stream %d: HTTP %d", i, resp.StatusCode)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer resp.Body.Close()
			evs, err := readSSE(resp.Body)
			if len(evs) == 0 || evs[len(evs)-1].data == "[DONE]" {
				err = fmt.Errorf("%d events, last [DONE]", len(evs))
			}
			streamErrs <- err
		}()
	}
	time.Sleep(50 * ms)
	if resp, err := http.Post(r.URL+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"x","max_tokens":1}`)); err == nil {
		resp.Body.Close()
		t.Errorf("third request: HTTP %d, want a dropped connection", resp.StatusCode)
	}
	wg.Wait()
	close(streamErrs)
	for err := range streamErrs {
		if err == nil {
			t.Error("a stream in flight ended cleanly at the crash")
		}
	}
	if err := r.Wait(); !errors.Is(err, ErrCrashed) {
		t.Errorf("Wait = %v, want ErrCrashed", err)
	}
}

// TestManyStreams: hundreds of concurrent streams each get exactly their
// tokens and [DONE], in both timing modes.
func TestManyStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	const streams, tokens = 512, 20
	for _, cfg := range []Config{{TTFT: 5 * ms, ITL: 2 * ms}, {Batching: &Batching{DecodeStep: 2 * ms, MaxBatch: 128}}} {
		s, url := newTestServer(t, cfg)
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams}, Timeout: time.Minute}
		var wg sync.WaitGroup
		errs := make(chan error, streams)
		for i := range streams {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := client.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(fmt.Sprintf(
					`{"messages":[{"role":"user","content":"q%d"}],"max_completion_tokens":%d,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`, i, tokens)))
				if err != nil {
					errs <- err
					return
				}
				defer resp.Body.Close()
				evs, err := readSSE(resp.Body)
				if err != nil {
					errs <- err
					return
				}
				sum := summarize(t, evs)
				if len(sum.tokenEvents) != tokens+1 || !sum.done || sum.usage == nil || sum.usage.CompletionTokens != tokens {
					errs <- fmt.Errorf("stream %d: %d token events, done %v, usage %+v", i, len(sum.tokenEvents), sum.done, sum.usage)
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if st := s.Stats(); st.Completed != streams || st.OutputTokens != streams*tokens {
			t.Errorf("stats %+v", st)
		}
		client.CloseIdleConnections()
	}
}
