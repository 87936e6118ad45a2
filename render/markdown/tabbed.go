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

// Content tabs (pymdownx.tabbed, MkDocs Material): `=== "H100"` and the
// block indented four spaces below it. A lab's page puts its H100 and A100
// outputs in two tabs; without this the indented block was an indented code
// block and a migrated page showed its perflab blocks' YAML as code. Each
// tab renders as a titled block (every tab's content shown, no script).

// KindTab is the node kind of a content tab.
var KindTab = ast.NewNodeKind("Tab")

// Tab is one content tab: its title and its blocks.
type Tab struct {
	ast.BaseBlock
	Title string
}

// Kind implements ast.Node.
func (n *Tab) Kind() ast.NodeKind { return KindTab }

// Dump implements ast.Node.
func (n *Tab) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"Title": n.Title}, nil)
}

// tabLine is pymdownx.tabbed's marker: ===, an optional + (selected) and !
// (starts a new set), and the quoted title.
var tabLine = regexp.MustCompile(`^===[+!]{0,2}[ \t]+"(.*)"[ \t]*$`)

type tabParser struct{}

func (tabParser) Trigger() []byte { return []byte{'='} }

func (tabParser) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, seg := reader.PeekLine()
	m := tabLine.FindStringSubmatch(strings.TrimRight(string(line[pc.BlockOffset():]), "\r\n"))
	if m == nil {
		return nil, parser.NoChildren
	}
	reader.Advance(seg.Len() - 1)
	return &Tab{Title: m[1]}, parser.HasChildren
}

// Continue takes blank lines and lines indented four spaces or more (the
// tab's content, its indentation removed), as admonitions do.
func (tabParser) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	return continueIndented(reader)
}

func (tabParser) Close(node ast.Node, reader text.Reader, pc parser.Context) {}

func (tabParser) CanInterruptParagraph() bool { return true }

func (tabParser) CanAcceptIndentedLine() bool { return false }

// tabRenderer renders a tab as <div class="tabbed-block"><p
// class="tabbed-title">H100</p>…</div>.
type tabRenderer struct{}

func (tabRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindTab, renderTab)
}

func renderTab(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		_, _ = w.WriteString("</div>\n")
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString("<div class=\"tabbed-block\">\n<p class=\"tabbed-title\">")
	_, _ = w.Write(util.EscapeHTML([]byte(node.(*Tab).Title)))
	_, _ = w.WriteString("</p>\n")
	return ast.WalkContinue, nil
}

// Tabs is the goldmark extension for content tabs.
type Tabs struct{}

// Extend implements goldmark.Extender.
func (*Tabs) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithBlockParsers(util.Prioritized(tabParser{}, prioAdmonitionParser)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(tabRenderer{}, prioRenderer)))
}
