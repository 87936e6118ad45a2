package tmplgen

import (
	"bytes"
	"errors"
	"fmt"
	"go/format"
	"html/template"
	"io"
	"path"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"text/template/parse"
	"unicode"
	"unicode/utf8"
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

// binding is a value the template names: dot or a variable.
type binding struct {
	expr string
	typ  reflect.Type
	used bool
}

type varBinding struct {
	name string
	b    *binding
}

// val is a Go expression and its type.
type val struct {
	expr string
	typ  reflect.Type
	lit  bool // an untyped constant (a number literal)
}

// fctx compiles one template's body.
type fctx struct {
	g    *gen
	tree *parse.Tree
	w    *bytes.Buffer
	dot  *binding
	vars []varBinding
	n    int
}

// pos names where n is: template:line:col.
func (c *fctx) pos(n parse.Node) string {
	loc, _ := c.tree.ErrorContext(n)
	return loc
}

func (c *fctx) tmp(prefix string) string {
	c.n++
	return prefix + strconv.Itoa(c.n)
}

func (c *fctx) printf(format string, a ...any) { fmt.Fprintf(c.w, format, a...) }

// sub compiles f into a fresh buffer and returns the code.
func (c *fctx) sub(f func() error) (string, error) {
	w := c.w
	var b bytes.Buffer
	c.w = &b
	err := f()
	c.w = w
	return b.String(), err
}

func (c *fctx) list(l *parse.ListNode) error {
	if l == nil {
		return nil
	}
	for _, n := range l.Nodes {
		if err := c.node(n); err != nil {
			return err
		}
	}
	return nil
}

func (c *fctx) node(n parse.Node) error {
	switch n := n.(type) {
	case *parse.TextNode:
		if len(n.Text) > 0 {
			c.printf("b.WriteString(%s)\n", goString(string(n.Text)))
		}
		return nil
	case *parse.ActionNode:
		return c.action(n)
	case *parse.IfNode:
		return c.ifNode(n)
	case *parse.WithNode:
		return c.withNode(n)
	case *parse.RangeNode:
		return c.rangeNode(n)
	case *parse.TemplateNode:
		return c.templateNode(n)
	case *parse.BreakNode:
		c.printf("break\n")
		return nil
	case *parse.ContinueNode:
		c.printf("continue\n")
		return nil
	case *parse.CommentNode:
		return nil
	}
	return fmt.Errorf("%s: unsupported node %T", c.pos(n), n)
}

// goString quotes s as a Go string literal, raw when that is exact.
func goString(s string) string {
	if utf8.ValidString(s) && !strings.ContainsAny(s, "`\r\x00") && !strings.ContainsFunc(s, func(r rune) bool { return r != '\n' && r != '\t' && !unicode.IsPrint(r) }) {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

func (c *fctx) action(n *parse.ActionNode) error {
	if len(n.Pipe.Decl) > 0 {
		if len(n.Pipe.Decl) != 1 || n.Pipe.IsAssign {
			return fmt.Errorf("%s: unsupported assignment", c.pos(n))
		}
		v, escs, err := c.pipe(n.Pipe)
		if err != nil {
			return err
		}
		if len(escs) > 0 {
			return fmt.Errorf("%s: escaped declaration", c.pos(n))
		}
		name := c.tmp("v")
		c.printf("%s := %s\n_ = %s\n", name, v.expr, name)
		c.vars = append(c.vars, varBinding{n.Pipe.Decl[0].Ident[0], &binding{expr: name, typ: v.typ}})
		return nil
	}
	v, escs, err := c.pipe(n.Pipe)
	if err != nil {
		return err
	}
	return c.write(n, v, escs)
}

// write writes v as its escaper chain escs would.
func (c *fctx) write(n parse.Node, v val, escs []string) error {
	s, html, err := c.stringify(v)
	if err != nil {
		return fmt.Errorf("%s: %w", c.pos(n), err)
	}
	chain := strings.Join(escs, " ")
	switch chain {
	case "htmlescaper":
		if html {
			c.printf("b.WriteString(%s)\n", s)
			return nil
		}
		c.printf("%s(b, %s)\n", c.g.cfg.EscapeText, s)
		return nil
	case "rcdataescaper", "attrescaper":
		if html { // html/template strips or normalises markup here
			break
		}
		c.printf("%s(b, %s)\n", c.g.cfg.EscapeText, s)
		return nil
	case "urlfilter urlnormalizer attrescaper", "urlnormalizer attrescaper", "urlescaper attrescaper":
		if html {
			break
		}
		frag := escs[0] == "urlescaper"
		t := c.tmp("u")
		c.printf("if %s := %s; %s(%s, %t) {\nb.WriteString(%s)\n} else {\nreturn %s()\n}\n", t, s, c.g.cfg.URLInert, t, frag, t, c.g.cfg.Fallback)
		return nil
	case "":
		return fmt.Errorf("%s: action without an escaper", c.pos(n))
	}
	// Escaped for a context written by html/template only: reaching it
	// hands the template back.
	c.printf("if err := %s(); err != nil { // %s\nreturn err\n}\n", c.g.cfg.Fallback, chain)
	return nil
}

// stringify returns the Go expression of the string html/template's
// escapers make of v, and whether it is template.HTML.
func (c *fctx) stringify(v val) (string, bool, error) {
	t := v.typ
	if v.lit {
		return strconv.Quote(v.expr), false, nil
	}
	if t == htmlType {
		return "string(" + v.expr + ")", true, nil
	}
	if t.PkgPath() == "html/template" {
		return "", false, fmt.Errorf("typed content %s is not supported", t)
	}
	errT := reflect.TypeOf((*error)(nil)).Elem()
	strT := reflect.TypeOf((*fmt.Stringer)(nil)).Elem()
	switch {
	case t.Implements(errT) || reflect.PointerTo(t).Implements(errT) && t.Kind() != reflect.Pointer:
		return "", false, fmt.Errorf("error value %s is not supported", t)
	case t.Implements(strT) && t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface:
		return v.expr + ".String()", false, nil
	case reflect.PointerTo(t).Implements(strT):
		return "", false, fmt.Errorf("%s has a String method on its pointer", t)
	}
	switch t.Kind() {
	case reflect.String:
		if t == reflect.TypeOf("") {
			return v.expr, false, nil
		}
		return "string(" + v.expr + ")", false, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		c.g.imports["strconv"] = true
		return "strconv.FormatInt(int64(" + v.expr + "), 10)", false, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		c.g.imports["strconv"] = true
		return "strconv.FormatUint(uint64(" + v.expr + "), 10)", false, nil
	case reflect.Bool:
		c.g.imports["strconv"] = true
		return "strconv.FormatBool(bool(" + v.expr + "))", false, nil
	case reflect.Float32, reflect.Float64:
		c.g.imports["fmt"] = true
		return "fmt.Sprint(" + v.expr + ")", false, nil
	}
	return "", false, fmt.Errorf("printing %s is not supported", t)
}

// truth is Go for text/template's truth of v (if, with, not).
func truth(v val) (string, error) {
	switch v.typ.Kind() {
	case reflect.Bool:
		return v.expr, nil
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array, reflect.Chan:
		return "len(" + v.expr + ") > 0", nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64:
		return v.expr + " != 0", nil
	case reflect.Pointer, reflect.Interface, reflect.Func:
		return v.expr + " != nil", nil
	case reflect.Struct:
		return "true", nil
	}
	return "", fmt.Errorf("truth of %s is not supported", v.typ)
}

// pipe evaluates a pipeline: its value and the escapers html/template
// appended (names without their prefix).
func (c *fctx) pipe(p *parse.PipeNode) (val, []string, error) {
	var v *val
	var escs []string
	for _, cmd := range p.Cmds {
		if id, ok := cmd.Args[0].(*parse.IdentifierNode); ok && len(cmd.Args) == 1 && strings.HasPrefix(id.Ident, escPrefix) {
			escs = append(escs, strings.TrimPrefix(id.Ident, escPrefix))
			continue
		}
		if len(escs) > 0 {
			return val{}, nil, fmt.Errorf("%s: command after an escaper", c.pos(p))
		}
		r, err := c.command(cmd, v)
		if err != nil {
			return val{}, nil, err
		}
		v = &r
	}
	if v == nil {
		return val{}, nil, fmt.Errorf("%s: empty pipeline", c.pos(p))
	}
	return *v, escs, nil
}

// command evaluates one command; final is the previous command's value.
func (c *fctx) command(cmd *parse.CommandNode, final *val) (val, error) {
	first := cmd.Args[0]
	if id, ok := first.(*parse.IdentifierNode); ok {
		var args []val
		for _, a := range cmd.Args[1:] {
			v, err := c.arg(a)
			if err != nil {
				return val{}, err
			}
			args = append(args, v)
		}
		if final != nil {
			args = append(args, *final)
		}
		return c.call(cmd, id.Ident, args)
	}
	if len(cmd.Args) > 1 || final != nil {
		return val{}, fmt.Errorf("%s: arguments to a non-function", c.pos(cmd))
	}
	return c.arg(first)
}

// arg evaluates an operand.
func (c *fctx) arg(n parse.Node) (val, error) {
	switch n := n.(type) {
	case *parse.DotNode:
		c.dot.used = true
		return val{expr: c.dot.expr, typ: c.dot.typ}, nil
	case *parse.FieldNode:
		c.dot.used = true
		return c.fields(val{expr: c.dot.expr, typ: c.dot.typ}, n.Ident, n)
	case *parse.VariableNode:
		b := c.lookup(n.Ident[0])
		if b == nil {
			return val{}, fmt.Errorf("%s: undefined variable %s", c.pos(n), n.Ident[0])
		}
		b.used = true
		return c.fields(val{expr: b.expr, typ: b.typ}, n.Ident[1:], n)
	case *parse.PipeNode:
		v, escs, err := c.pipe(n)
		if err != nil {
			return val{}, err
		}
		if len(escs) > 0 {
			return val{}, fmt.Errorf("%s: escaped operand", c.pos(n))
		}
		return val{expr: "(" + v.expr + ")", typ: v.typ, lit: v.lit}, nil
	case *parse.StringNode:
		return val{expr: strconv.Quote(n.Text), typ: reflect.TypeOf("")}, nil
	case *parse.NumberNode:
		if n.IsInt {
			return val{expr: n.Text, typ: reflect.TypeOf(0), lit: true}, nil
		}
	case *parse.BoolNode:
		return val{expr: strconv.FormatBool(n.True), typ: reflect.TypeOf(true)}, nil
	}
	return val{}, fmt.Errorf("%s: unsupported operand %s", c.pos(n), n)
}

func (c *fctx) lookup(name string) *binding {
	for i := len(c.vars) - 1; i >= 0; i-- {
		if c.vars[i].name == name {
			return c.vars[i].b
		}
	}
	return nil
}

// fields selects the fields (or calls the methods) names of v.
func (c *fctx) fields(v val, names []string, n parse.Node) (val, error) {
	for _, name := range names {
		t := v.typ
		if m, ok := t.MethodByName(name); ok && t.Kind() != reflect.Interface {
			if m.Type.NumIn() != 1 || m.Type.NumOut() != 1 {
				return val{}, fmt.Errorf("%s: method %s.%s: only methods without arguments and with one result are supported", c.pos(n), t, name)
			}
			v = val{expr: v.expr + "." + name + "()", typ: m.Type.Out(0)}
			continue
		}
		if t.Kind() == reflect.Pointer {
			if _, ok := reflect.PointerTo(t.Elem()).MethodByName(name); !ok {
				t = t.Elem()
			}
		} else if _, ok := reflect.PointerTo(t).MethodByName(name); ok {
			return val{}, fmt.Errorf("%s: %s.%s has a pointer receiver", c.pos(n), t, name)
		}
		if t.Kind() != reflect.Struct {
			return val{}, fmt.Errorf("%s: field %s of %s is not supported", c.pos(n), name, v.typ)
		}
		f, ok := t.FieldByName(name)
		if !ok || !f.IsExported() {
			return val{}, fmt.Errorf("%s: %s has no exported field %s", c.pos(n), t, name)
		}
		v = val{expr: v.expr + "." + name, typ: f.Type}
	}
	return v, nil
}

var intType = reflect.TypeOf(0)

func isInt(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return true
	}
	return false
}

// call applies function name to args.
func (c *fctx) call(n parse.Node, name string, args []val) (val, error) {
	bad := func(format string, a ...any) (val, error) {
		return val{}, fmt.Errorf("%s: %s: %s", c.pos(n), name, fmt.Sprintf(format, a...))
	}
	switch name {
	case "len":
		if len(args) != 1 {
			return bad("want 1 argument")
		}
		switch args[0].typ.Kind() {
		case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
			return val{expr: "len(" + args[0].expr + ")", typ: intType}, nil
		}
		return bad("len of %s", args[0].typ)
	case "not":
		if len(args) != 1 {
			return bad("want 1 argument")
		}
		t, err := truth(args[0])
		if err != nil {
			return val{}, err
		}
		return val{expr: "!(" + t + ")", typ: reflect.TypeOf(true)}, nil
	case "index":
		if len(args) != 2 {
			return bad("only one index is supported")
		}
		x, k := args[0], args[1]
		switch x.typ.Kind() {
		case reflect.Map:
			if k.typ != x.typ.Key() || k.lit {
				return bad("key of type %s for %s", k.typ, x.typ)
			}
			return val{expr: x.expr + "[" + k.expr + "]", typ: x.typ.Elem()}, nil
		case reflect.Slice, reflect.Array:
			if !isInt(k.typ) {
				return bad("index of type %s", k.typ)
			}
			return val{expr: x.expr + "[" + k.expr + "]", typ: x.typ.Elem()}, nil
		}
		return bad("index of %s", x.typ)
	case "eq", "ne", "lt", "le", "gt", "ge":
		if len(args) != 2 {
			return bad("want 2 arguments")
		}
		op := map[string]string{"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}[name]
		a, b := args[0], args[1]
		conv := ""
		switch {
		case isInt(a.typ) && isInt(b.typ):
			conv = "int64"
		case a.typ.Kind() == reflect.String && b.typ.Kind() == reflect.String:
			conv = "string"
		case a.typ.Kind() == reflect.Bool && b.typ.Kind() == reflect.Bool && (name == "eq" || name == "ne"):
			conv = "bool"
		default:
			return bad("comparing %s with %s", a.typ, b.typ)
		}
		return val{expr: fmt.Sprintf("%s(%s) %s %s(%s)", conv, a.expr, op, conv, b.expr), typ: reflect.TypeOf(true)}, nil
	case "printf", "print":
		if len(args) == 0 || name == "printf" && args[0].typ.Kind() != reflect.String {
			return bad("want a format")
		}
		c.g.imports["fmt"] = true
		var es []string
		for _, a := range args {
			es = append(es, a.expr)
		}
		f := "fmt.Sprintf"
		if name == "print" {
			f = "fmt.Sprint"
		}
		return val{expr: f + "(" + strings.Join(es, ", ") + ")", typ: reflect.TypeOf("")}, nil
	}
	f, ok := c.g.cfg.Funcs[name]
	if !ok {
		return bad("function not supported")
	}
	fv := reflect.ValueOf(f)
	ft := fv.Type()
	if ft.Kind() != reflect.Func || ft.IsVariadic() || ft.NumOut() != 1 || ft.NumIn() != len(args) {
		return bad("only functions of fixed arguments and one result are supported")
	}
	rf := runtime.FuncForPC(fv.Pointer())
	if rf == nil {
		return bad("function not found")
	}
	goName, ok := strings.CutPrefix(rf.Name(), c.g.cfg.PkgPath+".")
	if !ok || strings.ContainsAny(goName, ".") {
		return bad("%s is not a top-level function of %s", rf.Name(), c.g.cfg.PkgPath)
	}
	var es []string
	for i, a := range args {
		pt := ft.In(i)
		switch {
		case a.lit && isInt(pt):
		case a.typ.AssignableTo(pt):
		default:
			return bad("argument %d: %s for %s", i+1, a.typ, pt)
		}
		es = append(es, a.expr)
	}
	return val{expr: goName + "(" + strings.Join(es, ", ") + ")", typ: ft.Out(0)}, nil
}

// scope runs f with the variables declared inside it dropped after.
func (c *fctx) scope(f func() error) error {
	n, dot := len(c.vars), c.dot
	err := f()
	c.vars, c.dot = c.vars[:n], dot
	return err
}

func (c *fctx) ifNode(n *parse.IfNode) error {
	if len(n.Pipe.Decl) > 0 {
		return fmt.Errorf("%s: declaration in if", c.pos(n))
	}
	v, escs, err := c.pipe(n.Pipe)
	if err != nil {
		return err
	}
	if len(escs) > 0 {
		return fmt.Errorf("%s: escaped condition", c.pos(n))
	}
	cond, err := truth(v)
	if err != nil {
		return err
	}
	c.printf("if %s {\n", cond)
	if err := c.scope(func() error { return c.list(n.List) }); err != nil {
		return err
	}
	if n.ElseList != nil {
		c.printf("} else {\n")
		if err := c.scope(func() error { return c.list(n.ElseList) }); err != nil {
			return err
		}
	}
	c.printf("}\n")
	return nil
}

func (c *fctx) withNode(n *parse.WithNode) error {
	if len(n.Pipe.Decl) > 1 {
		return fmt.Errorf("%s: declarations in with", c.pos(n))
	}
	v, escs, err := c.pipe(n.Pipe)
	if err != nil {
		return err
	}
	if len(escs) > 0 {
		return fmt.Errorf("%s: escaped condition", c.pos(n))
	}
	name := c.tmp("w")
	cond, err := truth(val{expr: name, typ: v.typ})
	if err != nil {
		return err
	}
	b := &binding{expr: name, typ: v.typ}
	body, err := c.sub(func() error {
		return c.scope(func() error {
			c.dot = b
			if len(n.Pipe.Decl) == 1 {
				c.vars = append(c.vars, varBinding{n.Pipe.Decl[0].Ident[0], b})
			}
			return c.list(n.List)
		})
	})
	if err != nil {
		return err
	}
	if !b.used && cond == "true" {
		name = "_"
	}
	c.printf("if %s := %s; %s {\n%s", name, v.expr, cond, body)
	if n.ElseList != nil {
		c.printf("} else {\n")
		if err := c.scope(func() error { return c.list(n.ElseList) }); err != nil {
			return err
		}
	}
	c.printf("}\n")
	return nil
}

func (c *fctx) rangeNode(n *parse.RangeNode) error {
	v, escs, err := c.pipe(n.Pipe)
	if err != nil {
		return err
	}
	if len(escs) > 0 {
		return fmt.Errorf("%s: escaped range", c.pos(n))
	}
	if k := v.typ.Kind(); k != reflect.Slice && k != reflect.Array {
		return fmt.Errorf("%s: range over %s is not supported", c.pos(n), v.typ)
	}
	if len(n.Pipe.Decl) > 2 || n.Pipe.IsAssign {
		return fmt.Errorf("%s: unsupported range declaration", c.pos(n))
	}
	// Elements are indexed in place, not copied (rows are large structs).
	r := c.tmp("r")
	idx := &binding{expr: c.tmp("i"), typ: intType}
	elem := &binding{expr: r + "[" + idx.expr + "]", typ: v.typ.Elem()}
	body, err := c.sub(func() error {
		return c.scope(func() error {
			c.dot = elem
			switch len(n.Pipe.Decl) {
			case 1:
				c.vars = append(c.vars, varBinding{n.Pipe.Decl[0].Ident[0], elem})
			case 2:
				c.vars = append(c.vars, varBinding{n.Pipe.Decl[0].Ident[0], idx}, varBinding{n.Pipe.Decl[1].Ident[0], elem})
			}
			return c.list(n.List)
		})
	})
	if err != nil {
		return err
	}
	i := idx.expr
	if !idx.used && !elem.used {
		i = "_"
	}
	c.printf("if %s := %s; len(%s) > 0 {\nfor %s := range %s {\n%s}\n", r, v.expr, r, i, r, body)
	if n.ElseList != nil {
		c.printf("} else {\n")
		if err := c.scope(func() error { return c.list(n.ElseList) }); err != nil {
			return err
		}
	}
	c.printf("}\n")
	return nil
}

func (c *fctx) templateNode(n *parse.TemplateNode) error {
	if n.Pipe == nil {
		return fmt.Errorf("%s: template %q called without data", c.pos(n), n.Name)
	}
	v, escs, err := c.pipe(n.Pipe)
	if err != nil {
		return err
	}
	if len(escs) > 0 || v.lit {
		return fmt.Errorf("%s: unsupported template argument", c.pos(n))
	}
	f := c.g.compile(n.Name, v.typ)
	if f.err != nil {
		return f.err
	}
	c.printf("if err := %s(b, %s); err != nil {\nreturn err\n}\n", f.goName, v.expr)
	return nil
}
