package markdown

import (
	"bytes"
	"strings"
	"testing"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/yuin/goldmark"
	highlighting "github.com/yuin/goldmark-highlighting/v2"
)

// TestCodeMemo: a page of repeated and distinct code blocks renders as
// goldmark-highlighting alone renders it, the first time and from the
// memo, and the memo holds each distinct block once.
func TestCodeMemo(t *testing.T) {
	block := func(lang, code string) string { return "```" + lang + "\n" + code + "\n```\n\n" }
	src := block("bash", "vllm serve Qwen/Qwen3-32B --max-num-seqs 512") +
		block("bash", "vllm serve Qwen/Qwen3-32B --max-num-seqs 512") +
		block("yaml", "a: 1\nb: [2, 3]") +
		block("", "plain <text> & output") +
		block("bash", "echo \"$HOME\" | tee out.txt") +
		block("nosuchlanguage", "kept as it is")
	plain := goldmark.New(goldmark.WithExtensions(highlighting.NewHighlighting(
		highlighting.WithStyle("github"),
		highlighting.WithFormatOptions(chromahtml.WithClasses(true)),
		highlighting.WithWrapperRenderer(codeWrapper),
	)))
	var want bytes.Buffer
	if err := plain.Convert([]byte(src), &want); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(want.String(), `<span class="nb">echo</span>`) {
		t.Fatalf("reference output has no highlighted bash:\n%s", want.String())
	}
	c := New(Options{})
	for i := 0; i < 2; i++ {
		var got bytes.Buffer
		if err := c.Convert(&got, []byte(src)); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("render %d:\n%s\nwant (goldmark-highlighting alone):\n%s", i+1, got.String(), want.String())
		}
	}
	// 5 distinct blocks: two bash, yaml, plain, unknown language.
	if n := len(c.memo.html); n != 5 {
		t.Errorf("memo holds %d blocks, want 5", n)
	}
}
