package dataset

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/perflab/perflab/collect/mock"
)

// synthEngine is a vLLM-shaped /detokenize over a synthetic vocabulary:
// ids below base decode to "t<id> ", ids base..base+added-1 to
// <|added_N|> markers. Unknown ids are refused with HTTP 400 (refuse) or,
// as a Hugging Face fast tokenizer does under vLLM, silently dropped.
// /v1/models publishes no n_vocab. It counts the /detokenize requests.
func synthEngine(t *testing.T, base, added int, refuse bool) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("POST /detokenize", func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		var body struct {
			Tokens []int `json:"tokens"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		var b strings.Builder
		for _, id := range body.Tokens {
			switch {
			case id >= 0 && id < base:
				fmt.Fprintf(&b, "t%d ", id)
			case id >= base && id < base+added:
				fmt.Fprintf(&b, "<|added_%d|>", id-base)
			case refuse:
				http.Error(w, `{"error":{"message":"token id out of vocabulary","code":400}}`, 400)
				return
			}
		}
		json.NewEncoder(w).Encode(map[string]string{"prompt": b.String()})
	})
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"object":"list","data":[{"id":"m","max_model_len":4096}]}`))
	})
	srv := httptest.NewServer(mux) // 127.0.0.1
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestProbeVocab(t *testing.T) {
	for _, tc := range []struct {
		name          string
		base, added   int
		refuse        bool
		wantDecodable int
		wantBase      int
	}{
		{"below first guess, 400", 556, 3, true, 559, 556},
		{"below first guess, dropped", 556, 3, false, 559, 556},
		{"no added tokens", 32000, 0, true, 32000, 32000},
		{"exactly the first guess", 1 << 15, 0, false, 1 << 15, 1 << 15},
		{"Qwen2.5 sizes", 151643, 22, false, 151665, 151643},
		{"Llama 3 sizes", 128000, 256, true, 128256, 128000},
		// 1024 is the deepest block looked for: 1500 added tokens are
		// trimmed by 1024 only (a documented limit)
		{"deeper block than the window", 200000, 1500, true, 201500, 201500 - probeTopWindow},
		{"Gemma 3 sizes", 262144, 0, false, 262144, 262144},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, n := synthEngine(t, tc.base, tc.added, tc.refuse)
			st := NewServerTokenizer(srv.URL, "m", srv.Client())
			p, err := st.ProbeVocab(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if p.Decodable != tc.wantDecodable || p.Base != tc.wantBase {
				t.Errorf("probe = %+v, want decodable %d, base %d", p, tc.wantDecodable, tc.wantBase)
			}
			if int(n.Load()) != p.Requests || p.Requests > 46 {
				t.Errorf("%d requests counted, probe says %d (at most 46)", n.Load(), p.Requests)
			}
			t.Logf("%+v", p)
		})
	}
}

// TestProbeVocabMock probes the project's mock engine: it refuses ids past
// its chat markers with HTTP 400 like vLLM; the markers are its added
// tokens, so the base size is mock.BaseVocabSize. VocabSize probes once.
func TestProbeVocabMock(t *testing.T) {
	m, err := mock.New(mock.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/detokenize") {
			n.Add(1)
		}
		m.ServeHTTP(w, r)
	}))
	defer srv.Close()
	st := NewServerTokenizer(srv.URL, "mock", srv.Client())
	for range 3 {
		if v := st.VocabSize(); v != mock.BaseVocabSize {
			t.Fatalf("VocabSize = %d, want %d", v, mock.BaseVocabSize)
		}
	}
	p, err := NewServerTokenizer(srv.URL, "mock", srv.Client()).ProbeVocab(context.Background())
	if err != nil || p.Decodable != mock.BaseVocabSize+3 || p.Base != mock.BaseVocabSize {
		t.Fatalf("probe = %+v, %v", p, err)
	}
	if got := int(n.Load()); got != 2*p.Requests {
		t.Errorf("%d /detokenize requests for VocabSize×3 and one probe of %d: not cached", got, p.Requests)
	}
	t.Logf("mock: %+v", p)
}

