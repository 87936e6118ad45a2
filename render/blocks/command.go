package blocks

import (
	"bytes"
	"fmt"
	"html/template"
	"path"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/site"
)

// ---- commands and raw outputs ----

// codeHTML highlights code with chroma (CSS classes) inside the same
// wrapper as Markdown code blocks (copy button). chroma escapes the text.
// f is shared by a build: it caches the style's classes (safe for
// concurrent use); a new formatter per block recomputed them each time.
func codeHTML(f *chromahtml.Formatter, lang, code string) template.HTML {
	var buf bytes.Buffer
	buf.Grow(len(code)*4 + 256)
	buf.WriteString(`<div class="highlight language-` + template.HTMLEscapeString(lang) + `"><button class="copy" type="button" title="Copy to clipboard" aria-label="Copy to clipboard">Copy</button>`)
	if lang == "bash" {
		if toks, ok := shellTokens(code); ok {
			// chroma's tokens and HTML without its lexer and formatter
			// (shellcode.go)
			writeShellHTML(&buf, toks)
			buf.WriteString("</div>\n")
			return template.HTML(buf.String())
		}
	}
	lexer := lexers.Get(lang)
	if lexer == nil {
		lexer = lexers.Fallback
	}
	it, err := chroma.Coalesce(lexer).Tokenise(nil, code)
	if err == nil {
		err = f.Format(&buf, styles.Fallback, it)
	}
	if err != nil {
		buf.Reset()
		buf.WriteString(`<div class="highlight"><button class="copy" type="button">Copy</button><pre class="chroma"><code>` + template.HTMLEscapeString(code) + `</code></pre>`)
	}
	buf.WriteString("</div>\n")
	return template.HTML(buf.String())
}

type commandView struct {
	Title      string
	Experiment string
	Code       template.HTML
	Open       bool
	Class      string
}

// command renders an experiment's serving command as a code block; a
// title wraps it in an open "tip" details block (the skeleton's "Serving
// Command"). Without one the Markdown can wrap it itself (`???+ tip`).
func (c *Ctx) command(w *bytes.Buffer, e *schema.Experiment, title string) error {
	code := c.bash(c.rep.Command(e))
	if title == "" {
		w.WriteString(string(code))
		return nil
	}
	return c.execTo(w, "command", commandView{Title: title, Experiment: e.Name, Code: code, Open: true, Class: "tip"})
}

// wrapCommand breaks a long command line before its flags, with shell
// continuations, so that it reads on a phone and still pastes.
func wrapCommand(cmd string) string {
	if len(cmd) <= 90 || strings.Contains(cmd, "\n") {
		return cmd
	}
	fields := strings.Fields(cmd)
	var b strings.Builder
	line := 0
	for i, f := range fields {
		if i > 0 {
			// "python3 -m sglang.launch_server" is the program: its -m
			// stays on the first line (it was split after "python3").
			module := i == 1 && f == "-m" && strings.HasPrefix(path.Base(fields[0]), "python")
			if strings.HasPrefix(f, "-") && line > 0 && !module {
				b.WriteString(" \\\n    ")
				line = 4
			} else {
				b.WriteByte(' ')
				line++
			}
		}
		b.WriteString(f)
		line += len(f)
	}
	return b.String()
}

type rawView struct {
	Label     string
	Text      string
	Generated bool
	Caveats   []string
}

type rawDetails struct {
	Title string
	Raws  []rawView
}

func (c *Ctx) raw(run *Run, label string) rawView {
	text, gen := RawText(run.Result)
	return rawView{Label: label, Text: text, Generated: gen, Caveats: site.Caveats(run.Result)}
}

// pointRaws returns the raw output of every repeat of run's point (same
// experiment, profile and load), in repeat order, each labelled "run k of
// N" after label when the profile repeats; one run's alone otherwise. None
// for a nil run.
func (c *Ctx) pointRaws(run *Run, label string) []rawView {
	if run == nil {
		return nil
	}
	group := c.rep.PointRuns(run)
	n := len(group)
	if p, ok := c.rep.Campaign.Profile(run.Result.Profile); ok {
		n = max(n, p.RepeatCount())
	}
	if n < 2 || len(group) == 0 {
		return []rawView{c.raw(run, label)}
	}
	out := make([]rawView, 0, len(group))
	for _, g := range group {
		l := fmt.Sprintf("run %d of %d", g.Result.Repeat+1, n)
		if label != "" {
			l = label + ", " + l
		}
		out = append(out, c.raw(g, l))
	}
	return out
}
