package tmplgen

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"html/template"
	"io"
	"os"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Config says what to generate.
type Config struct {
	// Package is the package clause of the generated file; PkgPath its
	// import path. Types of that package are written unqualified, and
	// every function in Funcs must be a top-level function of it.
	Package, PkgPath string
	// Entries maps the name of each template to generate a writer for
	// to the type of the data it is executed with. The dispatcher
	// (Dispatch) selects a writer by name and by that exact type.
	Entries map[string]reflect.Type
	// Funcs is the FuncMap the templates were parsed with.
	Funcs template.FuncMap
	// Header is written as the file's first comment lines (the "Code
	// generated … DO NOT EDIT." line among them).
	Header string
	// Consts are written as string constants (name → value), such as a
	// sum of the template sources the writers were generated from.
	Consts map[string]string
	// Names of what the generated code calls in Package:
	//   EscapeText(b *bytes.Buffer, s string): html/template's escaping
	//     of a string in text, RCDATA and quoted attribute values;
	//   URLInert(s string, frag bool) bool: whether every URL escaper
	//     leaves s as it is (frag: in a query or fragment);
	//   Fallback() error: the error a writer returns where html/template
	//     must execute the template instead;
	//   Dispatch: the name of the generated dispatcher, func(b
	//     *bytes.Buffer, name string, data any) (ok bool, err error).
	EscapeText, URLInert, Fallback, Dispatch string
}

// escaper names html/template puts in pipelines (html/template's funcMap).
const escPrefix = "_html_template_"

var htmlType = reflect.TypeOf(template.HTML(""))

// Generate returns the Go source of writers for cfg.Entries of t.
func Generate(t *template.Template, cfg Config) ([]byte, error) {
	g := &gen{t: t, cfg: cfg, funcs: map[fnKey]*fn{}, imports: map[string]bool{"bytes": true}}
	var names []string
	for n := range cfg.Entries {
		names = append(names, n)
	}
	sort.Strings(names)
	// Escape every entry as html/template does before its first
	// execution (the zero value of its type as data: execution errors
	// do not matter, escaping errors do).
	for _, n := range names {
		h := t.Lookup(n)
		if h == nil {
			return nil, fmt.Errorf("tmplgen: entry %q: no such template", n)
		}
		err := h.Execute(io.Discard, reflect.Zero(cfg.Entries[n]).Interface())
		var te *template.Error
		if errors.As(err, &te) {
			return nil, fmt.Errorf("tmplgen: escape %q: %w", n, err)
		}
	}
	type entry struct {
		name string
		f    *fn
	}
	var entries []entry
	var skipped []string
	for _, n := range names {
		f := g.compile(n, cfg.Entries[n])
		if f.err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %v", n, f.err))
			continue
		}
		entries = append(entries, entry{n, f})
	}

	var body bytes.Buffer
	fmt.Fprintf(&body, "// %s writes template name for data by its generated writer; ok is\n", cfg.Dispatch)
	fmt.Fprintf(&body, "// false when there is none for that name and data type.\n")
	fmt.Fprintf(&body, "func %s(b *bytes.Buffer, name string, data any) (ok bool, err error) {\n\tswitch name {\n", cfg.Dispatch)
	for _, e := range entries {
		fmt.Fprintf(&body, "\tcase %q:\n\t\tif v, ok := data.(%s); ok {\n\t\t\treturn true, %s(b, v)\n\t\t}\n", e.name, g.typeName(cfg.Entries[e.name]), e.f.goName)
	}
	body.WriteString("\t}\n\treturn false, nil\n}\n")
	for _, k := range g.order {
		f := g.funcs[k]
		if f.err != nil {
			continue
		}
		fmt.Fprintf(&body, "\n// %s writes template %q.\nfunc %s(b *bytes.Buffer, dot %s) error {\n", f.goName, k.name, f.goName, g.typeName(k.typ))
		body.Write(f.body.Bytes())
		body.WriteString("\treturn nil\n}\n")
	}

	var out bytes.Buffer
	out.WriteString(cfg.Header)
	fmt.Fprintf(&out, "\npackage %s\n\nimport (\n", cfg.Package)
	var imps []string
	for p := range g.imports {
		imps = append(imps, p)
	}
	sort.Strings(imps)
	for _, p := range imps {
		fmt.Fprintf(&out, "\t%q\n", p)
	}
	out.WriteString(")\n\n")
	var consts []string
	for k := range cfg.Consts {
		consts = append(consts, k)
	}
	sort.Strings(consts)
	for _, k := range consts {
		fmt.Fprintf(&out, "const %s = %q\n\n", k, cfg.Consts[k])
	}
	if len(skipped) > 0 {
		out.WriteString("// Templates without a generated writer (html/template executes them):\n")
		for _, s := range skipped {
			fmt.Fprintf(&out, "//   - %s\n", strings.ReplaceAll(s, "\n", " "))
		}
		out.WriteString("\n")
	}
	out.Write(body.Bytes())
	src, err := format.Source(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("tmplgen: format generated code: %w\n%s", err, out.Bytes())
	}
	return src, nil
}

