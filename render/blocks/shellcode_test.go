package blocks

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"

	"github.com/perflab/perflab/collect/schema"
)

// chromaBash is what codeHTML wrote before shellTokens: chroma's coalesced
// bash lexer through the formatter.
func chromaBash(t *testing.T, f *chromahtml.Formatter, code string) string {
	t.Helper()
	it, err := chroma.Coalesce(lexers.Get("bash")).Tokenise(nil, code)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Format(&buf, styles.Fallback, it); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// fastBash is what codeHTML writes for shellTokens' tokens: writeShellHTML.
func fastBash(toks []chroma.Token) string {
	var buf bytes.Buffer
	writeShellHTML(&buf, toks)
	return buf.String()
}

// TestShellTokensMatchChroma holds shellTokens to chroma's bash lexer: for
// the commands perflab generates and campaigns hold, and for random lines
// over the characters it takes (keywords, builtins, assignments, numbers,
// escapes and continuations mixed in), the HTML writeShellHTML writes for
// its tokens is the HTML chroma's lexer and formatter write; lines with
// anything else are left to chroma.
func TestShellTokensMatchChroma(t *testing.T) {
	f := chromahtml.New(chromahtml.WithClasses(true))
	camp := &schema.Campaign{Model: schema.CampaignModel{ID: "Qwen/Qwen3-32B"}}
	var cmds []string
	for _, p := range []schema.Profile{
		{Dataset: "random", InputLen: 1000, OutputLen: 100, NumPrompts: 500, Seed: 42},
		{Dataset: "sharegpt", DatasetPath: "ShareGPT_V3_unfiltered_cleaned_split.json", OutputLen: 200, NumPrompts: 1000, RequestRate: 2.5, MaxConcurrency: 64},
	} {
		for _, tool := range []string{"vllm bench serve", "perflab bench"} {
			cmds = append(cmds, wrapCommand(benchCommand(camp, p, tool)))
		}
	}
	cmds = append(cmds,
		wrapCommand("vllm serve Org/Model-0001 -tp 8 --max-num-seqs 512 --gpu-memory-utilization=0.92 --enable-prefix-caching --kv-cache-dtype fp8"),
		wrapCommand("VLLM_USE_V1=1 CUDA_VISIBLE_DEVICES=0,1,2,3 python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp 4 --port 30000"),
		"time vllm serve m --do-x done for=1 if 8\nset -e\\\n  x+=2 a =3 echo",
		"", "8", "do", "test ", "a\\", "x \\\n    --y 1\n")
	// Lines the fast path must leave to chroma.
	for _, c := range []string{`echo "$HOME"`, "a | b", "a; b", "# note", "x='y'", "cmd > out", "é", "a && b", "$(x)", "a\r\nb"} {
		if _, ok := shellTokens(c); ok {
			t.Errorf("shellTokens(%q) took it; it should go to chroma", c)
		}
	}
	words := []string{"vllm", "serve", "do", "done", "for", "format", "if", "fi", "test", "time", "set", "echo", "true", "export",
		"CUDA_VISIBLE_DEVICES", "Org/Model", "-tp", "--max-num-seqs", "512", "8", "0.9", "1e3", "a+b", "x_1", "@v", "50%", "a:b", "-", "--", "_", "+", "do-x", "test-1"}
	seps := []string{" ", "  ", "=", "+=", " = ", "\\\n    ", "\n", "\t", " \\\n", "\\x", "\\=", ",", ".", "/", ""}
	rng := rand.New(rand.NewPCG(1, 11))
	for n := 0; n < 3000; n++ {
		var b strings.Builder
		for k := rng.IntN(12); k >= 0; k-- {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString(seps[rng.IntN(len(seps))])
		}
		cmds = append(cmds, b.String())
	}
	for _, c := range cmds {
		toks, ok := shellTokens(c)
		if !ok {
			if !strings.HasSuffix(c, "\\") {
				t.Errorf("shellTokens(%q) declined", c)
			}
			continue
		}
		if got, want := fastBash(toks), chromaBash(t, f, c); got != want {
			t.Errorf("%q:\n got %s\nwant %s", c, got, want)
		}
	}
}

// TestCodeHTMLBash checks the whole block codeHTML writes for a command
// against chroma's lexer inside the same wrapper.
func TestCodeHTMLBash(t *testing.T) {
	f := chromahtml.New(chromahtml.WithClasses(true))
	cmd := wrapCommand("vllm serve Qwen/Qwen3-32B -tp 2 --max-num-seqs 256 --gpu-memory-utilization 0.9 --enable-chunked-prefill")
	want := `<div class="highlight language-bash"><button class="copy" type="button" title="Copy to clipboard" aria-label="Copy to clipboard">Copy</button>` + chromaBash(t, f, cmd) + "</div>\n"
	if got := string(codeHTML(f, "bash", cmd)); got != want {
		t.Errorf("codeHTML:\n got %s\nwant %s", got, want)
	}
}

// TestWriteShellHTMLMatchesFormatter holds writeShellHTML to chroma's
// formatter (with classes, as Env.Chroma) over tokens shellTokens never
// makes: markup to escape, newlines at either end and doubled, every
// token type it makes and their relatives.
func TestWriteShellHTMLMatchesFormatter(t *testing.T) {
	f := chromahtml.New(chromahtml.WithClasses(true))
	types := []chroma.TokenType{chroma.Text, chroma.Keyword, chroma.NameBuiltin, chroma.NameVariable, chroma.Operator,
		chroma.LiteralStringEscape, chroma.LiteralNumber, chroma.Comment, chroma.Error, chroma.Whitespace, chroma.KeywordReserved, chroma.LiteralNumberFloat}
	values := []string{"a", "<b>&amp;'\"</b>", "\n", "x\n", "\ny", "p\n\nq", "\n\n", "é — ü", " ", "\\\n    "}
	rng := rand.New(rand.NewPCG(2, 15))
	for n := 0; n < 2000; n++ {
		var toks []chroma.Token
		for k := rng.IntN(8); k >= 0; k-- {
			toks = append(toks, chroma.Token{Type: types[rng.IntN(len(types))], Value: values[rng.IntN(len(values))]})
		}
		var want bytes.Buffer
		if err := f.Format(&want, styles.Fallback, chroma.Literator(toks...)); err != nil {
			t.Fatal(err)
		}
		if got := fastBash(toks); got != want.String() {
			t.Fatalf("%q:\n got %s\nwant %s", toks, got, want.String())
		}
	}
}
