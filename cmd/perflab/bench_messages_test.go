package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchPromptTokenIDsError: when the ids of --prompt-token-ids cannot
// be made (here the server's /tokenize refuses the encoding without
// special tokens that the ids need, after the dataset was counted with
// them), the error names the flag, as before the run moved to
// collect/benchrun, and is a failure (exit 1), not a usage error.
func TestBenchPromptTokenIDsError(t *testing.T) {
	srv, _ := workloadMock(t)
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/tokenize" {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"add_special_tokens":false`)) {
				http.Error(w, "no encoding without special tokens here", http.StatusInternalServerError)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
		}
		proxy.ServeHTTP(w, r)
	}))
	defer front.Close()
	path := filepath.Join(t.TempDir(), "prompts.jsonl")
	if err := os.WriteFile(path, []byte("{\"prompt\": \"what is the weather\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	err = run(context.Background(), []string{"bench", "--base-url", front.URL, "--dataset-name", "custom", "--dataset-path", path,
		"--skip-chat-template", "--num-prompts", "1", "--prompt-token-ids"}, &stdout, &stderr)
	if err == nil || errors.Is(err, errUsage) {
		t.Fatalf("want a failure, got %v\n%s", err, stderr.String())
	}
	if !strings.HasPrefix(err.Error(), "bench: --prompt-token-ids: prompt 0: ") {
		t.Errorf("error %q does not name --prompt-token-ids", err)
	}
}

// TestBenchModelListErrors: without --model, a server URL no request can
// be made to and a server that does not answer fail with the messages
// perflab bench has always given (exit 1).
func TestBenchModelListErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--host", "a b"}, `bench: model list: parse "http://a b:8000/v1/models": invalid character " " in host name`},
		{[]string{"--base-url", "http://127.0.0.1:1"}, `bench: no --model given and the model list failed: Get "http://127.0.0.1:1/v1/models": `},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append([]string{"bench", "--num-prompts", "1"}, tt.args...), &stdout, &stderr)
		if err == nil || errors.Is(err, errUsage) || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("%v: got %v, want a failure starting %q", tt.args, err, tt.want)
		}
	}
}