type fnKey struct {
	name string
	typ  reflect.Type
}

type fn struct {
	goName string
	body   bytes.Buffer
	err    error
}

type gen struct {
	t       *template.Template
	cfg     Config
	funcs   map[fnKey]*fn
	order   []fnKey
	imports map[string]bool
	used    map[string]bool // Go function names taken
}

// compile returns the writer of template name for data of type typ,
// compiling it on first use; its err says why there is none.
func (g *gen) compile(name string, typ reflect.Type) *fn {
	k := fnKey{name, typ}
	if f, ok := g.funcs[k]; ok {
		return f
	}
	// Registered before its body is compiled: a template that calls
	// itself calls the function being written.
	f := &fn{goName: g.goName(name)}
	g.funcs[k] = f
	g.order = append(g.order, k)
	h := g.t.Lookup(name)
	switch {
	case h == nil:
		f.err = fmt.Errorf("template %q not found (a copy html/template derived for another context)", name)
	case h.Tree == nil || h.Tree.Root == nil:
	default:
		c := &fctx{g: g, w: &f.body, tree: h.Tree}
		c.dot = &binding{expr: "dot", typ: typ}
		c.vars = []varBinding{{"$", c.dot}}
		if err := c.list(h.Tree.Root); err != nil {
			f.err = fmt.Errorf("%s: %w", name, err)
		}
	}
	return f
}

// goName returns an unused Go name for template name: "setup-model" is
// tmplSetupModel.
func (g *gen) goName(name string) string {
	var b strings.Builder
	b.WriteString("tmpl")
	up := true
	for _, r := range name {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) || r > unicode.MaxASCII {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	if g.used == nil {
		g.used = map[string]bool{}
	}
	base, n := b.String(), b.String()
	for i := 2; g.used[n]; i++ {
		n = base + strconv.Itoa(i)
	}
	g.used[n] = true
	return n
}

// typeName writes t as Go source in the generated package.
func (g *gen) typeName(t reflect.Type) string {
	if t.Name() != "" {
		if t.PkgPath() == "" || t.PkgPath() == g.cfg.PkgPath {
			return t.Name()
		}
		g.imports[t.PkgPath()] = true
		return path.Base(t.PkgPath()) + "." + t.Name()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + g.typeName(t.Elem())
	case reflect.Slice:
		return "[]" + g.typeName(t.Elem())
	case reflect.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), g.typeName(t.Elem()))
	case reflect.Map:
		return "map[" + g.typeName(t.Key()) + "]" + g.typeName(t.Elem())
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return "any"
		}
	}
	return t.String()
}

// Sync keeps the generated file at path equal to src, as a package's
// TestGeneratedWriters does: with update it writes src there; otherwise
// it says, naming the command that regenerates it (hint), when the file
// differs.
func Sync(path string, src []byte, update bool, hint string) error {
	if update {
		return os.WriteFile(path, src, 0o644)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, src) {
		return fmt.Errorf("%s is out of date with templates/*.html: run %s", path, hint)
	}
	return nil
}
