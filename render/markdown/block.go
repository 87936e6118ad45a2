package markdown

import (
	"bytes"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// BlockLanguage is the info string of a fenced block that places a
// generated block: ```perflab\nblock: comparison\n```.
const BlockLanguage = "perflab"

// KindBlock is the node kind of a perflab block.
var KindBlock = ast.NewNodeKind("PerflabBlock")

// Block is a generated block placed from Markdown. The transformer fills
// Spec and Line; the page builder fills HTML before rendering.
type Block struct {
	ast.BaseBlock
	// Spec is the YAML between the fences.
	Spec []byte
	// Line is the 1-based source line of the opening fence; SpecLine the
	// line of the YAML's first line (Line+1).
	Line int
	// HTML is written verbatim by the renderer: the caller produces it
	// (from escaped templates), never the Markdown author.
	HTML []byte
}

// Kind implements ast.Node.
func (n *Block) Kind() ast.NodeKind { return KindBlock }

// Dump implements ast.Node.
func (n *Block) Dump(source []byte, level int) {
	ast.DumpHelper(n, source, level, map[string]string{"Spec": string(n.Spec)}, nil)
}

// blockTransformer swaps ```perflab fenced code blocks for Block nodes.
type blockTransformer struct{}

func (blockTransformer) Transform(doc *ast.Document, reader text.Reader, pc parser.Context) {
	src := reader.Source()
	var found []*ast.FencedCodeBlock
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if cb, ok := n.(*ast.FencedCodeBlock); ok && entering {
			if bytes.Equal(cb.Language(src), []byte(BlockLanguage)) {
				found = append(found, cb)
			}
		}
		return ast.WalkContinue, nil
	})
	for _, cb := range found {
		b := &Block{}
		var spec bytes.Buffer
		for i := 0; i < cb.Lines().Len(); i++ {
			seg := cb.Lines().At(i)
			spec.Write(seg.Value(src))
		}
		b.Spec = spec.Bytes()
		if cb.Info != nil {
			b.Line = bytes.Count(src[:cb.Info.Segment.Start], []byte("\n")) + 1
		}
		cb.Parent().ReplaceChild(cb.Parent(), cb, b)
	}
}

type blockRenderer struct{}

func (blockRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(KindBlock, func(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.Write(node.(*Block).HTML)
		}
		return ast.WalkSkipChildren, nil
	})
}

// Blocks is the goldmark extension for perflab blocks.
type Blocks struct{}

// Extend implements goldmark.Extender.
func (*Blocks) Extend(m goldmark.Markdown) {
	m.Parser().AddOptions(parser.WithASTTransformers(util.Prioritized(blockTransformer{}, prioBlockTransformer)))
	m.Renderer().AddOptions(renderer.WithNodeRenderers(util.Prioritized(blockRenderer{}, prioRenderer)))
}
