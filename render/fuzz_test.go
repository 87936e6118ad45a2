package render

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/perflab/perflab/collect/schema/campaignfile"
	"github.com/perflab/perflab/render/markdown"
	"github.com/perflab/perflab/render/site"
)

var rePageErrAt = regexp.MustCompile(`^p\.md:([0-9]+): `)

// checkPageErr fails unless every line of err names p.md and one of
// src's lines.
func checkPageErr(t *testing.T, err error, src []byte) {
	t.Helper()
	lines := bytes.Count(src, []byte("\n")) + 1
	for _, msg := range strings.Split(err.Error(), "\n") {
		if strings.HasPrefix(msg, "  ") {
			continue
		}
		m := rePageErrAt.FindStringSubmatch(msg)
		if m == nil {
			t.Fatalf("error does not name p.md:line: %q (of %v)", msg, err)
		}
		if n, _ := strconv.Atoi(m[1]); n < 1 || n > lines {
			t.Fatalf("error names line %d of a %d-line page: %v", n, lines, err)
		}
	}
}

func pageSeeds(f *testing.F) {
	for _, p := range []string{"testdata/site/content/index.md", "testdata/site/content/about.md", "testdata/site/content/demo/blocks/index.md", "testdata/site/content/demo/h100/index.md", "markdown/testdata/golden/nested.md", "markdown/testdata/golden/details.md"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("---\ntitle: \"x\"\nweight: 2\ndraft: true\n---\n# T\n"))
	f.Add([]byte("\xef\xbb\xbf---\r\ntitle: a\r\n...\r\nbody\n"))
	f.Add([]byte("---\nweight: 1.5\n---\n"))
	f.Add([]byte("!!! note \"<b>t</b>\"\n    x\n\n```perflab\nblock: raw\nexperiment: [\n```\n"))
}

// FuzzFrontMatter: an accepted front matter re-encodes and parses to the
// same value with the same body; a rejected one names p.md and a line.
func FuzzFrontMatter(f *testing.F) {
	pageSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		fm, body, lines, ok, err := site.ParseFrontMatter("p.md", src)
		if err != nil {
			checkPageErr(t, err, src)
			return
		}
		if !ok {
			if !bytes.Equal(body, src) || lines != 0 {
				t.Fatalf("no front matter, yet the body is not the page (%d lines before it)", lines)
			}
			return
		}
		if !bytes.HasSuffix(src, body) {
			t.Fatalf("body is not the end of the page")
		}
		if want := bytes.Count(src[:len(src)-len(body)], []byte("\n")); lines != want {
			t.Fatalf("%d lines before the body, counted %d", lines, want)
		}
		y, err := yaml.Marshal(&fm)
		if err != nil {
			t.Fatalf("front matter does not encode: %v", err)
		}
		again := append(append([]byte("---\n"), y...), "---\n"...)
		again = append(again, body...)
		fm2, body2, _, ok2, err := site.ParseFrontMatter("p.md", again)
		if err != nil || !ok2 {
			t.Fatalf("re-encoded front matter does not parse (ok %v): %v\n%s", ok2, err, again)
		}
		if fm2 != fm || !bytes.Equal(body2, body) {
			t.Fatalf("front matter changes through YAML: %+v, then %+v", fm, fm2)
		}
	})
}

// reTag and reAttr read the tags of the HTML (text is escaped, so every
// '<' starts one) and their attributes.
var (
	reTag  = regexp.MustCompile(`<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s=>/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)*)\s*/?>`)
	reAttr = regexp.MustCompile(`([^\s=>/]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s>]+))?`)
)

// unsafeHTML returns the first script element, event handler or script URL
// in the HTML, or "".
func unsafeHTML(h []byte) string {
	for _, m := range reTag.FindAllSubmatch(h, -1) {
		switch strings.ToLower(string(m[1])) {
		case "script", "iframe", "object", "embed", "style":
			return string(m[0])
		}
		for _, a := range reAttr.FindAllSubmatch(m[2], -1) {
			name := strings.ToLower(string(a[1]))
			val := strings.ToLower(strings.TrimSpace(strings.Trim(string(a[2]), `"'`)))
			if strings.HasPrefix(name, "on") || (name == "href" || name == "src") && (strings.HasPrefix(val, "javascript:") || strings.HasPrefix(val, "vbscript:") || strings.HasPrefix(val, "data:text")) {
				return string(m[0])
			}
		}
	}
	return ""
}

// FuzzMarkdown: pages through perflab's Markdown (admonitions, perflab
// block directives) with raw HTML off. The HTML carries no script, event
// handler or script URL, renders the same twice, and every block spec is
// located on a line of the page; a spec that does not decode gets an
// error naming p.md and a line.
func FuzzMarkdown(f *testing.F) {
	pageSeeds(f)
	conv := markdown.New(markdown.Options{})
	f.Fuzz(func(t *testing.T, src []byte) {
		_, body, before, _, err := site.ParseFrontMatter("p.md", src)
		if err != nil {
			return // FuzzFrontMatter's concern
		}
		doc := conv.Parse(body, markdown.ParseOptions{})
		lines := bytes.Count(src, []byte("\n")) + 1
		for _, b := range doc.Blocks() {
			line := before + b.Line
			if b.Line < 1 || line > lines {
				t.Fatalf("block at line %d of a %d-line page", line, lines)
			}
			var spec BlockSpec
			if err := campaignfile.DecodeStrict(b.Spec, &spec); err != nil {
				checkPageErr(t, site.YAMLError("p.md", line, b.Spec, err), src)
			}
			b.HTML = []byte("<div>block</div>")
		}
		var out, again bytes.Buffer
		if err := conv.Render(&out, doc, doc.Root); err != nil {
			t.Fatalf("render: %v", err)
		}
		if bad := unsafeHTML(out.Bytes()); bad != "" {
			t.Fatalf("unsafe HTML %q in\n%s", bad, out.Bytes())
		}
		doc2 := conv.Parse(body, markdown.ParseOptions{})
		for _, b := range doc2.Blocks() {
			b.HTML = []byte("<div>block</div>")
		}
		if err := conv.Render(&again, doc2, doc2.Root); err != nil {
			t.Fatalf("render again: %v", err)
		}
		if !bytes.Equal(out.Bytes(), again.Bytes()) {
			t.Fatalf("two renders differ:\n%s\n---\n%s", out.Bytes(), again.Bytes())
		}
	})
}
