package blocks

import (
	"bytes"
	"strings"

	"github.com/alecthomas/chroma/v2"
)

// Every report shows its serving and benchmark commands highlighted as
// bash, and chroma's bash lexer runs about twenty regular expressions
// (regexp2, over runes) at each token: on the 1,000-report synthetic site
// it was a tenth of a cold build's CPU and of its allocations, for lines
// such as
//
//	vllm serve Org/Model -tp 8 --max-num-seqs 512 \
//	    --gpu-memory-utilization=0.9
//
// shellTokens lexes such lines as that lexer does (chroma v2's
// lexers/embedded/bash.xml, rules tried in its order: keyword, builtin,
// escape, assignment, operator, blanks, number, text) and the caller feeds
// the tokens to the same formatter. It takes only what those rules decide
// without the ones it leaves out: ASCII words of letters, digits and
// _-./:,+@%, "=", blanks, and backslash escapes. Anything else (quotes,
// $, ;, |, &, #, brackets, redirections, non-ASCII) returns ok false and
// goes to chroma's lexer. TestShellTokensMatchChroma holds the two equal.
// No library lexes shell into chroma's token types but chroma itself.

// shellKeywords and shellBuiltins are the bash lexer's two word lists.
var (
	shellKeywords = wordSet("if fi else while do done for then return function case select continue until esac elif")
	shellBuiltins = wordSet("alias bg bind break builtin caller cd command compgen complete declare dirs disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local logout popd printf pushd pwd read readonly set shift shopt source suspend test time times trap true type typeset ulimit umask unalias unset wait")
)

func wordSet(words string) map[string]bool {
	m := map[string]bool{}
	start := 0
	for i := 0; i <= len(words); i++ {
		if i == len(words) || words[i] == ' ' {
			m[words[start:i]] = true
			start = i + 1
		}
	}
	return m
}

func shellWord(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

func shellBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// shellPlain are the characters of a text token that shellTokens takes
// (the lexer's text rule takes more; those go to chroma).
func shellPlain(c byte) bool {
	if shellWord(c) {
		return true
	}
	switch c {
	case '-', '.', '/', ':', ',', '+', '@', '%':
		return true
	}
	return false
}

// shellTokens returns code's tokens as chroma's coalesced bash lexer
// returns them, or ok false when code holds anything it does not take.
func shellTokens(code string) (toks []chroma.Token, ok bool) {
	for i := 0; i < len(code); i++ {
		if c := code[i]; !shellPlain(c) && !shellBlank(c) && c != '=' && c != '\\' {
			return nil, false
		}
	}
	// The tokens cover code from its start, one after the other: a token
	// of the type of the one before it lengthens that one (as
	// chroma.Coalesce joins them), a slice of code, not a new string.
	end, last := 0, 0 // where the tokens end, and where the last starts
	emit := func(t chroma.TokenType, v string) {
		if v == "" {
			return
		}
		if n := len(toks); n > 0 && toks[n-1].Type == t {
			toks[n-1].Value = code[last : end+len(v)]
		} else {
			toks = append(toks, chroma.Token{Type: t, Value: v})
			last = end
		}
		end += len(v)
	}
	run := func(i int, in func(byte) bool) int {
		for i < len(code) && in(code[i]) {
			i++
		}
		return i
	}
	for i := 0; i < len(code); {
		c := code[i]
		// The rules with \b (keyword, builtin, assignment) start only
		// at a word that follows a non-word character.
		if shellWord(c) && (i == 0 || !shellWord(code[i-1])) {
			j := run(i, shellWord)
			w := code[i:j]
			if shellKeywords[w] {
				// (\s*)\b: the blanks go with it only when a word follows.
				k := run(j, shellBlank)
				emit(chroma.Keyword, w)
				if k > j && k < len(code) && shellWord(code[k]) {
					emit(chroma.Text, code[j:k])
					j = k
				}
				i = j
				continue
			}
			if shellBuiltins[w] && j < len(code) && shellBlank(code[j]) {
				emit(chroma.NameBuiltin, w)
				i = j
				continue
			}
			k := run(j, shellBlank)
			op := ""
			switch {
			case k+1 < len(code) && code[k] == '+' && code[k+1] == '=':
				op = "+="
			case k < len(code) && code[k] == '=':
				op = "="
			}
			if op != "" {
				emit(chroma.NameVariable, w)
				emit(chroma.Text, code[j:k])
				emit(chroma.Operator, op)
				i = k + len(op)
				continue
			}
		}
		switch {
		case c == '\\':
			if i+1 == len(code) {
				return nil, false // an error token in chroma
			}
			emit(chroma.LiteralStringEscape, code[i:i+2])
			i += 2
		case c == '=':
			emit(chroma.Operator, "=")
			i++
		case shellBlank(c):
			j := run(i, shellBlank)
			emit(chroma.Text, code[i:j])
			i = j
		default:
			// \d+(?= |$), multi-line: a number before a space, a line's
			// end or the end; else text up to "=", a blank or "\".
			if j := run(i, isDigit); j > i && (j == len(code) || code[j] == ' ' || code[j] == '\n') {
				emit(chroma.LiteralNumber, code[i:j])
				i = j
				continue
			}
			j := run(i, shellPlain)
			emit(chroma.Text, code[i:j])
			i = j
		}
	}
	return toks, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// writeShellHTML writes shellTokens' tokens as chroma's HTML formatter
// with classes writes them (chromahtml.New(chromahtml.WithClasses(true)),
// Env.Chroma): each line in <span class="line"><span class="cl">, each
// token of a class in a span of it, the text escaped by
// html.EscapeString. The formatter printed every token through fmt and
// a string of its own: a third of the time of a page's commands.
// TestShellTokensMatchChroma holds the two equal.
func writeShellHTML(b *bytes.Buffer, toks []chroma.Token) {
	b.WriteString(`<pre class="chroma"><code>`)
	open := false
	for _, t := range toks {
		cls := chromaClass(t.Type)
		for v := t.Value; v != ""; {
			if !open {
				b.WriteString(`<span class="line"><span class="cl">`)
				open = true
			}
			part := v
			nl := strings.IndexByte(v, '\n')
			if nl >= 0 {
				part = v[:nl+1]
			}
			if cls != "" {
				b.WriteString(`<span class="`)
				b.WriteString(cls)
				b.WriteString(`">`)
			}
			escapeWith(b, part, &stdEscapes)
			if cls != "" {
				b.WriteString("</span>")
			}
			v = v[len(part):]
			if nl >= 0 {
				b.WriteString("</span></span>")
				open = false
			}
		}
	}
	if open {
		b.WriteString("</span></span>")
	}
	b.WriteString("</code></pre>")
}

// stdEscapes is html.EscapeString's table (", &, ', <, >).
var stdEscapes = escapeTable{'"': 2, '&': 3, '\'': 4, '<': 6, '>': 7}

// chromaClass is the CSS class chroma's formatter gives a token type: its
// own or its nearest parent's in chroma.StandardTypes.
func chromaClass(t chroma.TokenType) string {
	for t != 0 {
		if cls, ok := chroma.StandardTypes[t]; ok {
			return cls
		}
		t = t.Parent()
	}
	return chroma.StandardTypes[t]
}
