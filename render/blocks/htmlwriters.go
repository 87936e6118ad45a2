package blocks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"sort"
	"strings"
)

// Generated writers (this package's: the blocks' templates; render has
// its own for the layout's, through the helpers exported here).
// html/template calls a reflective escaper per action,
// and executing the templates was the largest part of rendering the
// 1,000-report site. htmlwriters_gen.go holds a Go function per template
// that writes exactly the bytes html/template writes for it: it is
// compiled from the escaped templates of templates/ by render/tmplgen
// (go generate; TestGeneratedWriters fails while it is out of date), so
// the templates stay the only source of the HTML. The writers are used
// only with the embedded templates, and only while the sum of those
// templates is the one they were generated from; a template directory
// (Options.TemplatesDir) is always executed by html/template.

//go:generate go test -run ^TestGeneratedWriters$ -update .

// builtinMarker names an empty template that MarkGenerated adds to the
// embedded templates when this package's generated writers were
// generated from them.
const builtinMarker = "_perflab_builtin_blocks"

// MarkGenerated tells t, parsed from the embedded templates whose sum
// (TemplatesSum) is sum, that this package's generated writers may
// write its blocks: only when they were generated from those templates.
func MarkGenerated(t *template.Template, sum string) error {
	if sum != generatedTemplatesSum {
		return nil
	}
	_, err := t.New(builtinMarker).Parse("")
	return err
}

// UsesGenerated reports whether t is marked for the blocks' generated
// writers (MarkGenerated).
func UsesGenerated(t *template.Template) bool { return t.Lookup(builtinMarker) != nil }

// TemplateFuncs are the functions the templates call (templateFuncs).
func TemplateFuncs() template.FuncMap { return templateFuncs }

// TemplatesSum is templatesSum, for the generated writers of another
// package.
func TemplatesSum(fsys fs.FS) (string, error) { return templatesSum(fsys) }

// EscapeText, URLInert and TemplateFallback are escapeText, urlInert and
// templateFallback, for the generated writers of another package.
func EscapeText(b *bytes.Buffer, s string) { escapeText(b, s) }

func URLInert(s string, frag bool) bool { return urlInert(s, frag) }

func TemplateFallback() error { return templateFallback() }

// WriteGenerated is writeGenerated, for another package's writers (gen).
func WriteGenerated(w *bytes.Buffer, name string, data any, gen func(*bytes.Buffer, string, any) (bool, error)) (ok bool, err error) {
	return writeGenerated(w, name, data, gen)
}

// ExecWith executes template name of t for data into w as execTemplate
// does, for another package: by its generated writer gen when t carries
// that package's marker, else (or when gen hands it back) by
// html/template.
func ExecWith(t *template.Template, w *bytes.Buffer, name string, data any, marker string, gen func(*bytes.Buffer, string, any) (bool, error)) error {
	if t.Lookup(marker) != nil {
		n := w.Len()
		if ok, err := writeGenerated(w, name, data, gen); ok && err == nil {
			return nil
		}
		w.Truncate(n)
	}
	return t.ExecuteTemplate(w, name, data)
}

// templateFuncs are the functions the templates call: top-level functions
// of this package, so that the generated writers call them directly.
var templateFuncs = template.FuncMap{
	"join": tmplJoin,
	"add":  tmplAdd,
	"gpus": gpuCount,
}

func tmplJoin(s []string, sep string) string { return strings.Join(s, sep) }

func tmplAdd(a, b int) int { return a + b }

// templatesSum is the sum of the *.html files of fsys, names and
// contents: what the generated writers record as their source.
func templatesSum(fsys fs.FS) (string, error) {
	names, err := fs.Glob(fsys, "*.html")
	if err != nil {
		return "", err
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, err := fs.ReadFile(fsys, n)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", n, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// errFallback is what a generated writer returns where html/template
// must execute the template instead: a value in a context it does not
// escape itself (a script, or a URL that an escaper would change).
var errFallback = errors.New("render: generated writer: executed by html/template")

func templateFallback() error { return errFallback }

// execTemplate executes template name of t for data into w: by its
// generated writer when t holds the embedded templates, else (or when
// that writer hands it back) by html/template.
func execTemplate(t *template.Template, w *bytes.Buffer, name string, data any) error {
	return ExecWith(t, w, name, data, builtinMarker, execGenerated)
}

// writeGenerated runs the generated writer of name for data; a panic
// (a nil pointer html/template reports as an error) is an error.
func writeGenerated(w *bytes.Buffer, name string, data any, execGenerated func(*bytes.Buffer, string, any) (bool, error)) (ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			ok, err = true, fmt.Errorf("render: generated writer %s: %v", name, r)
		}
	}()
	return execGenerated(w, name, data)
}

// urlInert reports whether every escaper html/template applies to a URL
// value (filter, normaliser, and with frag the query/fragment escaper)
// leaves s as it is: ASCII letters, digits, "-._~", and "/" outside a
// fragment. With no ":" no scheme can be named.
func urlInert(s string, frag bool) bool {
	for i := 0; i < len(s); i++ {
		switch urlInertBytes[s[i]] {
		case 0:
			return false
		case 2:
			if frag {
				return false
			}
		}
	}
	return true
}

// urlInertBytes marks the bytes urlInert accepts: 1 anywhere, 2 outside
// a fragment ("/"). A table lookup per byte: every link of a page's
// navigation passes through urlInert.
var urlInertBytes = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~':
			t[c] = 1
		}
	}
	t['/'] = 2
	return t
}()

// escapeText appends s escaped as html/template escapes a string in text,
// RCDATA and quoted attribute values: its replacement table (NUL, ", &,
// ', +, <, >), and nothing else.
func escapeText(b *bytes.Buffer, s string) { escapeWith(b, s, &attrEscapes) }

// htmlEscape appends s escaped as template.HTMLEscapeString escapes it
// (NUL, ", &, ', <, >: no "+").
func htmlEscape(b *bytes.Buffer, s string) { escapeWith(b, s, &htmlEscapes) }

// escapeTable maps a byte to its replacement's index in escapeRepl, 0
// for a byte written as it is: a table lookup per byte, where a switch
// over seven cases was a tenth of rendering a report (raw outputs are
// kilobytes with nothing to escape).
type escapeTable [256]uint8

var escapeRepl = [...]string{1: "\uFFFD", 2: "&#34;", 3: "&amp;", 4: "&#39;", 5: "&#43;", 6: "&lt;", 7: "&gt;"}

var htmlEscapes = escapeTable{0: 1, '"': 2, '&': 3, '\'': 4, '<': 6, '>': 7}

var attrEscapes = func() escapeTable {
	t := htmlEscapes
	t['+'] = 5
	return t
}()

func escapeWith(b *bytes.Buffer, s string, t *escapeTable) {
	last := 0
	for i := 0; i < len(s); i++ {
		k := t[s[i]]
		if k == 0 {
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(escapeRepl[k])
		last = i + 1
	}
	b.WriteString(s[last:])
}
