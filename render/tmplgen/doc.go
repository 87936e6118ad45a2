// Package tmplgen compiles html/template templates into Go writers: one
// function per template that writes, into a *bytes.Buffer, exactly the
// bytes html/template writes when it executes that template.
//
// It owns the translation only. It knows nothing of pages or sites: the
// caller (render's TestGeneratedWriters, run by go generate) hands it the
// parsed templates, the type each top-level template is executed with
// and the names of the Go helpers the generated code may call, and
// writes the file the caller compares with (or saves over) its own.
//
// How it stays exact. html/template decides how each value is escaped by
// the context it lands in and records that decision in the template's
// parse tree: after escaping, every action's pipeline ends in escaper
// functions (_html_template_htmlescaper, _html_template_attrescaper,
// _html_template_urlfilter, …). tmplgen escapes the templates the same
// way (by executing each entry once), walks the escaped trees, and turns
// each node into the Go statement that has the same effect, typed by the
// reflect.Type of the value at that point. Escaper chains it implements
// exactly are written inline: text, RCDATA and quoted attribute values
// (the generated code calls the helper named by Config.EscapeText);
// URLs only when a value is one that every URL escaper leaves as it is
// (Config.URLInert), else the writer returns the fallback error. Any
// other escaper (script, style, unquoted attributes) makes the writer
// return the fallback error when it is reached, and any construct the
// compiler does not translate (and/or, range over maps, methods with
// arguments, …) leaves that template without a writer: the caller then
// executes it with html/template. Either way the bytes are
// html/template's, so a template may use anything text/template offers.
//
// The caller still parses and executes the templates it was given for
// any template without a writer, for data of another type, and for
// templates a user supplies in place of the built-in ones.
package tmplgen
