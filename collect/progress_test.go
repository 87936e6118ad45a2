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
