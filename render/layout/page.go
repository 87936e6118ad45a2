package layout

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/perflab/perflab/render/blocks"
	"github.com/perflab/perflab/render/inputs"
	"github.com/perflab/perflab/render/site"

	"github.com/perflab/perflab/collect/schema/campaignfile"
	"github.com/perflab/perflab/render/markdown"
	"github.com/yuin/goldmark/ast"
	"gopkg.in/yaml.v3"
)

// Rendered is a page's content before the layout.
type Rendered struct {
	Title       string
	Description string
	Body        template.HTML
	Charts      bool
}

// linkFunc rewrites a page's link destinations so that they work from the
// page's pretty URL and under the base URL: relative links are resolved
// against the Markdown file's directory (a.md → a/), site-absolute ones
// get the base prefix. External links, fragments and links leaving
// content/ are kept.
func (s *Site) linkFunc(p *Page) func(string) string {
	root := s.root(p.URL)
	return func(dest string) string {
		if dest == "" || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "//") || HasScheme(dest) {
			return dest
		}
		pth, frag := dest, ""
		if i := strings.IndexAny(dest, "#?"); i >= 0 {
			pth, frag = dest[:i], dest[i:]
		}
		var target string
		if strings.HasPrefix(pth, "/") {
			target = path.Clean(strings.TrimPrefix(pth, "/"))
		} else {
			target = path.Clean(path.Join(path.Dir(p.Rel), pth))
			if target == ".." || strings.HasPrefix(target, "../") {
				return dest
			}
		}
		switch {
		case strings.HasSuffix(target, ".md"):
			target = site.PageURL(target)
		case target == ".":
			target = ""
		case strings.HasSuffix(pth, "/"):
			target += "/"
		}
		if target == "" || strings.HasSuffix(target, "/") {
			target = s.PageHref(target)
		}
		return root + target + frag
	}
}

var schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

// HasScheme reports whether a link names a scheme (https:, mailto:).
func HasScheme(s string) bool { return schemeRE.MatchString(s) }

// RenderBody renders a page's Markdown, its perflab blocks and, for a
// report that places no block, the generated skeleton. What the blocks
// read, they read through rd, which records it for the page's cache key.
func (s *Site) RenderBody(p *Page, t *template.Template, rd *inputs.Reader) (*Rendered, error) {
	conv := s.markdown()
	ids := markdown.NewIDs()
	body, err := p.MarkdownBody()
	if err != nil {
		return nil, err
	}
	doc := conv.Parse(body, markdown.ParseOptions{IDs: ids, Link: s.linkFunc(p)})
	ctx := blocks.NewCtx(s.env, p, t, ids, rd)
	out := &Rendered{Title: p.FrontMatter.Title, Description: p.FrontMatter.Description}

	// The first heading titles the page when nothing else does; a level-1
	// heading is taken out of the body since the layout prints the title.
	var h1Text string
	if h := firstHeading(doc.Root); h != nil {
		h1Text = doc.HeadingText(h)
		if h.Level == 1 {
			h.Parent().RemoveChild(h.Parent(), h)
		}
	}
	if out.Title == "" && p.Report != nil {
		if p.Report.Campaign.Title == "" && h1Text != "" {
			out.Title = h1Text
		} else {
			out.Title = p.Report.Title()
		}
	}
	if out.Title == "" {
		out.Title = h1Text
	}
	if out.Title == "" {
		out.Title = site.TitleFromPath(p.Rel)
	}

	specs := doc.Blocks()
	bb := s.Bufs.Get()
	defer s.Bufs.Put(bb)
	for _, b := range specs {
		line := p.BodyLine + b.Line
		var spec BlockSpec
		if err := campaignfile.DecodeStrict(b.Spec, &spec); err != nil {
			return nil, site.YAMLError(p.Src, line, b.Spec, err)
		}
		ctx.SetSetupProse(nil)
		if spec.Block == "setup" {
			ctx.SetSetupProse(blocks.SetupProse(doc, b.NextSibling()))
		}
		bb.Reset()
		if err := ctx.Render(bb, spec); err != nil {
			// Point at the field at fault when the message names one (the
			// fence's line said where the block starts, not which of its
			// lines is wrong).
			if m := fieldRE.FindStringSubmatch(err.Error()); m != nil {
				if n := keyLine(b.Spec, m[1]); n > 0 {
					line += n
				}
			}
			return nil, fmt.Errorf("%s:%d: %w", p.Src, line, err)
		}
		b.HTML = bytes.Clone(bb.Bytes())
	}
	buf := s.Bufs.Get()
	defer s.Bufs.Put(buf)
	blocks.WriteStaleWarning(buf, p.Report)
	blocks.WriteRedefinedWarning(buf, p.Report) // runs measured under an older definition (render/site's runs.go)
	blocks.WriteCarriedNote(buf, p.Report)      // runs carried from earlier rounds (render/site's carried.go)
	if p.Report != nil && len(specs) == 0 {
		if err := blocks.Skeleton(buf, ctx, conv, doc); err != nil {
			return nil, fmt.Errorf("%s: %w", p.Src, err)
		}
	} else if err := conv.Render(buf, doc, doc.Root); err != nil {
		return nil, fmt.Errorf("%s: render: %w", p.Src, err)
	}
	out.Body = template.HTML(buf.String())
	out.Charts = ctx.Charts()
	return out, nil
}

