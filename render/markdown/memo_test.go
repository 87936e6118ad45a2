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

// TestBenchmarkOutputPlain: a benchmark result pasted in a block tagged
// bash is not lexed: it renders exactly as goldmark-highlighting renders
// it as plain text (same wrapper, copy button, line spans), keeping the
// bash language class; shell code and an attributed block are still lexed.
func TestBenchmarkOutputPlain(t *testing.T) {
	const result = "# perflab: experiment=vllm profile=very-long\n" +
		"============ Serving Benchmark Result ============\n" +
		"Successful requests:                     984\n" +
		"Benchmark duration (s):                  48.28\n" +
		"Mean TTFT (ms):                          <12.5> & 3\n" +
		"==================================================\n"
	headless := "Successful requests:                     984\nRequest throughput (req/s):              20.38\n"
	block := func(info, code string) string { return "```" + info + "\n" + code + "```\n" }
	plain := goldmark.New(goldmark.WithExtensions(highlighting.NewHighlighting(
		highlighting.WithStyle("github"),
		highlighting.WithFormatOptions(chromahtml.WithClasses(true)),
		highlighting.WithWrapperRenderer(codeWrapper),
	)))
	convert := func(conv func(src []byte, w *bytes.Buffer) error, src string) string {
		var b bytes.Buffer
		if err := conv([]byte(src), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	reference := func(src []byte, w *bytes.Buffer) error { return plain.Convert(src, w) }
	c := New(Options{})
	ours := func(src []byte, w *bytes.Buffer) error { return c.Convert(w, src) }
	tests := []struct {
		name, src, want string
	}{
		{"result tagged bash", block("bash", result),
			strings.Replace(convert(reference, block("text", result)), "language-text", "language-bash", 1)},
		{"result without header tagged sh", block("sh", headless),
			strings.Replace(convert(reference, block("text", headless)), "language-text", "language-sh", 1)},
		{"shell code", block("bash", "echo \"$HOME\" | tee out.txt\n"), convert(reference, block("bash", "echo \"$HOME\" | tee out.txt\n"))},
		{"with attributes", block("bash {hl_lines=[2]}", result), convert(reference, block("bash {hl_lines=[2]}", result))},
		{"untagged", block("", result), convert(reference, block("", result))},
	}
	for _, tt := range tests {
		for i := 0; i < 2; i++ { // rendered, then from the memo
			if got := convert(ours, tt.src); got != tt.want {
				t.Errorf("%s (render %d):\n%s\nwant:\n%s", tt.name, i+1, got, tt.want)
			}
		}
	}
	if got := convert(ours, block("bash", result)); !strings.Contains(got, `<span class="line"><span class="cl">Mean TTFT (ms):                          &lt;12.5&gt; &amp; 3
</span></span>`) {
		t.Errorf("result block not one escaped text span a line:\n%s", got)
	}
}
