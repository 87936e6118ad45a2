package markdown

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/yuin/goldmark"
	highlighting "github.com/yuin/goldmark-highlighting/v2"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Priorities of our parsers, transformers and renderers. goldmark sorts
// them in ascending order (lower runs first) and its own HTML renderer sits
// at 1000, so every renderer here overrides the default for its node kind.
const (
	prioAdmonitionParser = 150 // before the paragraph and list parsers (which are 300+)
	prioBlockTransformer = 100
	prioLinkTransformer  = 200
	prioRenderer         = 100 // before goldmark-highlighting's 200
	prioCodeRenderer     = 200 // goldmark-highlighting's, through codeMemo
)

// Options configure a Converter. The zero value renders narrative Markdown
// with raw HTML escaped.
type Options struct {
	// Unsafe lets raw HTML in the Markdown through (narrative pages need it
	// for GPUStack's `<span style=…>` and `<br>` in tables). Generated
	// content never goes through Markdown, so benchmark outputs stay escaped.
	Unsafe bool
	// ChromaStyle names the chroma style for code; only the CSS depends on
	// it since classes are emitted (default "github").
	ChromaStyle string
}

// Converter parses and renders Markdown. It is safe for concurrent use.
type Converter struct {
	md   goldmark.Markdown
	memo *codeMemo
}

// New returns a Converter with perflab's extension list.
func New(opt Options) *Converter {
	var htmlOpts []renderer.Option
	if opt.Unsafe {
		htmlOpts = append(htmlOpts, html.WithUnsafe())
	}
	style := opt.ChromaStyle
	if style == "" {
		style = "github"
	}
	formatOpts := []chromahtml.Option{chromahtml.WithClasses(true)}
	memo := newCodeMemo(highlighting.NewHTMLRenderer(
		highlighting.WithStyle(style),
		highlighting.WithFormatOptions(formatOpts...),
		highlighting.WithWrapperRenderer(codeWrapper),
	), newPlainCode(style, formatOpts...))
	md := goldmark.New(
		goldmark.WithExtensions(
			extension.GFM,
			&Admonitions{},
			&Tabs{},
			&Blocks{},
		),
		goldmark.WithParserOptions(
			parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(linkTransformer{}, prioLinkTransformer)),
		),
		goldmark.WithRendererOptions(htmlOpts...),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(headingRenderer{}, prioRenderer))),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(memo, prioCodeRenderer))),
	)
	return &Converter{md: md, memo: memo}
}

// codeWrapper puts every code block in a container with a copy button
// (site.js wires the button). Blocks chroma did not highlight get a plain
// <pre><code>, since goldmark-highlighting leaves that to the wrapper.
func codeWrapper(w util.BufWriter, c highlighting.CodeBlockContext, entering bool) {
	if entering {
		lang, _ := c.Language()
		_, _ = w.WriteString(`<div class="highlight`)
		if len(lang) > 0 {
			_, _ = w.WriteString(` language-`)
			_, _ = w.Write(util.EscapeHTML(lang))
		}
		_, _ = w.WriteString(`"><button class="copy" type="button" title="Copy to clipboard" aria-label="Copy to clipboard">Copy</button>`)
		if !c.Highlighted() {
			_, _ = w.WriteString(`<pre class="chroma"><code>`)
		}
		return
	}
	if !c.Highlighted() {
		_, _ = w.WriteString(`</code></pre>`)
	}
	_, _ = w.WriteString("</div>\n")
}

// ParseOptions tie one parse to its page.
type ParseOptions struct {
	// IDs generates heading ids; pass the page's IDs so that generated
	// headings and narrative headings never collide. Nil: a fresh set.
	IDs *IDs
	// Link, when set, rewrites every link and image destination
	// (relative .md links to pretty URLs, base-URL prefixes).
	Link func(dest string) string
}

// Document is a parsed Markdown source.
type Document struct {
	Source []byte
	Root   ast.Node
}

// Parse parses src.
func (c *Converter) Parse(src []byte, opt ParseOptions) *Document {
	ids := opt.IDs
	if ids == nil {
		ids = NewIDs()
	}
	pc := parser.NewContext(parser.WithIDs(ids))
	if opt.Link != nil {
		pc.Set(linkKey, opt.Link)
	}
	root := c.md.Parser().Parse(text.NewReader(src), parser.WithContext(pc))
	return &Document{Source: src, Root: root}
}

// Render writes the HTML of n (a Document's root or any node in it).
func (c *Converter) Render(w io.Writer, d *Document, n ast.Node) error {
	return c.md.Renderer().Render(w, d.Source, n)
}

