package layout

import (
	"bytes"
	"html/template"

	"github.com/perflab/perflab/render/blocks"
)

// Generated writers for the layout's templates (layout, home, nav):
// htmlwriters_gen.go, compiled from templates/ by render/tmplgen as
// render/blocks' are for the blocks' (go generate ./render;
// TestGeneratedWriters fails while it is out of date). The writers are
// used only with the embedded templates, and only while the sum of
// those templates is the one they were generated from.

//go:generate go test -run ^TestGeneratedWriters$ -update .

// builtinMarker names an empty template that ParseTemplates adds to the
// embedded templates when the layout's generated writers were generated
// from them.
const builtinMarker = "_perflab_builtin"

// UsesGenerated reports whether t is marked for the layout's generated
// writers (ParseTemplates marks the embedded templates they were
// generated from).
func UsesGenerated(t *template.Template) bool { return t.Lookup(builtinMarker) != nil }

// execTemplate executes template name of t for data into w: by its
// generated writer when t holds the embedded templates, else (or when
// that writer hands it back) by html/template.
func execTemplate(t *template.Template, w *bytes.Buffer, name string, data any) error {
	return blocks.ExecWith(t, w, name, data, builtinMarker, execGenerated)
}

// What the generated writers call: render/blocks' helpers.
func escapeText(b *bytes.Buffer, s string) { blocks.EscapeText(b, s) }

func urlInert(s string, frag bool) bool { return blocks.URLInert(s, frag) }

func templateFallback() error { return blocks.TemplateFallback() }
