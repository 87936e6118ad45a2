package layout

import (
	"html"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/perflab/perflab/render/site"
)

func TestTableOfContentsAndPlainText(t *testing.T) {
	body := `<h2 id="a">A &amp; B<a class="headerlink" href="#a">¶</a></h2><p>Hello <b>world</b></p>` +
		`<h3 id="b-1"><code>x</code> y<a class="headerlink" href="#b-1">¶</a></h3><pre><code>skip me</code></pre><h4 id="c">C<a class="headerlink" href="#c">¶</a></h4>` +
		`<script>nor me</script><p>tail  text é</p>`
	toc := tableOfContents(body)
	if len(toc) != 2 || toc[0] != (tocEntry{2, "a", "A & B"}) || toc[1] != (tocEntry{3, "b-1", "x y"}) {
		t.Errorf("toc = %+v", toc)
	}
	if got := PlainText(body, 1000); got != "A & B Hello world x y C tail text é" {
		t.Errorf("plainText = %q", got)
	}
	if got := PlainText("<p>aé</p>", 2); got != "a" {
		t.Errorf("plainText cut inside a rune = %q, want \"a\"", got)
	}
}

// TestLinkFunc: MkDocs-style relative links keep working from pretty URLs
// and under a base URL.
func TestLinkFunc(t *testing.T) {
	s := &Site{opt: Options{BaseURL: "/perflab/"}}
	tests := []struct {
		page, dest, want string
	}{
		// A page at qwen3-32b/h100.md renders to qwen3-32b/h100/: a sibling
		// page link must not stay relative (it would gain a level).
		{"qwen3-32b/h100.md", "a100.md", "/perflab/qwen3-32b/a100/"},
		{"qwen3-32b/h100.md", "../gpt-oss-20b/a100.md#1-choosing-the-inference-engine", "/perflab/gpt-oss-20b/a100/#1-choosing-the-inference-engine"},
		{"qwen3-32b/h100/index.md", "../../about.md", "/perflab/about/"},
		{"qwen3-32b/h100/index.md", "chart.png", "/perflab/qwen3-32b/h100/chart.png"},
		{"qwen3-32b/h100/index.md", "sub/", "/perflab/qwen3-32b/h100/sub/"},
		{"about.md", "index.md", "/perflab/"},
		{"about.md", "/abs/path", "/perflab/abs/path"},
		// Kept: fragments, external links, links leaving content/.
		{"about.md", "#local", "#local"},
		{"about.md", "https://example.com/x.md", "https://example.com/x.md"},
		{"about.md", "mailto:a@b.c", "mailto:a@b.c"},
		{"qwen3-32b/h100.md", "../../assets/performance-lab/qwen3-32b-h100.png", "../../assets/performance-lab/qwen3-32b-h100.png"},
	}
	// The default base: links relative to the page, index.html spelled out.
	rel := &Site{opt: Options{BaseURL: "/"}}
	for _, tt := range []struct{ page, dest, want string }{
		{"qwen3-32b/h100.md", "a100.md", "../../qwen3-32b/a100/index.html"},
		{"qwen3-32b/h100/index.md", "../../about.md#x", "../../about/index.html#x"},
		{"qwen3-32b/h100/index.md", "chart.png", "../../qwen3-32b/h100/chart.png"},
		{"about.md", "/abs/path", "../abs/path"},
		{"index.md", "about.md", "about/index.html"},
	} {
		if got := rel.linkFunc(&Page{Rel: tt.page, URL: site.PageURL(tt.page)})(tt.dest); got != tt.want {
			t.Errorf("relative: %s: %q → %q, want %q", tt.page, tt.dest, got, tt.want)
		}
	}
	for _, tt := range tests {
		got := s.linkFunc(&Page{Rel: tt.page, URL: site.PageURL(tt.page)})(tt.dest)
		if got != tt.want {
			t.Errorf("%s: %q → %q, want %q", tt.page, tt.dest, got, tt.want)
		}
	}
}

// TestPlainTextFields: plainText's one-pass whitespace collapsing (fields)
// gives what the Join(Fields(ReplaceAll(…, "¶", ""))) it replaced gives,
// cut at every limit: Unicode spaces, entities for them, pilcrows,
// multi-byte runes at the cut, invalid UTF-8 (which takes the old way).
func TestPlainTextFields(t *testing.T) {
	old := func(s string, limit int) string {
		return cutText(strings.Join(strings.Fields(strings.ReplaceAll(s, "¶", "")), " "), limit)
	}
	texts := []string{
		"", " ", "¶", "a¶b", "a ¶ b", " lead and trail ", "tabs\tand\nnewlines\r\v\fx",
		"nbsp\u00a0here nel\u0085there em\u2003space ideo\u3000space", "é è ü — 中文 😀 ¶¶ x",
		"¶ ¶ ¶", "a\u00a0\u00a0b", "\u2028line\u2029para", "x\xe2¶\x80\x83y", "bad\xffutf8 ¶ z", "\xc2",
	}
	for _, s := range texts {
		for limit := 0; limit <= len(s)+2; limit++ {
			if got, want := cutText(fields(s, limit), limit), old(s, limit); utf8.ValidString(s) && got != want {
				t.Errorf("fields(%q) cut at %d = %q, want %q", s, limit, got, want)
			}
			body := "<p>" + s + "</p><h2>" + s + "<a>¶</a></h2>&nbsp;&#x2003;<pre>" + s + "</pre>" + s
			if got, want := PlainText(body, limit), plainTextOld(body, limit); got != want {
				t.Errorf("PlainText(%q, %d) = %q, want %q", body, limit, got, want)
			}
		}
	}
}

// plainTextOld is plainText before fields: the reference.
func plainTextOld(body string, limit int) string {
	var b strings.Builder
	space := true
	for i := 0; i < len(body) && b.Len() < limit; {
		c := body[i]
		if c == '<' {
			skipped := false
			for _, tag := range []string{"pre", "script"} {
				if strings.HasPrefix(body[i+1:], tag) {
					end := strings.Index(body[i:], "</"+tag+">")
					if end < 0 {
						i = len(body)
					} else {
						i += end + len(tag) + 3
					}
					skipped = true
					break
				}
			}
			if !skipped {
				end := strings.IndexByte(body[i:], '>')
				if end < 0 {
					break
				}
				i += end + 1
			}
			if !space {
				b.WriteByte(' ')
				space = true
			}
			continue
		}
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			if !space {
				b.WriteByte(' ')
				space = true
			}
			i++
			continue
		}
		j := i
		for j < len(body) && body[j] != '<' && body[j] != ' ' && body[j] != '\n' && body[j] != '\t' && body[j] != '\r' {
			j++
		}
		b.WriteString(body[i:j])
		space = false
		i = j
	}
	t := html.UnescapeString(b.String())
	t = strings.Join(strings.Fields(strings.ReplaceAll(t, "¶", "")), " ")
	if len(t) > limit {
		t = t[:limit]
		for len(t) > 0 && !utf8.RuneStart(t[len(t)-1]) {
			t = t[:len(t)-1]
		}
		if len(t) > 0 && t[len(t)-1] >= 0x80 {
			t = t[:len(t)-1]
		}
	}
	return t
}
