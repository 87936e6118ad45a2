package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/unicode/norm"
)

// llamaServer starts .cache/llama/llama-server (installed by
// .ci/install-20-llama-server.sh) on the tiny random-weight model built
// with the real Qwen3 vocabulary, or skips loudly when they are absent.
func llamaServer(t *testing.T) string {
	t.Helper()
	root := filepath.Join("..", "..")
	bin := filepath.Join(root, ".cache", "llama", "llama-server")
	model := filepath.Join(root, ".cache", "llama", "tiny-qwen.gguf")
	for _, p := range []string{bin, model} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("SKIP: llama-server cross-check: %v; run `make deps` (.ci/install-20-llama-server.sh)", err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var logs bytes.Buffer
	cmd := exec.Command(bin, "-m", model, "--host", "127.0.0.1", "--port", fmt.Sprint(port),
		"-t", "1", "-c", "4096", "-np", "1")
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start llama-server: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill() // the wrapper execs the server, so this PID is the server's
		cmd.Wait()
		if t.Failed() {
			t.Logf("llama-server output:\n%s", lastLines(logs.String(), 30))
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(url + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("llama-server not healthy after 60 s: %v\n%s", err, lastLines(logs.String(), 30))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// llamaDivergence says why llama.cpp tokenizes text differently from the
// Hugging Face tokenizer (and from us and the JavaScript reference), for a
// reason of its own, or "" if it should not. Such texts are logged, not
// failed.
func llamaDivergence(text string) string {
	// "</s>" is an ordinary token of Qwen's vocabulary; llama.cpp's loader
	// logs "control-looking token: 128247 '</s>' was not control-type ...
	// its type will be overridden" and then matches it as a special token.
	if strings.Contains(text, "</s>") {
		return `llama.cpp turns Qwen's ordinary token "</s>" into a control token`
	}
	return ""
}

// TestCrossCheckLlamaServer compares two independent tokenizers on the
// golden corpus: ours (Qwen3 tokenizer.json) and llama.cpp's (the same
// vocabulary inside the GGUF), through llama-server's /tokenize, reached
// with ServerTokenizer. It also compares the chat prompt we render with
// llama-server's /apply-template, and both chat token counts.
//
// llama.cpp does not run the tokenizer.json normalizer (NFC for Qwen), so
// the text sent to it is NFC-normalized first; the texts this changes are
// counted and logged.
func TestCrossCheckLlamaServer(t *testing.T) {
	tk := installed(t, "qwen3")
	url := llamaServer(t)
	var corpus []struct {
		Name string `json:"name"`
		Text string `json:"text"`
	}
	data, err := os.ReadFile(filepath.Join("tokenizer", "testdata", "corpus.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &corpus); err != nil {
		t.Fatal(err)
	}
	// Texts the golden corpus leaves out because the JavaScript reference
	// treats U+FEFF and U+0085 unlike Rust: here llama.cpp is the judge.
	for i, s := range []string{"a\ufeff//b", "x\u0085 y", "a \ufeff b", "line\u0085\u0085next \ufeff\ufeff"} {
		corpus = append(corpus, struct {
			Name string `json:"name"`
			Text string `json:"text"`
		}{fmt.Sprintf("js-divergent-%d", i), s})
	}
	st := NewServerTokenizer(url, "", nil)
	same, chatSame, nfcChanged, known := 0, 0, 0, 0
	for _, c := range corpus {
		want, err := tk.Encode(c.Text)
		if err != nil {
			t.Fatal(err)
		}
		sent := norm.NFC.String(c.Text)
		if sent != c.Text {
			nfcChanged++
		}
		got, err := st.Encode(sent)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		reason := llamaDivergence(c.Text)
		divergent := reason != ""
		switch {
		case slices.Equal(got, want):
			same++
			if divergent {
				t.Logf("%s: known divergence (%s) no longer happens", c.Name, reason)
			}
		case divergent:
			known++
			t.Logf("%s: known divergence: %s\nllama-server %v\nours         %v", c.Name, reason, got, want)
			continue // its chat count differs for the same reason
		default:
			t.Errorf("%s: %q\nllama-server %v\nours         %v", c.Name, c.Text, got, want)
		}

		ours, err := tk.ChatPrompt(c.Text)
		if err != nil {
			t.Fatal(err)
		}
		var reply struct {
			Prompt string `json:"prompt"`
		}
		body, _ := json.Marshal(map[string]any{"messages": []any{map[string]string{"role": "user", "content": sent}}})
		resp, err := http.Post(url+"/apply-template", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		json.NewDecoder(resp.Body).Decode(&reply)
		resp.Body.Close()
		nServer, err := st.CountChat(sent)
		nOurs, err2 := tk.CountChat(c.Text)
		if reply.Prompt == norm.NFC.String(ours) && err == nil && err2 == nil && nServer == nOurs {
			chatSame++
		} else {
			t.Errorf("%s: chat prompt (%d vs %d tokens, %v, %v)\nllama-server %q\nours         %q", c.Name, nServer, nOurs, err, err2, reply.Prompt, ours)
		}
	}
	t.Logf("llama-server /tokenize vs ours (qwen3): %d texts, %d identical, %d known divergences; %d texts NFC-normalized before sending (llama.cpp skips the normalizer); /apply-template and chat token counts: %d identical",
		len(corpus), same, known, nfcChanged, chatSame)
}

// TestCrossCheckRandomPrompts sends random-dataset prompts (made of random
// vocabulary ids, so text from every script) to llama-server and checks
// its count equals PromptLen.
func TestCrossCheckRandomPrompts(t *testing.T) {
	tk := installed(t, "qwen3")
	url := llamaServer(t)
	st := NewServerTokenizer(url, "", nil)
	samples, err := Random(tk, RandomConfig{NumPrompts: 40, InputLen: 300, OutputLen: 10, RangeRatio: 0.5, PrefixLen: 20, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	same := 0
	for i, s := range samples {
		ids, err := st.Encode(norm.NFC.String(s.Prompt))
		if err != nil {
			t.Fatal(err)
		}
		if len(ids) == s.PromptLen {
			same++
		} else {
			ours, _ := tk.Encode(s.Prompt)
			t.Errorf("prompt %d: llama-server %d tokens, PromptLen %d\n server %v\n ours   %v", i, len(ids), s.PromptLen, ids, ours)
		}
	}
	t.Logf("random prompts: %d of %d have llama-server's count", same, len(samples))
}

// TestCrossCheckServerRandom builds random prompts with llama-server as the
// tokenizer (--tokenizer server): vocab size from /v1/models, ids from
// /detokenize and /tokenize; our tokenizer must count them the same.
func TestCrossCheckServerRandom(t *testing.T) {
	tk := installed(t, "qwen3")
	url := llamaServer(t)
	st := NewServerTokenizer(url, "", nil)
	if v := st.VocabSize(); v != tk.TotalVocabSize() {
		t.Errorf("llama-server n_vocab %d, tokenizer.json has %d tokens", v, tk.TotalVocabSize())
	}
	samples, err := Random(st, RandomConfig{NumPrompts: 10, InputLen: 128, OutputLen: 8, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range samples {
		n, err := tk.Count(s.Prompt)
		if err != nil || n != s.PromptLen || s.PromptLen != 128 {
			t.Errorf("prompt %d: ours %d, server %d, want 128 (%v)", i, n, s.PromptLen, err)
		}
	}
}
