package dataset

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// fakeEngine answers /tokenize and /detokenize in one engine's shape,
// with the tiny tokenizer behind it. Fields of the other shapes are
// ignored, as the real servers ignore them.
func fakeEngine(t *testing.T, shape string) *httptest.Server {
	t.Helper()
	tk := tiny(t)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /tokenize", func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		var text string
		switch shape {
		case "vllm":
			if body["model"] != "m" {
				http.Error(w, `{"error":"model not found"}`, 404)
				return
			}
			text, _ = body["prompt"].(string)
		case "llamacpp":
			text, _ = body["content"].(string)
		}
		ids, err := tk.Encode(text)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		resp := map[string]any{"tokens": ids}
		if shape == "vllm" {
			resp["count"] = len(ids)
			resp["max_model_len"] = 4096
		}
		json.NewEncoder(w).Encode(resp)
	})
	mux.HandleFunc("POST /detokenize", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Tokens []int `json:"tokens"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		s, err := tk.Decode(body.Tokens)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		key := map[string]string{"vllm": "prompt", "llamacpp": "content"}[shape]
		json.NewEncoder(w).Encode(map[string]string{key: s})
	})
	if shape == "llamacpp" {
		mux.HandleFunc("POST /apply-template", func(w http.ResponseWriter, r *http.Request) {
			var body struct {
				Messages []struct{ Role, Content string }
			}
			json.NewDecoder(r.Body).Decode(&body)
			json.NewEncoder(w).Encode(map[string]string{"prompt": chatML(body.Messages[0].Content)})
		})
	}
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, r *http.Request) {
		if shape == "llamacpp" {
			json.NewEncoder(w).Encode(map[string]any{"data": []any{map[string]any{"id": "m", "meta": map[string]any{"n_vocab": tk.VocabSize()}}}})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"data": []any{map[string]any{"id": "m"}}})
	})
	srv := httptest.NewServer(mux) // listens on 127.0.0.1
	t.Cleanup(srv.Close)
	return srv
}

func chatML(c string) string { return "<|im_start|>user\n" + c + "<|im_end|>\n<|im_start|>assistant\n" }

func TestServerTokenizerShapes(t *testing.T) {
	tk := tiny(t)
	text := "The quick brown fox 你好 <|im_end|>"
	want, _ := tk.Encode(text)
	for _, shape := range []string{"vllm", "llamacpp"} {
		t.Run(shape, func(t *testing.T) {
			srv := fakeEngine(t, shape)
			st := NewServerTokenizer(srv.URL+"/", "m", srv.Client())
			got, err := st.Encode(text)
			if err != nil || !slices.Equal(got, want) {
				t.Fatalf("Encode = %v, %v; want %v", got, err, want)
			}
			back, err := st.Decode(got)
			if err != nil || back != text {
				t.Fatalf("Decode = %q, %v", back, err)
			}
			if shape == "llamacpp" { // /apply-template, then /tokenize
				want, _ := tk.Count(chatML(text))
				if n, err := st.CountChat(text); err != nil || n != want {
					t.Errorf("CountChat = %d, %v; want %d", n, err, want)
				}
			}
			// Random works through the server: llama.cpp publishes the vocab
			// size, vLLM's is probed through /detokenize (vocabprobe_test.go).
			if shape == "vllm" && st.VocabSize() != tk.VocabSize() {
				t.Errorf("vLLM: probed vocab size %d, want %d", st.VocabSize(), tk.VocabSize())
			}
			samples, err := Random(st, RandomConfig{NumPrompts: 3, InputLen: 40, OutputLen: 5, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range samples {
				if n, _ := tk.Count(s.Prompt); n != s.PromptLen || n != 40 {
					t.Errorf("prompt has %d tokens, PromptLen %d, want 40", n, s.PromptLen)
				}
			}
		})
	}
}

func TestServerTokenizerErrors(t *testing.T) {
	srv := fakeEngine(t, "vllm")
	st := NewServerTokenizer(srv.URL, "wrong-model", srv.Client())
	if _, err := st.Encode("x"); err == nil || !strings.Contains(err.Error(), "HTTP 404") || !strings.Contains(err.Error(), "/tokenize") {
		t.Errorf("404: %v", err)
	}
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"ids": [1, 2]}`))
	}))
	defer bad.Close()
	st = NewServerTokenizer(bad.URL, "m", bad.Client())
	if _, err := st.Encode("x"); err == nil || !strings.Contains(err.Error(), `no "tokens"`) {
		t.Errorf("no tokens: %v", err)
	}
	if _, err := st.Decode([]int{1}); err == nil {
		t.Error("detokenize without text: no error")
	}
	st = NewServerTokenizer("http://127.0.0.1:1", "m", nil)
	if _, err := st.Encode("x"); err == nil {
		t.Error("closed port: no error")
	}
}

func TestServerTokenizerPieces(t *testing.T) {
	// llama.cpp with "with_pieces" answers objects; accept them too.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"tokens": [{"id": 5, "piece": "a"}, {"id": 7, "piece": "b"}]}`))
	}))
	defer srv.Close()
	got, err := NewServerTokenizer(srv.URL, "", srv.Client()).Encode("ab")
	if err != nil || !slices.Equal(got, []int{5, 7}) {
		t.Errorf("got %v, %v", got, err)
	}
}
