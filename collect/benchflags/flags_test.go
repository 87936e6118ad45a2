package benchflags

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// vllmList reads vLLM's own sorted list of `vllm bench serve` flags.
func vllmList(t *testing.T) []string {
	f, err := os.Open("testdata/python_serve_flags.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "--") {
			out = append(out, l)
		}
	}
	return out
}

// TestTableMatchesVLLM: the table's Serve rows are exactly vLLM's list,
// and every name is unique across the whole table.
func TestTableMatchesVLLM(t *testing.T) {
	want := vllmList(t)
	if len(want) != 105 {
		t.Fatalf("vLLM's list has %d flags, want 105", len(want))
	}
	got := VLLM.Names(Serve)
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("table lacks vLLM's %s", w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("table marks %s as a vllm bench serve flag; vLLM's list lacks it", g)
		}
	}
	seen := map[string]bool{}
	for _, f := range append(VLLM, Own...) {
		if seen[f.Name] {
			t.Errorf("--%s twice", f.Name)
		}
		seen[f.Name] = true
		if f.Help == "" {
			t.Errorf("--%s has no help", f.Name)
		}
		if f.Action == Warn && f.Why == "" {
			t.Errorf("--%s: a Warn row must say why it has no effect", f.Name)
		}
	}
}

func TestParse(t *testing.T) {
	tab := append(VLLM, Own...)
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(cfg, []byte("num_prompts: 7\nignore-eos: true\ntrust_remote_code: false\ngoodput: [ttft:50, tpot:10]\nextra_body:\n  top_k: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		check func(t *testing.T, v *Values)
	}{
		{"underscores", []string{"--num_prompts", "5", "--random_input_len=9"}, func(t *testing.T, v *Values) {
			if v.Get("num-prompts") != "5" || v.Get("random-input-len") != "9" {
				t.Fatalf("%v", v.vals)
			}
		}},
		{"last value wins", []string{"--seed", "1", "--seed", "2"}, func(t *testing.T, v *Values) {
			if v.Get("seed") != "2" {
				t.Fatal(v.Get("seed"))
			}
		}},
		{"list values, repeated", []string{"--goodput", "ttft:50", "tpot:10", "--seed", "3", "--goodput", "e2el:9"}, func(t *testing.T, v *Values) {
			if !slices.Equal(v.All("goodput"), []string{"ttft:50", "tpot:10", "e2el:9"}) || v.Get("seed") != "3" {
				t.Fatalf("%v", v.vals)
			}
		}},
		// a negative number after a scalar flag is its value, not a flag
		{"negative value", []string{"--custom-output-len", "-1"}, func(t *testing.T, v *Values) {
			if v.Get("custom-output-len") != "-1" {
				t.Fatal(v.Get("custom-output-len"))
			}
		}},
		// a list flag's several values are one use
		{"warn once each", []string{"--trust-remote-code", "--tokenizer-mode", "auto", "--trust_remote_code", "--use-beam-search", "--timeline-itl-thresholds", "25", "50"}, func(t *testing.T, v *Values) {
			if len(v.Warnings) != 4 || !strings.Contains(v.Warnings[0], "--trust-remote-code has no effect here") {
				t.Fatalf("%q", v.Warnings)
			}
		}},
		{"bool=false", []string{"--ignore-eos=false"}, func(t *testing.T, v *Values) {
			if v.Get("ignore-eos") != "false" {
				t.Fatal(v.Get("ignore-eos"))
			}
		}},
		// dotted keys build the object, JSON values typed, strings kept,
		// underscores in keys kept, merged over a whole --extra-body
		{"dotted", []string{"--extra-body", `{"top_k":5,"x":{"a":1}}`, "--extra-body.chat_template_kwargs.enable_thinking", "false", "--extra_body.x.b", "hi", "--extra-body.top_k=7"}, func(t *testing.T, v *Values) {
			var got map[string]any
			if err := json.Unmarshal([]byte(v.Get("extra-body")), &got); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"top_k": 7.0, "x": map[string]any{"a": 1.0, "b": "hi"}, "chat_template_kwargs": map[string]any{"enable_thinking": false}}
			if b1, b2 := mustJSON(got), mustJSON(want); b1 != b2 {
				t.Fatalf("got %s want %s", b1, b2)
			}
		}},
		// config keys first, the command line wins
		{"config", []string{"--num-prompts", "9", "--config", cfg}, func(t *testing.T, v *Values) {
			if v.Get("num-prompts") != "9" || v.Get("ignore-eos") != "true" || v.Has("trust-remote-code") {
				t.Fatalf("%v", v.vals)
			}
			if !slices.Equal(v.All("goodput"), []string{"ttft:50", "tpot:10"}) || v.Get("extra-body") != `{"top_k":3}` {
				t.Fatalf("%v", v.vals)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := tab.Parse(tc.args)
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, v)
		})
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

func TestParseErrors(t *testing.T) {
	tab := append(VLLM, Own...)
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("num_prompts: 3\nnum_promts: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list := filepath.Join(t.TempDir(), "list.yaml")
	if err := os.WriteFile(list, []byte("goodput: [\"ttft:500\"]\nmetric_percentiles: [25, 50, 99]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	badVal := filepath.Join(t.TempDir(), "badval.yaml")
	if err := os.WriteFile(badVal, []byte("backend: openai\nnum_prompts: lots\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--num-promts", "3"}, "did you mean --num-prompts"},
		{[]string{"--config", badVal}, "badval.yaml:2: num_prompts \"lots\": want an integer"},
		{[]string{"--config", list}, "list.yaml:2: metric_percentiles: a list, but --metric-percentiles takes one value"},
		{[]string{"--num-prompts"}, "needs a value"},
		{[]string{"--num-prompts", "x"}, "want an integer"},
		{[]string{"--temperature", "hot"}, "want a number"},
		{[]string{"stray"}, "unexpected argument"},
		{[]string{"--seed.x", "1"}, "only a JSON flag"},
		{[]string{"--goodput"}, "at least one value"},
		{[]string{"--ignore-eos=maybe"}, "true or false"},
		{[]string{"--config", bad}, "bad.yaml:2: unknown key \"num_promts\""},
		{[]string{"--config", "/nonexistent.yaml"}, "no such file"},
	} {
		_, err := tab.Parse(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
	}
	if _, err := tab.Parse([]string{"--help"}); err != ErrHelp {
		t.Errorf("--help: %v", err)
	}
}

func TestUsageAndMarkdown(t *testing.T) {
	var u, m bytes.Buffer
	if err := VLLM.WriteUsage(&u); err != nil {
		t.Fatal(err)
	}
	if err := VLLM.WriteMarkdown(&m); err != nil {
		t.Fatal(err)
	}
	for _, f := range VLLM {
		if !strings.Contains(u.String(), "--"+f.Name+"\n") && !strings.Contains(u.String(), "--"+f.Name+" ") {
			t.Errorf("-h lacks --%s", f.Name)
		}
		if !strings.Contains(m.String(), "`--"+f.Name+"`") {
			t.Errorf("markdown lacks --%s", f.Name)
		}
	}
	if !strings.Contains(u.String(), "no effect here: trust remote code") {
		t.Errorf("-h does not mark ignored flags:\n%s", u.String())
	}
}

// TestNoStreamIsADatasetFlag: vLLM's --no-stream means "do not load the
// dataset in streaming mode" (Hugging Face datasets); its warning must
// not say that perflab refuses non-streaming requests.
func TestNoStreamIsADatasetFlag(t *testing.T) {
	f := VLLM.Lookup("no-stream")
	if f == nil || f.Group != "Dataset" || !strings.Contains(f.Help, "Hugging Face dataset") {
		t.Fatalf("--no-stream: %+v", f)
	}
	v, err := VLLM.Parse([]string{"--no-stream"})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Warnings) != 1 || strings.Contains(v.Warnings[0], "streams every request") {
		t.Fatalf("warnings %q", v.Warnings)
	}
}
