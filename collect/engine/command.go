package engine

import (
	"fmt"
	"strings"

	"github.com/perflab/perflab/collect/redact"
)

// Command is a parsed serve command.
type Command struct {
	// Env holds NAME=value assignments written before the program.
	Env map[string]string
	// Argv is the program and its arguments.
	Argv []string
}

// ParseCommand splits a serve command the way a POSIX shell splits a
// simple command: single and double quotes, backslash escapes,
// backslash-newline continuations, # comments, and leading NAME=value
// assignments (returned in Env). Shell operators (| & ; < > ( ) ` $) are
// errors: the collector runs the program directly. The one exception is a
// reference to the environment, ${NAME}, kept as it is in the word (the
// collector expands it when it starts the engine: a campaign names its
// secrets instead of holding them).
func ParseCommand(s string) (Command, error) {
	var (
		words  []string
		cur    strings.Builder
		inWord bool
	)
	end := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '\\':
			if i+1 < len(rs) && rs[i+1] == '\n' {
				i++ // continuation
				continue
			}
			if i+1 < len(rs) {
				i++
				cur.WriteRune(rs[i])
				inWord = true
			}
		case c == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return Command{}, fmt.Errorf("command: unterminated single quote")
			}
			cur.WriteString(string(rs[i+1 : j]))
			inWord = true
			i = j
		case c == '"':
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("\"\\$`\n", rs[j+1]) {
					j++
					if rs[j] != '\n' {
						cur.WriteRune(rs[j])
					}
					continue
				}
				if n := envRefLen(rs[j:]); n > 0 {
					cur.WriteString(string(rs[j : j+n]))
					j += n - 1
					continue
				}
				if rs[j] == '$' || rs[j] == '`' {
					return Command{}, fmt.Errorf("command: %q inside double quotes: substitutions are not supported; write the value", string(rs[j]))
				}
				cur.WriteRune(rs[j])
			}
			if j == len(rs) {
				return Command{}, fmt.Errorf("command: unterminated double quote")
			}
			inWord = true
			i = j
		case c == '#' && !inWord:
			for i < len(rs) && rs[i] != '\n' {
				i++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			end()
		case c == '$' && envRefLen(rs[i:]) > 0:
			n := envRefLen(rs[i:])
			cur.WriteString(string(rs[i : i+n]))
			inWord = true
			i += n - 1
		case strings.ContainsRune("|&;<>()`$", c):
			return Command{}, fmt.Errorf("command: shell syntax %q is not supported: the collector runs one program without a shell", string(c))
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	end()
	cmd := Command{}
	for len(words) > 0 {
		name, val, ok := strings.Cut(words[0], "=")
		if !ok || !redact.IsEnvName(name) {
			break
		}
		if cmd.Env == nil {
			cmd.Env = map[string]string{}
		}
		cmd.Env[name] = val
		words = words[1:]
	}
	if len(words) == 0 {
		return Command{}, fmt.Errorf("command: empty")
	}
	cmd.Argv = words
	return cmd, nil
}

// Quote joins argv into one line a shell reads back as the same words
// (redact.Mask is left bare, for display).
func Quote(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = quoteWord(a)
	}
	return strings.Join(out, " ")
}

func quoteWord(a string) string {
	if a == "" {
		return "''"
	}
	if a == redact.Mask {
		return a
	}
	safe := true
	for _, c := range a {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:=,+@%^", c)) {
			safe = false
			break
		}
	}
	if safe {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// FlagValue returns the value of the first of names found in argv, as
// "--name value" or "--name=value".
func FlagValue(argv []string, names ...string) (string, bool) {
	for i, a := range argv {
		for _, n := range names {
			if a == n && i+1 < len(argv) {
				return argv[i+1], true
			}
			if strings.HasPrefix(a, n+"=") {
				return a[len(n)+1:], true
			}
		}
	}
	return "", false
}

// envRefLen returns the length of the reference ${NAME} at the start of
// rs, 0 if there is none.
func envRefLen(rs []rune) int {
	if len(rs) < 4 || rs[0] != '$' || rs[1] != '{' {
		return 0
	}
	for i := 2; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == '}':
			if i == 2 {
				return 0
			}
			return i + 1
		case c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 2 && c >= '0' && c <= '9':
		default:
			return 0
		}
	}
	return 0
}
