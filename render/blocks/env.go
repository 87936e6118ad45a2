package blocks

import (
	"bytes"
	"html/template"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/yuin/goldmark/ast"

	"github.com/perflab/perflab/render/charts"
	"github.com/perflab/perflab/render/inputs"
	"github.com/perflab/perflab/render/markdown"
)

// Env is what the blocks of a build share.
type Env struct {
	// Chroma highlights the commands (HTML classes, not styles).
	Chroma *chromahtml.Formatter
	// Bufs lends the buffers blocks are written into.
	Bufs *Buffers
	// Results is the results directory (the setup block names it).
	Results string
	// Extra are block types besides the built-in ones (tests: a block
	// reading a new kind of input).
	Extra map[string]Func
}

// NewCtx is the state of page p being rendered: its blocks execute t,
// take their headings' ids from ids and read what they read through in
// (which records it: part of the page's cache key, by construction).
func NewCtx(env *Env, p *Page, t *template.Template, ids *markdown.IDs, in *inputs.Reader) *Ctx {
	return &Ctx{env: env, page: p, rep: p.Report, t: t, ids: ids, in: in}
}

// Render writes the block spec asks for into w. Errors are messages
// without a position; the caller adds file:line.
func (c *Ctx) Render(w *bytes.Buffer, spec BlockSpec) error { return c.renderBlock(w, spec) }

// SetSetupProse hands the next setup block the narrative's subsections
// that follow it (SetupProse); nil for none.
func (c *Ctx) SetSetupProse(prose map[string]*ast.Heading) { c.setupProse = prose }

// SetupProse is the narrative's setup subsections from n on (setup.go).
func SetupProse(doc *markdown.Document, n ast.Node) map[string]*ast.Heading {
	return setupProse(doc, n)
}

// Charts reports whether a block of the page drew a chart (the layout
// then loads the charts' script).
func (c *Ctx) Charts() bool { return c.charts > 0 }

// In is how a block reads a file: through the page's Reader, which
// records it.
func (c *Ctx) In() *inputs.Reader { return c.in }

// ChartHTML writes chart ch as the blocks do (a figure with its title
// and caption): for pages made of charts alone (the browser tests').
func (c *Ctx) ChartHTML(w *bytes.Buffer, ch charts.Chart, title, caption string) error {
	return c.chartHTML(w, ch, title, caption)
}