// Convert parses and renders src in one step (pages with no perflab blocks,
// tests).
func (c *Converter) Convert(w io.Writer, src []byte) error {
	d := c.Parse(src, ParseOptions{})
	return c.Render(w, d, d.Root)
}

// Blocks returns the document's perflab blocks in source order.
func (d *Document) Blocks() []*Block {
	var out []*Block
	_ = ast.Walk(d.Root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if b, ok := n.(*Block); ok && entering {
			out = append(out, b)
		}
		return ast.WalkContinue, nil
	})
	return out
}

// LineOf returns the 1-based line of byte offset off in the source.
func (d *Document) LineOf(off int) int {
	if off > len(d.Source) {
		off = len(d.Source)
	}
	return bytes.Count(d.Source[:off], []byte("\n")) + 1
}

// HeadingText returns the plain text of a heading.
func (d *Document) HeadingText(h *ast.Heading) string {
	var b strings.Builder
	_ = ast.Walk(h, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := n.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(d.Source))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.CodeSpan:
			// Its children are Text nodes; walked below.
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}

// IDs generates deterministic heading ids: a slug of the heading text
// (lowercase letters and digits, words joined by '-', as MkDocs' toc
// does), made unique on the page with a -1, -2, … suffix. It implements
// goldmark's parser.IDs.
type IDs struct {
	used map[string]bool
}

// NewIDs returns an empty id set.
func NewIDs() *IDs { return &IDs{used: map[string]bool{}} }

// Slug makes a unique id from text and reserves it.
func (s *IDs) Slug(text string) string { return s.slug(text) }

// Generate implements parser.IDs.
func (s *IDs) Generate(value []byte, kind ast.NodeKind) []byte {
	return []byte(s.slug(string(value)))
}

func (s *IDs) slug(text string) string {
	base := slugify(text)
	if base == "" {
		base = "section"
	}
	id := base
	for i := 1; s.used[id]; i++ {
		id = base + "-" + strconv.Itoa(i)
	}
	s.used[id] = true
	return id
}

// Put implements parser.IDs (an explicit {#id} attribute).
func (s *IDs) Put(value []byte) { s.used[string(value)] = true }

func slugify(s string) string {
	// ASCII (every heading a report generates) in one pass over bytes;
	// anything else as below.
	b := make([]byte, 0, len(s))
	dash := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= utf8.RuneSelf:
			return slugifyRunes(s)
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
			fallthrough
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_':
			if dash && len(b) > 0 {
				b = append(b, '-')
			}
			dash = false
			b = append(b, c)
		case c == ' ' || c == '-' || c == '\t':
			dash = true
		}
	}
	return string(b)
}

func slugifyRunes(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '\t':
			dash = true
		default:
			// Punctuation is dropped without separating words ("v0.11.0" → "v0110"),
			// as Python-Markdown's slugify does.
		}
	}
	return b.String()
}

// headingRenderer renders headings with their id and a permalink, like
// MkDocs' toc(permalink=true): <h2 id="x">Text<a class="headerlink" href="#x">¶</a></h2>.
type headingRenderer struct{}

func (headingRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHeading, renderHeading)
}

func renderHeading(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Heading)
	if entering {
		_, _ = fmt.Fprintf(w, "<h%d", n.Level)
		if n.Attributes() != nil {
			html.RenderAttributes(w, node, html.HeadingAttributeFilter)
		}
		_ = w.WriteByte('>')
		return ast.WalkContinue, nil
	}
	if id, ok := n.AttributeString("id"); ok {
		if b, ok := id.([]byte); ok {
			_, _ = w.WriteString(`<a class="headerlink" href="#`)
			_, _ = w.Write(util.EscapeHTML(b))
			_, _ = w.WriteString(`" title="Permanent link">¶</a>`)
		}
	}
	_, _ = fmt.Fprintf(w, "</h%d>\n", n.Level)
	return ast.WalkContinue, nil
}

// linkKey carries ParseOptions.Link into the transformer.
var linkKey = parser.NewContextKey()

// linkTransformer rewrites link and image destinations with the page's
// Link function.
type linkTransformer struct{}

func (linkTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	f, ok := pc.Get(linkKey).(func(string) string)
	if !ok || f == nil {
		return
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch l := n.(type) {
		case *ast.Link:
			l.Destination = []byte(f(string(l.Destination)))
		case *ast.Image:
			l.Destination = []byte(f(string(l.Destination)))
		}
		return ast.WalkContinue, nil
	})
}
