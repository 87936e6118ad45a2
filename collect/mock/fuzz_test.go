package mock

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fuzzMethods are the methods FuzzServeHTTP picks from (a byte of the
// input), with the routes' own and some they do not take.
var fuzzMethods = []string{"GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"}

// FuzzServeHTTP sends arbitrary requests to the mock engine's handler.
// Whatever the request, the engine answers (no panic, no 5xx: a client's
// mistake is a 4xx); an error is vLLM's JSON error with the status as its
// code (or the router's plain 404/405 for a route it does not have); a
// JSON answer is JSON; a stream is SSE whose data are JSON events ending
// in [DONE].
func FuzzServeHTTP(f *testing.F) {
	const p = `"prompt":"The quick brown fox"`
	const m = `"messages":[{"role":"system","content":"Be brief"},{"role":"user","content":[{"type":"text","text":"Hi there"}]}]`
	for _, c := range []struct {
		method      uint8
		path, query string
		body        string
	}{
		{0, "/health", "", ""},
		{0, "/v1/models", "", ""},
		{0, "/metrics", "", ""},
		{1, "/tokenize", "", `{"model":"tiny",` + p + `,"return_token_strs":true}`},
		{1, "/v1/tokenize", "", `{` + m + `}`},
		{1, "/detokenize", "", `{"model":"tiny","tokens":[84,18720,12302]}`},
		{1, "/v1/completions", "", `{"model":"tiny",` + p + `,"max_tokens":3,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true},"ignore_eos":true}`},
		{1, "/v1/completions", "", `{"prompt":[1,2,3],"max_tokens":1,"ignore_eos":true}`},
		{1, "/v1/chat/completions", "", `{"model":"tiny",` + m + `,"max_completion_tokens":3,"stream":true,"ignore_eos":true}`},
		{1, "/v1/chat/completions", "", `{"model":"tiny",` + m + `,"max_tokens":3}`},
		{1, "/v1/completions", "x=1", `{` + p + `,"max_tokens":100}`},
		{2, "/v1/completions", "", `{`},
	} {
		f.Add(c.method, c.path, c.query, []byte(c.body))
	}
	f.Fuzz(func(t *testing.T, method uint8, path, query string, body []byte) {
		if !strings.HasPrefix(path, "/") {
			path = "/" + path
		}
		s, err := New(Config{Seed: 1, Model: "/models/tiny", ServedModelNames: []string{"tiny"}, MaxModelLen: 64, EOSMeanTokens: 10})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		req := httptest.NewRequest(fuzzMethods[int(method)%len(fuzzMethods)], "http://mock/", bytes.NewReader(body))
		req.URL.Path, req.URL.RawQuery = path, query
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		res := rec.Result()
		out := rec.Body.Bytes()
		ct := res.Header.Get("Content-Type")
		switch {
		case res.StatusCode >= 500:
			t.Fatalf("%s %s: %d for a client's request: %s", req.Method, path, res.StatusCode, out)
		case res.StatusCode >= 400 && strings.HasPrefix(ct, "text/plain"):
			if res.StatusCode != http.StatusNotFound && res.StatusCode != http.StatusMethodNotAllowed && res.StatusCode != http.StatusBadRequest {
				t.Fatalf("%s %s: plain %d: %s", req.Method, path, res.StatusCode, out)
			}
		case res.StatusCode >= 400:
			var e struct {
				Error struct {
					Message string `json:"message"`
					Code    int    `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(out, &e); err != nil || e.Error.Message == "" || e.Error.Code != res.StatusCode {
				t.Fatalf("%s %s: %d is not a JSON error with its code (%v): %s", req.Method, path, res.StatusCode, err, out)
			}
		case strings.HasPrefix(ct, "text/event-stream"):
			checkSSE(t, out)
		case strings.HasPrefix(ct, "application/json"):
			if !json.Valid(out) {
				t.Fatalf("%s %s: JSON answer does not parse: %s", req.Method, path, out)
			}
		}
	})
}

// checkSSE fails unless every data line of the stream is a JSON object
// and the last is [DONE].
func checkSSE(t *testing.T, stream []byte) {
	t.Helper()
	var last string
	for _, l := range strings.Split(string(stream), "\n") {
		d, ok := strings.CutPrefix(l, "data: ")
		if !ok {
			continue
		}
		last = d
		if d != "[DONE]" && !json.Valid([]byte(d)) {
			t.Fatalf("stream event is not JSON: %q", d)
		}
	}
	if last != "[DONE]" {
		t.Fatalf("stream does not end in [DONE]:\n%s", stream)
	}
}
