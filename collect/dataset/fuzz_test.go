package dataset

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/dataset/tokenizer"
)

// The dataset fuzz targets write the input to a file and read it as vLLM
// would. A refused file gets an error naming it (and, where the error
// names a line, a line of it); an accepted one gives samples whose
// prompts and lengths come from the file.

// fuzzTok is the tiny tokenizer, loaded once per process.
func fuzzTok(f *testing.F) *tokenizer.Tokenizer {
	tk, err := tokenizer.Load(filepath.Join("tokenizer", "testdata", "tiny"))
	if err != nil {
		f.Fatal(err)
	}
	return tk
}

// fuzzFile writes data to a fresh file named name.
func fuzzFile(t *testing.T, name string, data []byte) string {
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkFileErr fails unless err names path and, if it names a line, one
// of data's lines.
func checkFileErr(t *testing.T, err error, path string, data []byte) {
	t.Helper()
	msg := err.Error()
	if !strings.Contains(msg, path) {
		t.Fatalf("error does not name the file: %v", err)
	}
	if m := regexp.MustCompile(regexp.QuoteMeta(path) + `:([0-9]+)`).FindStringSubmatch(msg); m != nil {
		lines := strings.Count(string(data), "\n") + 1
		if n, _ := strconv.Atoi(m[1]); n < 1 || n > lines {
			t.Fatalf("error names line %d of a %d-line file: %v", n, lines, err)
		}
	}
}

// FuzzShareGPT: a ShareGPT file. Every sample's prompt is the first turn
// of one of the file's conversations.
func FuzzShareGPT(f *testing.F) {
	var convs []json.RawMessage
	data, err := os.ReadFile(filepath.Join("testdata", "sharegpt-sample.json"))
	if err != nil || json.Unmarshal(data, &convs) != nil || len(convs) < 3 {
		f.Fatalf("sharegpt sample: %v", err)
	}
	head, _ := json.Marshal(convs[:3])
	f.Add(head, uint8(0))
	f.Add([]byte(`[{"conversations": [{"from": "human", "value": "What is a KV cache? Explain."}, {"from": "gpt", "value": "A cache of keys and values kept per token."}]}]`), uint8(3))
	f.Add([]byte("[\n{\"conversations\": [{\"value\": \"a\"}, {\"value\": \"b\"}]},\n{\"conversations\": [}\n]"), uint8(1))
	tk := fuzzTok(f)
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		p := fuzzFile(t, "sg.json", data)
		cfg := ShareGPTConfig{NumPrompts: 1 + int(mode%4), DisableShuffle: mode&4 != 0, NoOversample: mode&8 != 0, Seed: int64(mode)}
		s, err := ShareGPT(context.Background(), tk, p, cfg)
		if err != nil {
			checkFileErr(t, err, p, data)
			return
		}
		var file []struct {
			Conversations []struct {
				Value string `json:"value"`
			} `json:"conversations"`
		}
		if err := json.Unmarshal(data, &file); err != nil {
			t.Fatalf("accepted a file encoding/json refuses: %v", err)
		}
		first := map[string]bool{}
		for _, c := range file {
			if len(c.Conversations) > 0 {
				first[c.Conversations[0].Value] = true
			}
		}
		for i, x := range s {
			if !first[x.Prompt] {
				t.Fatalf("sample %d: prompt %q is no conversation's first turn", i, x.Prompt)
			}
			if x.PromptLen < 1 || x.OutputLen < 1 {
				t.Fatalf("sample %d: prompt %d tokens, output %d", i, x.PromptLen, x.OutputLen)
			}
		}
	})
}

// FuzzCustom: a custom JSONL file. Every prompt is a line's prompt and,
// with OutputLen -1, every output length a line's output_tokens.
func FuzzCustom(f *testing.F) {
	f.Add([]byte("{\"prompt\": \"Hello there\", \"output_tokens\": 12}\n{\"prompt\": \"Why?\", \"output_tokens\": 3}\n"), uint8(0))
	f.Add([]byte("{\"prompt\": \"<1>\"}\nnot json\n"), uint8(1))
	f.Add([]byte("\n\n{\"prompt\": \"x\", \"output_tokens\": 2.5}\r\n"), uint8(2))
	tk := fuzzTok(f)
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		p := fuzzFile(t, "c.jsonl", data)
		cfg := CustomConfig{NumPrompts: int(mode % 4), SkipChatTemplate: true, DisableShuffle: mode&4 != 0, NoOversample: mode&8 != 0}
		if mode&16 != 0 {
			cfg.OutputLen = -1
		}
		s, err := Custom(context.Background(), tk, p, cfg)
		if err != nil {
			checkFileErr(t, err, p, data)
			return
		}
		prompts, outs := map[string]bool{}, map[int]bool{}
		for _, l := range strings.Split(string(data), "\n") {
			var x struct {
				Prompt       string  `json:"prompt"`
				OutputTokens float64 `json:"output_tokens"`
			}
			if json.Unmarshal([]byte(l), &x) == nil {
				prompts[x.Prompt], outs[int(x.OutputTokens)] = true, true
			}
		}
		for i, x := range s {
			if !prompts[x.Prompt] {
				t.Fatalf("sample %d: prompt %q is no line's", i, x.Prompt)
			}
			if cfg.OutputLen == -1 && !outs[x.OutputLen] {
				t.Fatalf("sample %d: output length %d is no line's output_tokens", i, x.OutputLen)
			}
		}
	})
}

// FuzzTimedTrace: a Mooncake-style trace. Every sample's output length is
// its line's output_length, its prompt at most input_length tokens, and
// its release time finite and not before the first.
func FuzzTimedTrace(f *testing.F) {
	f.Add([]byte("{\"timestamp\": 27482, \"input_length\": 40, \"output_length\": 52, \"hash_ids\": [46, 47, 48]}\n{\"timestamp\": 27990, \"input_length\": 20, \"output_length\": 1, \"hash_ids\": [46, 49]}\n"))
	f.Add([]byte("{\"timestamp\": 0, \"input_length\": 3, \"output_length\": 1}\n"))
	f.Add([]byte("{\"timestamp\": 5, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1]}\n{\"timestamp\": 4, \"input_length\": 1, \"output_length\": 1, \"hash_ids\": [1]}\n"))
	tk := fuzzTok(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		p := fuzzFile(t, "trace.jsonl", data)
		tr, err := TimedTrace(context.Background(), tk, p, TimedTraceConfig{})
		if err != nil {
			checkFileErr(t, err, p, data)
			return
		}
		var rows []struct {
			In  int `json:"input_length"`
			Out int `json:"output_length"`
		}
		for _, l := range strings.Split(string(data), "\n") {
			var r struct {
				In  int `json:"input_length"`
				Out int `json:"output_length"`
			}
			if strings.TrimSpace(l) != "" && json.Unmarshal([]byte(l), &r) == nil {
				rows = append(rows, r)
			}
		}
		if len(rows) < len(tr.Samples) {
			t.Fatalf("%d samples from %d rows", len(tr.Samples), len(rows))
		}
		for i, s := range tr.Samples {
			if s.OutputLen != rows[i].Out || s.PromptLen > rows[i].In || s.PromptLen != len(tr.IDs[i]) {
				t.Fatalf("sample %d: prompt %d tokens (%d ids), output %d; the row says input %d, output %d", i, s.PromptLen, len(tr.IDs[i]), s.OutputLen, rows[i].In, rows[i].Out)
			}
			if at := tr.AtS[i]; at < 0 || math.IsInf(at, 0) || math.IsNaN(at) {
				t.Fatalf("sample %d released at %v s", i, at)
			}
		}
	})
}
