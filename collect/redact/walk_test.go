package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestWalkReachesEveryString: a record's secrets are masked wherever they
// sit (nested structs, pointers, slices, maps, interfaces), references to
// the environment are kept, and numbers are left alone.
func TestWalkReachesEveryString(t *testing.T) {
	type inner struct {
		Note string
		Args []string
	}
	type rec struct {
		Command string
		Env     map[string]string
		Inner   *inner
		List    []inner
		ByName  map[string]inner
		Any     any
		Nums    []float64
		private string
	}
	v := &rec{
		Command: "HF_TOKEN=hf_abcdefghijklmnopqrstuvwx vllm serve M --api-key s3cretvalue --port 8000",
		Env:     map[string]string{"HF_TOKEN": "plainvalue", "OPENAI_API_KEY": "${OPENAI_API_KEY}", "CUDA_VISIBLE_DEVICES": "0,1"},
		Inner:   &inner{Note: "used sk-proj-0123456789abcdefghij", Args: []string{"--api-key", "another1", "--tp", "2"}},
		List:    []inner{{Note: "Authorization: Bearer abcdefghijkl"}},
		ByName:  map[string]inner{"a": {Args: []string{"--hf-token=xyzw1234"}}},
		Any:     "ghp_abcdefghijklmnopqrstuvwxyz",
		Nums:    []float64{1, 2},
		private: "hf_abcdefghijklmnopqrstuvwx",
	}
	New().Walk(v)
	for _, leak := range []string{"hf_abcdefghijklmnopqrstuvwx vllm", "s3cretvalue", "plainvalue", "sk-proj", "another1", "Bearer abcdefghijkl", "xyzw1234", "ghp_"} {
		all := v.Command + strings.Join(v.Inner.Args, " ") + v.Inner.Note + v.List[0].Note + strings.Join(v.ByName["a"].Args, " ") + v.Any.(string)
		for _, x := range v.Env {
			all += " " + x
		}
		if strings.Contains(all, leak) {
			t.Errorf("%q survived: %+v", leak, v)
		}
	}
	if v.Env["OPENAI_API_KEY"] != "${OPENAI_API_KEY}" || v.Env["CUDA_VISIBLE_DEVICES"] != "0,1" {
		t.Errorf("env: %v", v.Env)
	}
	if !strings.Contains(v.Command, "--port 8000") || v.Inner.Args[3] != "2" || v.Nums[1] != 2 {
		t.Errorf("too much masked: %+v", v)
	}
	if v.private == Mask {
		t.Error("an unexported field was changed")
	}
}

// TestReferencesKept: ${NAME} is where a secret comes from, not a secret.
func TestReferencesKept(t *testing.T) {
	for _, in := range []string{
		"vllm serve M --api-key ${VLLM_API_KEY}",
		"HF_TOKEN=${HF_TOKEN} vllm serve M",
		`"api_key": "${KEY}"`,
		"HF_TOKEN: ${HF_TOKEN}",
	} {
		if got := New().String(in); got != in {
			t.Errorf("String(%q) = %q", in, got)
		}
	}
	if got := Args([]string{"x", "--api-key", "${K}", "--hf-token=${T}"}); strings.Join(got, " ") != "x --api-key ${K} --hf-token=${T}" {
		t.Errorf("Args: %q", got)
	}
	if vs := SecretValues(map[string]string{"HF_TOKEN": "${HF_TOKEN}"}); len(vs) != 0 {
		t.Errorf("SecretValues: %q", vs)
	}
	// Not references: text around one, an empty or odd name.
	for _, v := range []string{"x${A}", "${A}x", "${}", "${1A}", "$A", "${A-B}"} {
		if IsRef(v) {
			t.Errorf("IsRef(%q)", v)
		}
	}
}

func TestFind(t *testing.T) {
	text := []byte("line one\nHF_TOKEN=hf_abcdefghijklmnopqrstuvwx\nok\n--api-key sk-proj-0123456789abcdefghij and ${HF_TOKEN}\n")
	got := Find(text)
	if len(got) != 2 || got[0].Line != 2 || got[1].Line != 4 {
		t.Fatalf("Find = %+v", got)
	}
	for _, l := range got {
		if strings.Contains(l.Text, "abcdefghijklmnop") || strings.Contains(l.Text, "0123456789abcdef") {
			t.Errorf("Find repeats the token: %q", l.Text)
		}
	}
	if got := Find([]byte("max-num-batched-tokens: 8192, tokenizer hf_short")); got != nil {
		t.Errorf("Find on clean text = %+v", got)
	}
}

// TestWalkRecursiveTypesConcurrently: a type that refers to itself is
// walked to the bottom, from several goroutines at once (go test -race).
func TestWalkRecursiveTypesConcurrently(t *testing.T) {
	type node struct {
		Name string
		Next *node
		Kids []node
		N    []int
	}
	done := make(chan *node)
	for range 4 {
		go func() {
			n := &node{Name: "a", Next: &node{Kids: []node{{Name: "HF_TOKEN=abcd1234"}}}}
			New().Walk(n)
			done <- n
		}()
	}
	for range 4 {
		if n := <-done; n.Next.Kids[0].Name != "HF_TOKEN="+Mask {
			t.Errorf("deep field: %q", n.Next.Kids[0].Name)
		}
	}
}

// TestMayHavePairsNeverMissesAPair: String skips maskPairs only for text
// in which maskPairs would mask nothing (random texts from a vocabulary
// of names, separators and values that hit its every rule).
func TestMayHavePairsNeverMissesAPair(t *testing.T) {
	words := []string{"HF_TOKEN", "--api-key", "api_key", "x.api_key", "--max-num-batched-tokens", "tokens", "token",
		"Token", "TOKENIZER", "-tp", "---api-key", "1api_key", "AUTH_KEY", "mykey", "passwd", "db_password", "credential",
		"secret", "\"api_key\"", "Total token throughput", "-----Inter-token", "value",
		"hf_abcdefghijklmnopqrstuv", "Bearer", "basic", "abcdefghij", "sk-proj-0123456789abcdef", "ghp_abcdefghijklmnopqrstuv", "xoxb-1234567890ab", "AKIAABCDEFGHIJKLMNOP", "abc123", "${K}", "8", "-x", "/api_key", "(token", "[secret", "{key", "num_token"}
	seps := []string{" ", "=", ": ", ":", "\t", "\n", "\"", "'", ",", ";", "/", "-", " \"", "\": \"", ""}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 50000; i++ {
		var b strings.Builder
		for j := rng.IntN(6) + 1; j > 0; j-- {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		s := b.String()
		if !mayHavePairs(s) && maskPairs(s) != s {
			t.Fatalf("mayHavePairs(%q) = false, but maskPairs masks: %q", s, maskPairs(s))
		}
		// String with scan's shortcuts against every step run on every text.
		full := shaped.ReplaceAllString(s, Mask)
		full = bearer.ReplaceAllStringFunc(full, func(m string) string { return strings.Fields(m)[0] + " " + Mask })
		full = maskPairs(full)
		if got := New().String(s); got != full {
			t.Fatalf("String(%q) = %q, want %q", s, got, full)
		}
	}
}
