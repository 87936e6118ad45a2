package markdown

import (
	"bytes"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	highlighting "github.com/yuin/goldmark-highlighting/v2"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"

	"github.com/perflab/perflab/collect/schema"
)

// A benchmark tool's printed result (vLLM's or SGLang's "Serving
// Benchmark Result" block) pasted into a fenced block is usually tagged
// bash, and chroma's bash lexer spends milliseconds of regular
// expressions on each one while it colours nothing meaningful in a table
// of numbers (on the 924-page corpus these blocks were most of a cold
// build). Such blocks are rendered as plain text through the same chroma
// formatter and wrapper, so the HTML keeps its structure (wrapper div,
// copy button, language class, one span per line) without the lexer.

// plainCode formats code as one text token with the formatter and style
// goldmark-highlighting uses.
type plainCode struct {
	formatter *chromahtml.Formatter
	style     *chroma.Style
}

func newPlainCode(style string, opts ...chromahtml.Option) plainCode {
	st := styles.Get(style)
	if st == nil {
		st = styles.Fallback
	}
	return plainCode{formatter: chromahtml.New(opts...), style: st}
}

// isBenchmarkOutput says n is a fenced block that goldmark-highlighting
// would lex (a known language, no attributes) and that holds a benchmark
// result block, as the importer finds them (schema.BenchmarkTextStart).
func isBenchmarkOutput(n *ast.FencedCodeBlock, source, code []byte) bool {
	lang := n.Language(source)
	if lang == nil || n.Attributes() != nil || bytes.IndexByte(n.Info.Segment.Value(source), '{') >= 0 {
		return false
	}
	return lexers.Get(string(lang)) != nil && schema.BenchmarkTextStart(string(code)) >= 0
}

// render writes code as goldmark-highlighting writes a highlighted block
// of language lang, every line one text token.
func (p plainCode) render(w util.BufWriter, lang, code []byte) error {
	c := codeContext{lang: lang}
	codeWrapper(w, c, true)
	it := chroma.Literator(chroma.Token{Type: chroma.Text, Value: string(code)})
	if err := p.formatter.Format(w, p.style, it); err != nil {
		return err
	}
	codeWrapper(w, c, false)
	return nil
}

// codeContext is the highlighting.CodeBlockContext of a block written by
// plainCode: highlighted (chroma formatted it), in language lang.
type codeContext struct{ lang []byte }

func (c codeContext) Language() ([]byte, bool)                     { return c.lang, c.lang != nil }
func (c codeContext) Highlighted() bool                            { return true }
func (c codeContext) Attributes() highlighting.ImmutableAttributes { return nil }
