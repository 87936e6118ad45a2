package mock

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestPrefixCacheLookup(t *testing.T) {
	c := newPrefixCache(PrefixCache{BlockTokens: 4, Blocks: 3})
	seq := func(from, n int) []int {
		s := make([]int, n)
		for i := range s {
			s[i] = from + i
		}
		return s
	}
	a := seq(0, 10) // blocks [0..3] [4..7], 2 left over
	if got := c.lookup(a); got != 0 {
		t.Fatalf("first lookup: %d cached", got)
	}
	if got := c.lookup(a); got != 8 { // two full blocks
		t.Fatalf("repeat: %d cached, want 8", got)
	}
	// same first block, different second: only the first hits
	if got := c.lookup(append(seq(0, 4), seq(100, 4)...)); got != 4 {
		t.Fatalf("shared first block: %d cached, want 4", got)
	}
	// a block equal to a cached one but after a different prefix misses:
	// a block's hash covers everything before it
	if got := c.lookup(append(seq(50, 4), seq(4, 4)...)); got != 0 {
		t.Fatalf("same block after another prefix: %d cached, want 0", got)
	}
	// capacity 3: the oldest blocks are gone
	if got := c.lookup(a); got != 0 {
		t.Fatalf("after eviction: %d cached, want 0", got)
	}
	// the last prompt token is always computed
	c2 := newPrefixCache(PrefixCache{BlockTokens: 4})
	c2.lookup(seq(0, 8))
	if got := c2.lookup(seq(0, 8)); got != 7 {
		t.Fatalf("whole prompt cached: %d, want 7", got)
	}
}

func chatBody(msgs ...string) string {
	var m []map[string]string
	for i, c := range msgs {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		m = append(m, map[string]string{"role": role, "content": c})
	}
	b, _ := json.Marshal(map[string]any{"model": "mock", "messages": m, "max_tokens": 3, "ignore_eos": true})
	return string(b)
}

func postSession(t *testing.T, url, session, body string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Session-ID", session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Choices []struct {
			Message struct{ Content string } `json:"message"`
		} `json:"choices"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || len(r.Choices) != 1 {
		t.Fatalf("%v %+v", err, r)
	}
	return r.Choices[0].Message.Content
}

// TestSessionsAndPrefixCache: turn 2 of a session must carry turn 1 and
// the mock's own reply; the history is then a cached prefix.
func TestSessionsAndPrefixCache(t *testing.T) {
	s, url := newTestServer(t, Config{PrefixCache: &PrefixCache{BlockTokens: 2}})
	q1 := strings.Repeat("hello there ", 20)
	r1 := postSession(t, url, "a", chatBody(q1))
	postSession(t, url, "a", chatBody(q1, r1, "and then?"))
	st := s.Stats()
	if st.Sessions != 1 || st.SessionTurns != 2 || st.HistoryMismatches != 0 {
		t.Fatalf("stats %+v", st)
	}
	if st.CachedTokens < 40 { // turn 1's 40+ prompt tokens came back as turn 2's prefix
		t.Fatalf("cached %d tokens, want turn 1's prompt", st.CachedTokens)
	}
	// a turn that drops the reply, and one that edits it, break the history
	postSession(t, url, "b", chatBody("x"))
	postSession(t, url, "b", chatBody("x"))
	r := postSession(t, url, "c", chatBody("y"))
	postSession(t, url, "c", chatBody("y", r+" edited", "z"))
	if st := s.Stats(); st.Sessions != 3 || st.HistoryMismatches != 2 {
		t.Fatalf("stats %+v", st)
	}
}

func TestSpecDecodeMetrics(t *testing.T) {
	s, url := newTestServer(t, Config{SpecDecode: &SpecDecode{NumSpecTokens: 3, AcceptRate: 0.6}})
	for range 20 {
		resp := post(t, url+"/v1/completions", `{"model":"mock","prompt":"hi there","max_tokens":50,"ignore_eos":true}`)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	c := s.spec
	if c.draftTokens != 3*c.drafts || c.perPos[0]+c.perPos[1]+c.perPos[2] != c.accepted {
		t.Fatalf("drafts %d draft tokens %d accepted %d per pos %v", c.drafts, c.draftTokens, c.accepted, c.perPos)
	}
	// each request's 50 tokens: accepted + one per draft, and no more
	if c.accepted+c.drafts < 20*50 || c.accepted+c.drafts > 20*(50+3) {
		t.Fatalf("accepted %d + drafts %d for 1000 tokens", c.accepted, c.drafts)
	}
	// a later position is accepted only after the earlier ones
	if !(c.perPos[0] >= c.perPos[1] && c.perPos[1] >= c.perPos[2] && c.perPos[2] > 0) {
		t.Fatalf("per position %v", c.perPos)
	}
	if r := float64(c.perPos[0]) / float64(c.drafts); r < 0.5 || r > 0.7 {
		t.Fatalf("position 0 accepted in %.2f of drafts, want about 0.6", r)
	}
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, name := range []string{"vllm:spec_decode_num_drafts_total{", "vllm:spec_decode_num_draft_tokens_total{",
		"vllm:spec_decode_num_accepted_tokens_total{", `vllm:spec_decode_num_accepted_tokens_per_pos_total{model_name="mock",position="2"}`} {
		if !strings.Contains(string(b), name) {
			t.Errorf("/metrics lacks %s:\n%s", name, b)
		}
	}
}

func TestFeatureConfigErrors(t *testing.T) {
	for _, c := range []Config{
		{PrefixCache: &PrefixCache{BlockTokens: -1}},
		{SpecDecode: &SpecDecode{NumSpecTokens: 0, AcceptRate: 0.5}},
		{SpecDecode: &SpecDecode{NumSpecTokens: 2, AcceptRate: 1.5}},
	} {
		if _, err := New(c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

// TestBatchingPrefillSkipsCachedTokens: in the batching model a sequence
// whose prompt is mostly cached prefills only the rest, so its first
// token comes after a shorter step (virtual time: no clock involved).
func TestBatchingPrefillSkipsCachedTokens(t *testing.T) {
	e := &engine{b: Batching{PrefillTokPerS: 1000, DecodeStep: time.Millisecond, MaxNumBatchedTokens: 512, MaxBatch: 8}}
	cold, warm := newSeq(1000, 2), newSeq(1000, 2)
	warm.prefilled = 960 // 60 blocks of 16 cached
	e.add(warm)
	d, ok := e.plan()
	if !ok || d != time.Millisecond+40*time.Millisecond {
		t.Fatalf("warm step %v, want 1ms + 40 tokens at 1000/s", d)
	}
	if got := e.commit(); len(got) != 1 || warm.generated != 1 {
		t.Fatalf("warm: first token not emitted after one step (%d emitted)", len(got))
	}
	e2 := &engine{b: e.b}
	e2.add(cold)
	steps := 0
	for cold.generated == 0 {
		if _, ok := e2.plan(); !ok {
			t.Fatal("cold sequence stalled")
		}
		e2.commit()
		steps++
	}
	if steps != 2 { // 1000 tokens in chunks of 512
		t.Fatalf("cold prefill took %d steps, want 2", steps)
	}
}
