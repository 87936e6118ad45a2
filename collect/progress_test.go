package collect

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/schema"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestProgressView(t *testing.T) {
	var out syncBuf
	p := newProgress(&out, 2)
	e, pr := &schema.Experiment{ID: "vllm"}, &schema.Profile{ID: "sharegpt", OutputLen: 100}
	r := Run{Experiment: e, Profile: pr}
	p.begin(r, "starting vLLM")
	time.Sleep(20 * time.Millisecond)
	fmt.Fprint(p.writer(), "\rbench: 120/1000 requests done, 0 failed  ")
	p.end(r)
	p.begin(Run{Experiment: e, Profile: &schema.Profile{ID: "long"}}, "running")
	p.close()
	s := out.String()
	for _, want := range []string{
		"\r\033[K[1/2] vllm / sharegpt  starting vLLM",
		"[1/2] vllm / sharegpt  120/1000 requests done, 0 failed  ≈",
		" out tok/s  run ETA ",
		"[2/2] vllm / long  running",
		"campaign ETA", // one run finished: the mean predicts the rest
	} {
		if !strings.Contains(s, want) {
			t.Errorf("view lacks %q:\n%q", want, s)
		}
	}
	if !strings.HasSuffix(s, "\r\033[K") {
		t.Errorf("the view is not cleared at the end: %q", s)
	}
	var nilP *progress // quiet when not a terminal
	nilP.begin(r, "x")
	nilP.end(r)
	nilP.close()
	if nilP.writer() != nil {
		t.Error("a nil progress hands out a writer")
	}
}

// TestProgressCampaignETA: the campaign's ETA is what is left of the run
// in flight (from the benchmark's rate) plus the mean run for each run
// after it, not the mean for every run left less the time spent.
func TestProgressCampaignETA(t *testing.T) {
	var out syncBuf
	p := newProgress(&out, 3)
	defer p.close()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := t0
	p.mu.Lock()
	p.now = func() time.Time { return clock }
	p.mu.Unlock()
	set := func(d time.Duration) {
		p.mu.Lock()
		clock = t0.Add(d)
		p.mu.Unlock()
	}
	e := &schema.Experiment{ID: "vllm"}
	r1 := Run{Experiment: e, Profile: &schema.Profile{ID: "a", OutputLen: 10}}
	r2 := Run{Experiment: e, Profile: &schema.Profile{ID: "b", OutputLen: 10}}
	p.begin(r1, "running")
	set(10 * time.Second) // the first run took 10 s
	p.end(r1)
	p.begin(r2, "running")
	// 2 s into the second run, half its requests are done: 2 s left of
	// it, then one more run of 10 s (the mean).
	set(12 * time.Second)
	fmt.Fprint(p.writer(), "50/100 requests done, 0 failed")
	s := out.String()
	last := s[strings.LastIndex(s, "\r\033[K"):]
	if !strings.Contains(last, "run ETA 2s") || !strings.HasSuffix(last, "campaign ETA 12s") {
		t.Fatalf("view: %q", last)
	}
	// Before the benchmark reports, the mean stands in for this run too.
	p.begin(Run{Experiment: e, Profile: &schema.Profile{ID: "c"}}, "starting")
	set(15 * time.Second)
	p.mu.Lock()
	p.draw()
	p.mu.Unlock()
	s = out.String()
	if last = s[strings.LastIndex(s, "\r\033[K"):]; !strings.Contains(last, "campaign ETA") {
		t.Fatalf("view: %q", last)
	}
}
