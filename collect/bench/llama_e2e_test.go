package bench

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/metrics"
)

// repoRoot finds the module root (where .cache/ lives).
func repoRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

// lockedBuffer collects the server's log from two goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startLlama starts llama.cpp's llama-server (installed by
// .ci/install-20-llama-server.sh) on a free 127.0.0.1 port and stops it,
// by PID, when the test ends.
func startLlama(t *testing.T) string {
	root := repoRoot(t)
	bin := filepath.Join(root, ".cache/llama/llama-server")
	model := filepath.Join(root, ".cache/llama/tiny-qwen.gguf")
	for _, p := range []string{bin, model} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("SKIP: llama-server end-to-end test: %s is not installed (run `bash .ci/install-20-llama-server.sh` or `make deps`): %v", p, err)
		}
	}
	if out, err := exec.Command(bin, "--version").CombinedOutput(); err == nil {
		t.Logf("llama-server: %s", strings.SplitN(string(out), "\n", 2)[0])
	} else {
		t.Skipf("SKIP: llama-server end-to-end test: %s --version fails: %v: %s", bin, err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	log := &lockedBuffer{}
	cmd := exec.Command(bin, "-m", model, "-a", "tiny-qwen", "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"-c", "4096", "-np", "4", "-t", "1", "--metrics")
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // the wrapper execs, so this PID is the server's
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("llama-server log:\n%s", log.String())
		}
	})
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("llama-server not healthy after 60 s: %v\n%s", err, log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// predictedTotal reads llama-server's own count of generated tokens.
func predictedTotal(t *testing.T, base string) int {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "llamacpp:tokens_predicted_total "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return int(f)
		}
	}
	t.Fatal("llama-server /metrics has no llamacpp:tokens_predicted_total")
	return 0
}

// TestLlamaServerEndToEnd runs the client against a real engine nobody
// here wrote: llama.cpp's llama-server with a tiny random model.
func TestLlamaServerEndToEnd(t *testing.T) {
	base := startLlama(t)
	const n, in, out = 8, 32, 16
	smp, err := dataset.Random(dataset.NewServerTokenizer(base, "tiny-qwen", nil), dataset.RandomConfig{
		NumPrompts: n, InputLen: in, OutputLen: out, Seed: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	before := predictedTotal(t, base)
	for _, backend := range []string{"openai", "openai-chat"} {
		res, err := Run(context.Background(), Config{
			BaseURL: base, Backend: backend, Model: "tiny-qwen", Samples: smp, IgnoreEOS: true,
			MaxConcurrency: 4, RequestTimeout: 60 * time.Second,
			Metrics: metrics.Options{Metrics: []string{"ttft", "tpot", "itl", "e2el"}, Percentiles: []float64{50, 99}},
		})
		if err != nil {
			t.Fatalf("%s: %v", backend, err)
		}
		var text bytes.Buffer
		if err := metrics.WriteText(&text, res.Summary, metrics.Options{MaxConcurrency: 4, Percentiles: []float64{50, 99}}); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s against llama-server:\n%s", backend, text.String())
		for _, r := range res.Requests {
			if !r.Success {
				t.Errorf("%s: request %d failed: status %d: %s", backend, r.Index, r.HTTPStatus, r.Error)
			}
		}
		if len(res.Requests) != n || res.Summary.Completed != n || res.Summary.Failed != 0 {
			t.Fatalf("%s: %d records, %d completed, %d failed", backend, len(res.Requests), res.Summary.Completed, res.Summary.Failed)
		}
		for _, r := range res.Requests {
			// ignore_eos: exactly max_tokens, from the server's usage
			if !r.Success || r.OutputTokens != out || r.OutputCounted {
				t.Fatalf("%s: request %d: %+v", backend, r.Index, r)
			}
			// the server counts exactly the random dataset's length (chat
			// adds its template's tokens)
			if r.UsagePromptTokens == nil || (backend == "openai" && *r.UsagePromptTokens != in) || *r.UsagePromptTokens < in {
				t.Fatalf("%s: request %d: usage prompt tokens %v", backend, r.Index, r.UsagePromptTokens)
			}
			// about one token event per token, plus llama.cpp's finish chunk
			// (and the role chunk for chat), all with non-empty choices. It
			// can be fewer: llama.cpp holds back a token that ends inside a
			// UTF-8 character and sends it with the next one (one event, two
			// tokens; vLLM's rules then record one ITL sample).
			if len(r.EventS) < out/2 || len(r.EventS) > out+2 {
				t.Fatalf("%s: request %d: %d token events for %d tokens", backend, r.Index, len(r.EventS), out)
			}
			if ttft := r.EventS[0] - r.SendS; !(ttft > 0 && ttft < 10) {
				t.Fatalf("%s: request %d: TTFT %v s", backend, r.Index, ttft)
			}
			for k := 1; k < len(r.EventS); k++ {
				if itl := r.EventS[k] - r.EventS[k-1]; !(itl >= 0 && itl < 10) {
					t.Fatalf("%s: request %d: ITL %v s", backend, r.Index, itl)
				}
			}
		}
		s := res.Summary
		if s.TotalOutputTokens != n*out {
			t.Fatalf("%s: total output %d, want %d", backend, s.TotalOutputTokens, n*out)
		}
		if p50, _ := s.TTFT.Get(50); !(p50 > 0 && p50 < 10000) {
			t.Fatalf("%s: median TTFT %v ms", backend, p50)
		}
		if p50, _ := s.ITL.Get(50); !(p50 > 0 && p50 < 10000) {
			t.Fatalf("%s: median ITL %v ms", backend, p50)
		}
		if *s.MaxConcurrentRequests > 4 {
			t.Fatalf("%s: peak concurrency %d above the cap 4", backend, *s.MaxConcurrentRequests)
		}
	}
	// The server's own token counter agrees with the records.
	if got := predictedTotal(t, base) - before; got != 2*n*out {
		t.Fatalf("llama-server generated %d tokens, the records say %d", got, 2*n*out)
	}
}
