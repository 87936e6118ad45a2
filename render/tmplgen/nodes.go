package tmplgen

import (
	"bytes"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"text/template/parse"
	"unicode"
	"unicode/utf8"
)

// Compiling a template's body: each node of the escaped parse tree
// becomes the Go statements with its effect.

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
	// An integer or a bool prints as digits, "-", "true" or "false",
	// which the text, attribute and URL escapers leave as they are (not
	// the script escaper: it pads values with spaces).
	plain := false
	switch v.typ.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr, reflect.Bool:
		plain = !v.lit && strings.HasPrefix(s, "strconv.")
	}
	switch chain {
	case "htmlescaper", "rcdataescaper", "attrescaper", "urlfilter urlnormalizer attrescaper", "urlnormalizer attrescaper", "urlescaper attrescaper":
	default:
		plain = false
	}
	if plain {
		c.printf("b.WriteString(%s)\n", s)
		return nil
	}
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
