package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated flag lists in docs/")

// A generated section of a docs page: the text between its markers is
// made by gen and checked against the page; -update rewrites it.
type generatedSection struct {
	page, begin, end string
	gen              func() (string, error)
}

// docsSections lists every generated part of docs/: one "perflab CMD -h"
// block per command of commands() (so a new command without a docs page,
// or a flag changed without its page, fails the test) and bench's flag
// table from collect/benchflags.
func docsSections(t *testing.T) []generatedSection {
	var secs []generatedSection
	names := make([]string, 0, len(commands()))
	for n := range commands() {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if n == "bench" {
			continue // its flags are collect/benchflags' table, below: the same list with vLLM's defaults and groups
		}
		secs = append(secs, generatedSection{
			page:  n + ".md",
			begin: "<!-- flags:begin (generated from `perflab " + n + " -h`: go test ./cmd/perflab -run DocsFlags -update) -->\n",
			end:   "<!-- flags:end -->\n",
			gen:   func() (string, error) { return helpText(n) },
		})
	}
	secs = append(secs, generatedSection{
		page:  "bench.md",
		begin: "<!-- bench-flags:begin (generated from collect/benchflags: go test ./cmd/perflab -run DocsFlags -update) -->\n",
		end:   "<!-- bench-flags:end -->\n",
		gen: func() (string, error) {
			var b bytes.Buffer
			err := benchTable.WriteMarkdown(&b)
			return b.String(), err
		},
	})
	return secs
}

// helpText is what "perflab NAME -h" prints, fenced.
func helpText(name string) (string, error) {
	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{name, "-h"}, &out, &errb); err != nil {
		return "", err
	}
	h := strings.TrimRight(out.String()+errb.String(), "\n")
	return "```text\n$ perflab " + name + " -h\n" + h + "\n```\n", nil
}

// TestDocsFlags: each command's docs page carries its flag list as the
// command prints it, between markers; -update rewrites them (a page
// without the markers gets a "## Flags" section appended).
func TestDocsFlags(t *testing.T) {
	for _, sec := range docsSections(t) {
		path := filepath.Join("..", "..", "docs", sec.page)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v (every command has a docs page)", sec.page, err)
			continue
		}
		want, err := sec.gen()
		if err != nil {
			t.Errorf("%s: %v", sec.page, err)
			continue
		}
		s := string(data)
		i, j := strings.Index(s, sec.begin), strings.Index(s, sec.end)
		var out string
		switch {
		case i < 0 || j < i:
			if !*update {
				t.Errorf("docs/%s lacks the markers %q … %q; run go test ./cmd/perflab -run DocsFlags -update", sec.page, sec.begin, sec.end)
				continue
			}
			out = strings.TrimRight(s, "\n") + "\n\n## Flags\n\n" + sec.begin + want + sec.end
		case s[i+len(sec.begin):j] == want:
			continue
		case !*update:
			t.Errorf("docs/%s: the generated list differs from the command's; run go test ./cmd/perflab -run DocsFlags -update", sec.page)
			continue
		default:
			out = s[:i+len(sec.begin)] + want + s[j:]
		}
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDocsSite: `perflab build --content docs` renders every docs page,
// and every link between them lands on a page that was written.
func TestDocsSite(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site")
	var stdout, stderr bytes.Buffer
	args := []string{"build", "--content", filepath.Join("..", "..", "docs"), "--results", filepath.Join(t.TempDir(), "none"), "--out", out, "--no-cache"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("perflab %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("no docs pages: %v", err)
	}
	hrefRE := regexp.MustCompile(`href="([^"#]*)(#[^"]*)?"`)
	for _, p := range pages {
		name := strings.TrimSuffix(filepath.Base(p), ".md")
		html := filepath.Join(out, name, "index.html")
		if name == "index" {
			html = filepath.Join(out, "index.html")
		}
		data, err := os.ReadFile(html)
		if err != nil {
			t.Errorf("docs/%s.md was not rendered: %v", name, err)
			continue
		}
		for _, m := range hrefRE.FindAllStringSubmatch(string(data), -1) {
			h := m[1]
			if h == "" || strings.Contains(h, ":") || !strings.HasSuffix(h, ".html") {
				continue // an anchor on the page, another site, or a file of the repository outside docs/
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(html), filepath.FromSlash(h))); err != nil {
				t.Errorf("docs/%s.md links to %s, which the build did not write", name, h)
			}
		}
	}
}
