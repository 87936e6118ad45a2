package mock

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var createdRE = regexp.MustCompile(`"created":\d+`)

// TestGolden pins the exact bytes of every route's answers. Only
// "created" (wall-clock seconds) is normalised.
func TestGolden(t *testing.T) {
	cfg := Config{Seed: 1, Model: "/models/tiny", ServedModelNames: []string{"tiny", "tiny-alias"}, MaxModelLen: 64, EOSMeanTokens: 10}
	const p = `"prompt":"The quick brown fox"`
	const m = `"messages":[{"role":"system","content":"Be brief"},{"role":"user","content":[{"type":"text","text":"Hi there"}]}]`
	cases := []struct {
		name, method, path, body string
	}{
		{"health", "GET", "/health", ""},
		{"models", "GET", "/v1/models", ""},
		{"tokenize_prompt", "POST", "/tokenize", `{"model":"tiny",` + p + `,"return_token_strs":true}`},
		{"tokenize_messages", "POST", "/tokenize", `{` + m + `}`},
		{"tokenize_v1", "POST", "/v1/tokenize", `{"prompt":"hi"}`},
		{"detokenize", "POST", "/detokenize", `{"model":"tiny","tokens":[84,18720,12302,18596,2090,19119,4725]}`},
		{"completions_stream", "POST", "/v1/completions", `{"model":"tiny",` + p + `,"max_tokens":3,"stream":true,"ignore_eos":true}`},
		{"completions_stream_usage", "POST", "/v1/completions", `{"model":"tiny",` + p + `,"max_tokens":3,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`},
		{"completions_stream_continuous_usage", "POST", "/v1/completions", `{"model":"tiny",` + p + `,"max_tokens":2,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true},"ignore_eos":true}`},
		{"completions", "POST", "/v1/completions", `{"model":"tiny-alias",` + p + `,"max_tokens":3,"ignore_eos":true}`},
		// No ignore_eos: the pseudo-EOS stops this prompt early.
		{"completions_eos", "POST", "/v1/completions", `{` + p + `,"max_tokens":40}`},
		{"completions_token_ids", "POST", "/v1/completions", `{"prompt":[1,2,3],"max_tokens":1,"ignore_eos":true}`},
		{"chat_stream", "POST", "/v1/chat/completions", `{"model":"tiny",` + m + `,"max_completion_tokens":3,"stream":true,"ignore_eos":true}`},
		{"chat_stream_usage", "POST", "/v1/chat/completions", `{"model":"tiny",` + m + `,"max_completion_tokens":3,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`},
		// Continuous usage: the role chunk carries completion_tokens 0.
		{"chat_stream_continuous_usage", "POST", "/v1/chat/completions", `{"model":"tiny",` + m + `,"max_completion_tokens":1,"stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true},"ignore_eos":true}`},
		{"chat", "POST", "/v1/chat/completions", `{"model":"tiny",` + m + `,"max_tokens":3,"ignore_eos":true}`},
		{"err_unknown_model", "POST", "/v1/completions", `{"model":"nope",` + p + `}`},
		{"err_malformed_json", "POST", "/v1/chat/completions", `{"model":"tiny",`},
		{"err_n", "POST", "/v1/completions", `{` + p + `,"n":2}`},
		{"err_max_tokens_zero", "POST", "/v1/completions", `{` + p + `,"max_tokens":0}`},
		{"err_context", "POST", "/v1/completions", `{` + p + `,"max_tokens":100}`},
		// As vLLM: stream_options without stream is a 400.
		{"err_stream_options", "POST", "/v1/completions", `{` + p + `,"stream_options":{"include_usage":true}}`},
		{"err_no_messages", "POST", "/v1/chat/completions", `{"model":"tiny"}`},
		{"err_detokenize_range", "POST", "/detokenize", `{"tokens":[5,99999]}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// A server per case: ids come from the arrival number, so
			// each golden stands alone.
			_, url := newTestServer(t, cfg)
			req, err := http.NewRequest(c.method, url+c.path, strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprintf("HTTP %d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), createdRE.ReplaceAll(body, []byte(`"created":0`)))
			file := filepath.Join("testdata", c.name+".golden")
			if *update {
				if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from %s:\ngot:\n%s\nwant:\n%s", c.name, file, got, want)
			}
		})
	}
}
