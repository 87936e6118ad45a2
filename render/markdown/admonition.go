package markdown

import (
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// We write our own admonition extension because no goldmark module
// implements MkDocs-Material's syntax: the ones that exist handle only
// `!!!`, keep the quotes of the title and ignore `???`/`???+`
// (reference/deps.md §2).

// KindAdmonition is the node kind of an admonition.
var KindAdmonition = ast.NewNodeKind("Admonition")

// Admonition is a `!!!` note box or a `???`/`???+` collapsible block.
type Admonition struct {
	ast.BaseBlock
	// Classes are the words after the marker ("note", "danger highlight").
	Classes []string
	// Title is the text shown; HasTitle is false for `""` (no title line).
	Title    string
	HasTitle bool
	// Collapsible is true for ??? and ???+; Open for ???+.
	Collapsible bool
	Open        bool
}

// Kind implements ast.Node.
func (n *Admonition) Kind() ast.NodeKind { return KindAdmonition }

// Dump implements ast.Node.
func (n *Admonition) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{
		"Classes": strings.Join(n.Classes, " "), "Title": n.Title,
	}, nil)
}

// admonitionLine is Python-Markdown's admonition syntax extended with
// pymdownx.details' ??? and ???+: the marker, an optional space, class
// words, and an optional quoted title. As in those extensions, `!!!` needs
// a class word and `???` needs a class word or a title.
var admonitionLine = regexp.MustCompile(`^(!!!|\?\?\?\+?) ?((?:[\w-]+(?:[ \t]+[\w-]+)*)?)(?:[ \t]*"(.*)")?[ \t]*$`)

type admonitionParser struct{}

func (admonitionParser) Trigger() []byte { return []byte{'!', '?'} }

func (admonitionParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, seg := reader.PeekLine()
	rest := strings.TrimRight(string(line[pc.BlockOffset():]), "\r\n")
	m := admonitionLine.FindStringSubmatch(rest)
	if m == nil {
		return nil, parser.NoChildren
	}
	n := &Admonition{Classes: strings.Fields(m[2])}
	hasQuoted := strings.Contains(rest[len(m[1]):], `"`)
	if len(n.Classes) == 0 && (m[1] == "!!!" || !hasQuoted) {
		return nil, parser.NoChildren
	}
	switch m[1] {
	case "???":
		n.Collapsible = true
	case "???+":
		n.Collapsible, n.Open = true, true
	}
	// m[3] is the title: absent → the capitalised first class word;
	// present but empty (`""`) → no title. A quoted title that itself
	// ends in quotes keeps them, as Python-Markdown does.
	switch {
	case hasQuoted && m[3] == "":
		n.HasTitle = false
	case hasQuoted:
		n.Title, n.HasTitle = m[3], true
	default:
		c := n.Classes[0]
		n.Title, n.HasTitle = strings.ToUpper(c[:1])+c[1:], true
	}
	reader.Advance(seg.Len() - 1)
	return n, parser.HasChildren
}

func (admonitionParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	return continueIndented(reader)
}

// continueIndented continues a block whose content is indented four
// spaces (admonitions, tabs): blank lines and lines indented that far
// belong to it, with the indentation removed; anything else closes it.
func continueIndented(reader text.Reader) parser.State {
	line, _ := reader.PeekLine()
	if util.IsBlank(line) {
		return parser.Continue | parser.HasChildren
	}
	w, _ := util.IndentWidth(line, reader.LineOffset())
	if w < 4 {
		return parser.Close
	}
	pos, pad := util.IndentPosition(line, reader.LineOffset(), 4)
	reader.AdvanceAndSetPadding(pos, pad)
	return parser.Continue | parser.HasChildren
}

func (admonitionParser) Close(node ast.Node, reader text.Reader, pc parser.Context) {}

func (admonitionParser) CanInterruptParagraph() bool { return true }

func (admonitionParser) CanAcceptIndentedLine() bool { return false }

// admonitionRenderer renders like MkDocs Material:
//
//	!!! note "T"  → <div class="admonition note"><p class="admonition-title">T</p>…</div>
//	??? note "T"  → <details class="note"><summary>T</summary>…</details>
//	???+ note "T" → <details class="note" open="open"><summary>T</summary>…</details>
type admonitionRenderer struct{}

func (admonitionRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindAdmonition, renderAdmonition)
}

func renderAdmonition(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*Admonition)
	classes := util.EscapeHTML([]byte(strings.Join(n.Classes, " ")))
	title := util.EscapeHTML([]byte(n.Title))
	if n.Collapsible {
		if !entering {
			_, _ = w.WriteString("</details>\n")
			return ast.WalkContinue, nil
		}
		_, _ = w.WriteString(`<details`)
		if len(classes) > 0 {
			_, _ = w.WriteString(` class="`)
			_, _ = w.Write(classes)
			_, _ = w.WriteString(`"`)
		}
		if n.Open {
			_, _ = w.WriteString(` open="open"`)
		}
		_, _ = w.WriteString(">\n")
		if n.HasTitle {
			_, _ = w.WriteString("<summary>")
			_, _ = w.Write(title)
			_, _ = w.WriteString("</summary>\n")
		}
		return ast.WalkContinue, nil
	}
	if !entering {
		_, _ = w.WriteString("</div>\n")
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString(`<div class="admonition `)
	_, _ = w.Write(classes)
	_, _ = w.WriteString("\">\n")
	if n.HasTitle {
		_, _ = w.WriteString(`<p class="admonition-title">`)
		_, _ = w.Write(title)
		_, _ = w.WriteString("</p>\n")
	}
	return ast.WalkContinue, nil
}

// Admonitions is the goldmark extension for MkDocs-Material admonitions
// and collapsible blocks.
type Admonitions struct{}

// Extend implements goldmark.Extender.
func (*Admonitions) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithBlockParsers(util.Prioritized(admonitionParser{}, prioAdmonitionParser)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(admonitionRenderer{}, prioRenderer)))
}
