package markdown

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestGolden renders every testdata/golden/*.md and compares with its
// .html. The expected structure is MkDocs Material's (python-markdown
// admonition + pymdownx.details), as checked against Debian's mkdocs in
// reference/deps.md §2; code markup is chroma's instead of Pygments'.
func TestGolden(t *testing.T) {
	conv := New(Options{Unsafe: true})
	files, err := filepath.Glob("testdata/golden/*.md")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".md")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := conv.Convert(&buf, src); err != nil {
				t.Fatal(err)
			}
			golden := strings.TrimSuffix(f, ".md") + ".html"
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("%s: got\n%s\nwant\n%s", f, buf.Bytes(), want)
			}
		})
	}
}

// TestBlocks: a ```perflab fence becomes a Block with its YAML and line;
// the renderer writes whatever HTML the caller put in, nothing else.
func TestBlocks(t *testing.T) {
	src := []byte("# T\n\ntext\n\n```perflab\nblock: chart\nmetric: total_tps\n```\n\n!!! note\n    ```perflab\n    block: runs\n    ```\n\n```yaml\nblock: not-a-block\n```\n")
	conv := New(Options{})
	doc := conv.Parse(src, ParseOptions{})
	blocks := doc.Blocks()
	if len(blocks) != 2 {
		t.Fatalf("%d blocks, want 2 (the yaml fence is not one)", len(blocks))
	}
	if string(blocks[0].Spec) != "block: chart\nmetric: total_tps\n" || blocks[0].Line != 5 {
		t.Errorf("block 0: spec %q line %d", blocks[0].Spec, blocks[0].Line)
	}
	if string(blocks[1].Spec) != "block: runs\n" || blocks[1].Line != 11 {
		t.Errorf("block 1 (nested in an admonition): spec %q line %d", blocks[1].Spec, blocks[1].Line)
	}
	blocks[0].HTML = []byte(`<div id="one"></div>`)
	blocks[1].HTML = []byte(`<div id="two"></div>`)
	var buf bytes.Buffer
	if err := conv.Render(&buf, doc, doc.Root); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{`<div id="one"></div>`, "<div class=\"admonition note\">\n<p class=\"admonition-title\">Note</p>\n<div id=\"two\"></div>", `>not-a-block<`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "metric: total_tps") {
		t.Error("a perflab block's YAML leaked into the page")
	}
}

func TestHeadingIDs(t *testing.T) {
	ids := NewIDs()
	conv := New(Options{})
	doc := conv.Parse([]byte("## 1. Choosing the Inference Engine\n\n## Conclusion\n\n## Conclusion\n\n## vLLM v0.11.0 (FP8)\n\n## !!!\n"), ParseOptions{IDs: ids})
	var buf bytes.Buffer
	if err := conv.Render(&buf, doc, doc.Root); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<h2 id="1-choosing-the-inference-engine">1. Choosing the Inference Engine<a class="headerlink" href="#1-choosing-the-inference-engine"`,
		`<h2 id="conclusion">`, `<h2 id="conclusion-1">`, `<h2 id="vllm-v0110-fp8">`, `<h2 id="section">`,
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("missing %s in\n%s", want, buf.String())
		}
	}
	// Generated headings share the page's ids.
	if got := ids.Slug("Conclusion"); got != "conclusion-2" {
		t.Errorf("Slug after two Conclusions = %q, want conclusion-2", got)
	}
}

func TestUnsafe(t *testing.T) {
	src := []byte("a <span style=\"color:red\">x</span> <script>alert(1)</script>\n")
	var safe, unsafe bytes.Buffer
	if err := New(Options{}).Convert(&safe, src); err != nil {
		t.Fatal(err)
	}
	if err := New(Options{Unsafe: true}).Convert(&unsafe, src); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(safe.String(), "<script>") || strings.Contains(safe.String(), "<span") {
		t.Errorf("default converter let raw HTML through: %s", safe.String())
	}
	if !strings.Contains(unsafe.String(), `<span style="color:red">x</span>`) {
		t.Errorf("narrative converter dropped inline HTML: %s", unsafe.String())
	}
}

func TestLinkRewrite(t *testing.T) {
	conv := New(Options{})
	doc := conv.Parse([]byte("[a](other.md) ![i](img.png)\n"), ParseOptions{Link: func(s string) string { return "/base/" + s }})
	var buf bytes.Buffer
	if err := conv.Render(&buf, doc, doc.Root); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `href="/base/other.md"`) || !strings.Contains(buf.String(), `src="/base/img.png"`) {
		t.Errorf("links not rewritten: %s", buf.String())
	}
}

// TestSlugifyASCII: slugify's byte path for ASCII gives what its rune
// path (strings.ToLower, unicode classes) gives, on every ASCII byte in
// every position and on generated headings; non-ASCII takes the rune path.
func TestSlugifyASCII(t *testing.T) {
	texts := []string{"", "Conclusion", "1. Choosing the Inference Engine", "vLLM v0.11.0 FP8", "  lead -- and\ttrail  ", "A_b-C d",
		"Experiment 0a", "Profile 3 @ concurrency 64", "<b>&amp;'\" javascript:alert(1)", "---", "_", "MiXeD CaSe 42"}
	for c := 0; c < 128; c++ {
		texts = append(texts, string(rune(c)), "a"+string(rune(c))+"b", string(rune(c))+"x "+string(rune(c)))
	}
	for _, s := range texts {
		if got, want := slugify(s), slugifyRunes(s); got != want {
			t.Errorf("slugify(%q) = %q, the rune path gives %q", s, got, want)
		}
	}
	for _, s := range []string{"Über Straße", "İstanbul", "中文 标题", "é-è"} {
		if got, want := slugify(s), slugifyRunes(s); got != want {
			t.Errorf("slugify(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestContentTabs: MkDocs Material content tabs (=== "H100" with its
// content indented four spaces) render as titled blocks, and a perflab
// block inside a tab is a block (it was an indented code block: a
// migrated page showed the block's YAML as code); a setext heading's ===
// and a === line without a quoted title are not tabs.
func TestContentTabs(t *testing.T) {
	src := []byte("# T\n\n=== \"H100\"\n\n    ```perflab\n    block: raw\n    experiment: a\n    ```\n\n===+ \"A <100>\"\n\n    Some *text*.\n\nAfter\n===\n\n=== not a tab\n")
	conv := New(Options{})
	doc := conv.Parse(src, ParseOptions{})
	blocks := doc.Blocks()
	if len(blocks) != 1 || string(blocks[0].Spec) != "block: raw\nexperiment: a\n" {
		t.Fatalf("blocks %+v, want the tab's perflab block", blocks)
	}
	blocks[0].HTML = []byte(`<div id="one"></div>`)
	var buf bytes.Buffer
	if err := conv.Render(&buf, doc, doc.Root); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"<div class=\"tabbed-block\">\n<p class=\"tabbed-title\">H100</p>\n<div id=\"one\"></div></div>",
		"<div class=\"tabbed-block\">\n<p class=\"tabbed-title\">A &lt;100&gt;</p>\n<p>Some <em>text</em>.</p>\n</div>",
		">After", "<p>=== not a tab</p>",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "experiment: a") || !strings.Contains(out, "<h1") || strings.Count(out, "<h1") != 2 {
		t.Errorf("output:\n%s", out)
	}
}
