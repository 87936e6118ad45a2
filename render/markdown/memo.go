package markdown

import (
	"bufio"
	"bytes"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// Highlighting a code block with chroma costs milliseconds (the bash
// lexer's regular expressions took three quarters of a 924-page build),
// and labs repeat the same serving commands and scripts on page after
// page. codeMemo renders each distinct fenced block (its info string and
// text) once per Converter and replays the HTML for the others. What
// goldmark-highlighting writes depends on nothing else, so the output is
// the same with or without the memo.
type codeMemo struct {
	render renderer.NodeRendererFunc // goldmark-highlighting's
	plain  plainCode

	mu    sync.Mutex
	html  map[string][]byte
	bytes int // held in html, bounded by memoLimit
}

// memoLimit bounds the memo's size; blocks past it are rendered each time.
const memoLimit = 64 << 20

// newCodeMemo wraps the fenced code renderer of r.
func newCodeMemo(r renderer.NodeRenderer, plain plainCode) *codeMemo {
	m := &codeMemo{html: map[string][]byte{}, plain: plain}
	r.RegisterFuncs(funcCatcher(func(k ast.NodeKind, f renderer.NodeRendererFunc) {
		if k == ast.KindFencedCodeBlock {
			m.render = f
		}
	}))
	return m
}

type funcCatcher func(ast.NodeKind, renderer.NodeRendererFunc)

func (c funcCatcher) Register(k ast.NodeKind, f renderer.NodeRendererFunc) { c(k, f) }

// RegisterFuncs implements renderer.NodeRenderer.
func (m *codeMemo) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, m.renderFencedCodeBlock)
}

func (m *codeMemo) renderFencedCodeBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.FencedCodeBlock)
	if !entering || n.Attributes() != nil {
		return m.render(w, source, node, entering)
	}
	var key bytes.Buffer
	if n.Info != nil {
		key.Write(n.Info.Segment.Value(source))
	}
	key.WriteByte(0)
	textStart := key.Len()
	for i := 0; i < n.Lines().Len(); i++ {
		line := n.Lines().At(i)
		key.Write(line.Value(source))
	}
	m.mu.Lock()
	html, ok := m.html[key.String()]
	m.mu.Unlock()
	if ok {
		_, err := w.Write(html)
		return ast.WalkContinue, err
	}
	var buf bytes.Buffer
	bw := bufio.NewWriter(&buf)
	var st ast.WalkStatus
	var err error
	if code := key.Bytes()[textStart:]; isBenchmarkOutput(n, source, code) {
		st, err = ast.WalkContinue, m.plain.render(bw, n.Language(source), code)
	} else {
		st, err = m.render(bw, source, node, entering)
	}
	if err != nil {
		return st, err
	}
	if err := bw.Flush(); err != nil {
		return st, err
	}
	m.mu.Lock()
	if m.bytes+key.Len()+buf.Len() <= memoLimit {
		m.html[key.String()] = buf.Bytes()
		m.bytes += key.Len() + buf.Len()
	}
	m.mu.Unlock()
	_, err = w.Write(buf.Bytes())
	return st, err
}
