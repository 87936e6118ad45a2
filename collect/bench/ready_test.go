package bench

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// loadingServer answers 503 to the first `loading` completions (an engine
// still loading its weights), then streams as f does.
type loadingServer struct {
	f       *fakeServer
	loading int64
	seen    atomic.Int64
}

func (l *loadingServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if l.seen.Add(1) <= l.loading {
		http.Error(w, "model loading", http.StatusServiceUnavailable)
		return
	}
	l.f.ServeHTTP(w, r)
}

func TestReadyCheck(t *testing.T) {
	tests := []struct {
		name    string
		loading int64 // 503s before the server answers
		timeout time.Duration
		// sent is how many completions the server sees; wantErr the
		// error's text ("" none); logs the lines the run must print
		sent    int64
		wantErr string
		logs    []string
	}{
		// vLLM's default: no test request at all
		{"skipped", 0, 0, 3, "", []string{"Starting initial single prompt test run...", "Skipping endpoint ready check."}},
		// one test request, not recorded, then the 3 measured
		{"ready at once", 0, 10 * time.Second, 4, "", []string{"Waiting for endpoint to become up in 10 seconds", "Initial test run completed."}},
		// two 503s, retried, then the test request and the run
		{"loading", 2, 10 * time.Second, 6, "", []string{"Endpoint is not ready. Error='HTTP 503", "Initial test run completed."}},
		// never ready: vLLM's error, and no measured request goes out
		{"dead", 1 << 40, 300 * time.Millisecond, -1, "Initial test run failed - Please make sure benchmark arguments are correctly specified. Error: HTTP 503", []string{"Endpoint is not ready."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ls := &loadingServer{f: &fakeServer{usage: true}, loading: tt.loading}
			srv := startServer(t, ls)
			var log bytes.Buffer
			res, err := Run(context.Background(), Config{BaseURL: srv.URL, Model: "m", Samples: samples(3, 2),
				ReadyTimeout: tt.timeout, ReadyRetry: 20 * time.Millisecond, Log: &log})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				if got := len(ls.f.bodies); got != 0 {
					t.Errorf("%d requests reached the stream handler after a failed ready check", got)
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				if res.Summary.Completed != 3 || len(res.Requests) != 3 {
					t.Errorf("completed %d, records %d: the test request must not be recorded", res.Summary.Completed, len(res.Requests))
				}
				if got := ls.seen.Load(); got != tt.sent {
					t.Errorf("server saw %d completions, want %d", got, tt.sent)
				}
			}
			for _, l := range tt.logs {
				if !strings.Contains(log.String(), l) {
					t.Errorf("log lacks %q:\n%s", l, log.String())
				}
			}
		})
	}
}

// TestReadyCheckInterrupt: Ctrl-C during the wait ends it at once, not
// after the 5 s retry interval or the timeout.
func TestReadyCheckInterrupt(t *testing.T) {
	ls := &loadingServer{f: &fakeServer{}, loading: 1 << 40}
	srv := startServer(t, ls)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := Run(ctx, Config{BaseURL: srv.URL, Model: "m", Samples: samples(2, 2), ReadyTimeout: time.Hour})
	if err == nil || !strings.Contains(err.Error(), "interrupted during the ready check") {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v after the cancel at 200ms", d)
	}
}