func TestProbeVocabErrors(t *testing.T) {
	answer := func(status int, body func(ids []int) string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/v1/models" {
				w.Write([]byte(`{"data":[{"id":"m"}]}`))
				return
			}
			var req struct{ Tokens []int }
			json.NewDecoder(r.Body).Decode(&req)
			w.WriteHeader(status)
			w.Write([]byte(body(req.Tokens)))
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	for _, tc := range []struct {
		name string
		srv  *httptest.Server
		want string
	}{
		// an id-to-text mapping with no vocabulary behind it
		{"decodes everything", answer(200, func(ids []int) string { return fmt.Sprintf(`{"prompt":"%v"}`, ids) }), "does not check ids"},
		// the model name or the body is refused: every id "does not decode"
		{"refuses id 0", answer(400, func([]int) string { return `{"error":"model not found"}` }), "id 0 does not decode"},
		// an empty text for id 0: nothing to compare with
		{"empty text for id 0", answer(200, func([]int) string { return `{"prompt":""}` }), "id 0 does not decode"},
		{"no route", answer(404, func([]int) string { return "404 page not found" }), "HTTP 404"},
		{"server error", answer(500, func([]int) string { return "boom" }), "HTTP 500: boom"},
		{"wrong reply", answer(200, func([]int) string { return `{"ids":[1]}` }), `none of "prompt"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := NewServerTokenizer(tc.srv.URL, "m", tc.srv.Client())
			if p, err := st.ProbeVocab(context.Background()); err == nil || !strings.Contains(err.Error(), tc.want) ||
				!strings.Contains(err.Error(), "/detokenize") {
				t.Errorf("probe = %+v, %v; want an error with %q", p, err, tc.want)
			}
			// Random says why, with both reasons.
			_, err := Random(st, RandomConfig{NumPrompts: 1, InputLen: 8})
			if err == nil || !strings.Contains(err.Error(), "vocabulary size unknown") || !strings.Contains(err.Error(), "no n_vocab") ||
				!strings.Contains(err.Error(), tc.want) {
				t.Errorf("Random: %v", err)
			}
		})
	}
	st := NewServerTokenizer("http://127.0.0.1:1", "m", nil)
	if _, err := st.ProbeVocab(context.Background()); err == nil {
		t.Error("closed port: no error")
	}
}

func TestIsMarkers(t *testing.T) {
	for _, tc := range []struct {
		text string
		n    int
		want bool
	}{
		{"<|im_end|>", 1, true},
		{"<|endoftext|><|im_start|></tool_call>", 3, true},
		{"<s> </s>  <unk>", 3, true}, // spaces between special tokens
		{"<|im_end|>", 2, false},     // fewer markers than ids
		{"<|a|>x<|b|>", 2, false},    // text between markers
		{"x<|a|>", 1, false},
		{"<|a|>x", 1, false},
		{"<a b>", 1, false}, // a space inside is no marker
		{"", 0, true},
		{"zzz", 1, false},
	} {
		if got := isMarkers(tc.text, tc.n); got != tc.want {
			t.Errorf("isMarkers(%q, %d) = %v, want %v", tc.text, tc.n, got, tc.want)
		}
	}
}

// TestProbeVocabLlamaServer probes llama.cpp's server (it refuses unknown
// ids with an HTTP 500 range check) and compares with its published
// n_vocab: the probe finds the same number of ids, and as base size the
// Qwen3 tokenizer's vocab_size, below its block of added <...> tokens.
func TestProbeVocabLlamaServer(t *testing.T) {
	tk := installed(t, "qwen3")
	url := llamaServer(t)
	st := NewServerTokenizer(url, "", nil)
	p, err := st.ProbeVocab(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.Decodable != st.VocabSize() || p.Decodable != tk.TotalVocabSize() || p.Base != tk.VocabSize() {
		t.Errorf("probe %+v; n_vocab %d, tokenizer.json %d tokens, vocab_size %d", p, st.VocabSize(), tk.TotalVocabSize(), tk.VocabSize())
	}
	t.Logf("llama-server: %+v", p)
}