// fieldRE finds the field a block error is about ("block raw: field
// profile: unknown profile …").
var fieldRE = regexp.MustCompile(`(?:^|: )field (\w+):`)

// keyLine returns the 1-based line of the top-level key in a block's YAML,
// 0 when it is not there.
func keyLine(spec []byte, key string) int {
	var doc yaml.Node
	if yaml.Unmarshal(spec, &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return 0
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i].Line
		}
	}
	return 0
}

func firstHeading(root ast.Node) *ast.Heading {
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			return h
		}
	}
	return nil
}

// tocEntry is one line of the table of contents.
type tocEntry struct {
	Level int
	ID    string
	Text  string
}

// tableOfContents lists the h2 and h3 headings of a rendered body (our
// own markup: <hN id="…">text<a class="headerlink" …>).
func tableOfContents(body string) []tocEntry {
	var out []tocEntry
	for i := 0; ; {
		j := strings.Index(body[i:], "<h")
		if j < 0 {
			return out
		}
		i += j + 2
		if i+6 > len(body) || (body[i] != '2' && body[i] != '3') || !strings.HasPrefix(body[i+1:], ` id="`) {
			continue
		}
		level := int(body[i] - '0')
		rest := body[i+6:]
		q := strings.IndexByte(rest, '"')
		if q < 0 || q+2 > len(rest) {
			return out
		}
		id := rest[:q]
		end := strings.Index(rest[q+2:], `<a class="headerlink"`)
		if end < 0 {
			continue
		}
		text := StripTags(rest[q+2 : q+2+end])
		out = append(out, tocEntry{Level: level, ID: id, Text: strings.TrimSpace(html.UnescapeString(text))})
		i += 6 + q + 2 + end
	}
}

// StripTags removes HTML tags.
func StripTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '<':
			in = true
		case c == '>' && in:
			in = false
		case !in:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// PlainText extracts searchable text from a body: no tags, no <pre> or
// <script> content, whitespace collapsed, at most limit bytes (cut on a
// rune boundary). A linear scan: regular expressions over whole pages
// were a third of the build time.
func PlainText(body string, limit int) string {
	var b strings.Builder
	b.Grow(min(limit, len(body)) + 4) // growing by doubling was 64 MB of a 1,000-report build
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
	if !utf8.ValidString(t) {
		// Taking "¶" out can join the bytes around it into a rune
		// (a space, even) where they were invalid: as ever, in steps.
		return cutText(strings.Join(strings.Fields(strings.ReplaceAll(t, "¶", "")), " "), limit)
	}
	return cutText(fields(t, limit), limit)
}

// fields is strings.Join(strings.Fields(strings.ReplaceAll(t, "¶", "")),
// " ") of valid UTF-8 in one pass, done once it has more than limit bytes
// (cutText needs no more).
func fields(t string, limit int) string {
	out := make([]byte, 0, min(len(t), limit+1))
	space := false // a space is due before the next field
	for i := 0; i < len(t) && len(out) <= limit; {
		c := t[i]
		n := 1
		if c < utf8.RuneSelf {
			if asciiSpace[c] {
				space = len(out) > 0
				i++
				continue
			}
			for i+n < len(t) && t[i+n] < utf8.RuneSelf && !asciiSpace[t[i+n]] {
				n++ // the rest of an ASCII word
			}
		} else {
			var r rune
			r, n = utf8.DecodeRuneInString(t[i:])
			if r == '¶' {
				i += n
				continue
			}
			if unicode.IsSpace(r) {
				space = len(out) > 0
				i += n
				continue
			}
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = append(out, t[i:i+n]...)
		i += n
	}
	return string(out)
}

// asciiSpace are the ASCII bytes strings.Fields splits at.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// cutText cuts t to at most limit bytes: a rune cut in two goes, and so
// does the last whole one when it has more than one byte.
func cutText(t string, limit int) string {
	if len(t) > limit {
		t = t[:limit]
		for len(t) > 0 && !utf8.RuneStart(t[len(t)-1]) {
			t = t[:len(t)-1]
		}
		if len(t) > 0 && t[len(t)-1] >= 0x80 {
			t = t[:len(t)-1] // the lead byte of a cut rune
		}
	}
	return t
}
