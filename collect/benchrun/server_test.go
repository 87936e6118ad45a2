package benchrun

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestWaitReadyTimeout: a server that keeps answering 503 is given up on
// after the timeout, with its last answer in the error.
func TestWaitReadyTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "loading", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	err := WaitReady(context.Background(), http.DefaultClient, srv.URL, 150*time.Millisecond, 20*time.Millisecond, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not ready after") || !strings.Contains(err.Error(), "503") {
		t.Fatalf("err %v", err)
	}
}

// TestFirstModel: the name sent is the first model's id, the model
// recorded its root (the path behind a served name).
func TestFirstModel(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"data": [{"id": "short", "root": "/models/Qwen3-8B"}, {"id": "other"}]}`)
	}))
	defer srv.Close()
	name, id, err := FirstModel(context.Background(), http.DefaultClient, srv.URL)
	if err != nil || name != "short" || id != "/models/Qwen3-8B" {
		t.Fatalf("%q %q %v", name, id, err)
	}
}
