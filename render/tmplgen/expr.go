package tmplgen

import (
	"fmt"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"text/template/parse"
)

// Compiling expressions: pipelines, operands, fields, functions, and the
// string html/template's escapers print for a value.

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
