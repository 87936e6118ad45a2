package benchflags

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Kind is what a flag takes on the command line.
type Kind int

const (
	// Bool takes no value (argparse store_true); --name=false is accepted.
	Bool Kind = iota
	// String takes one value.
	String
	// Int takes one integer.
	Int
	// Float takes one number.
	Float
	// Duration takes one Go duration ("300ms", "2m").
	Duration
	// List takes one or more values (argparse nargs="+"), and may repeat:
	// `--goodput ttft:50 tpot:10`.
	List
	// JSON takes one JSON object; dotted spellings (--extra-body.key v)
	// set one member each.
	JSON
)

func (k Kind) String() string {
	return [...]string{"", "string", "int", "float", "duration", "value...", "json"}[k]
}

// Action is what perflab does with a flag.
type Action int

const (
	// Act: perflab behaves as vLLM does with it.
	Act Action = iota
	// Warn: accepted so that a pasted command runs, with one warning that
	// it has no effect here; it never changes a number.
	Warn
)

// Origin says whose flag it is.
type Origin int

const (
	// Serve is a flag of Python's `vllm bench serve` (vLLM's own list:
	// testdata/python_serve_flags.txt).
	Serve Origin = iota
	// VLLMBench is a flag of vLLM's compiled client (vllm-bench) that
	// Python's parser lacks: multi-turn sessions, --dry-run, …
	VLLMBench
	// Perflab is perflab's own.
	Perflab
)

// Flag is one row of the table.
type Flag struct {
	Name    string // long name without dashes, hyphenated
	Kind    Kind
	Default string // as shown in -h; "" when none
	Help    string
	Action  Action
	Origin  Origin
	// Why, for a Warn row, says why it has no effect here (printed in the
	// warning after "has no effect here").
	Why string
	// Group heads the row's section in -h and the README.
	Group string
}

// Table is a set of flags; rows from several files are joined with
// append (vLLM's, then perflab's own) before Parse.
type Table []Flag

// Lookup returns the row named name (hyphenated), or nil.
func (t Table) Lookup(name string) *Flag {
	for i := range t {
		if t[i].Name == name {
			return &t[i]
		}
	}
	return nil
}

// Values are a parsed command line: each given flag's values, in order.
// A scalar flag given twice keeps its last value; a List flag keeps all.
type Values struct {
	vals map[string][]string
	// order is the flags given, first use first.
	order []string
	// Warnings are the Warn flags given, one line each, in order.
	Warnings []string
}

// Has reports whether name was given.
func (v *Values) Has(name string) bool { _, ok := v.vals[name]; return ok }

// Get is name's last value ("" if not given).
func (v *Values) Get(name string) string {
	s := v.vals[name]
	if len(s) == 0 {
		return ""
	}
	return s[len(s)-1]
}

// All is every value given to name, in order.
func (v *Values) All(name string) []string { return v.vals[name] }

// Given lists the flags given, first use first.
func (v *Values) Given() []string { return v.order }

func (v *Values) add(name, val string) {
	if _, ok := v.vals[name]; !ok {
		v.order = append(v.order, name)
	}
	v.vals[name] = append(v.vals[name], val)
}

// Error is a command-line error, naming the flag (and the config file
// and key when it came from --config).
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errf(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }

// ErrHelp is returned when -h or --help is given.
var ErrHelp = &Error{Msg: "help requested"}

// Parse parses args with vLLM's parser spellings: --name value,
// --name=value, underscores for hyphens (--num_prompts), a List flag's
// several values, --config FILE.yaml (its keys as flags, before the
// command line's so that the command line wins), and dotted JSON keys
// (--extra-body.key value: one member each, the value JSON if it parses
// as JSON, else a string; merged over a whole --extra-body).
func (t Table) Parse(args []string) (*Values, error) {
	expanded, err := t.expandConfig(args)
	if err != nil {
		return nil, err
	}
	v := &Values{vals: map[string][]string{}}
	warned := map[string]bool{}
	dotted := map[string]map[string]any{}
	var dottedOrder []string
	for i := 0; i < len(expanded); i++ {
		a := expanded[i]
		if a == "-h" || a == "--help" || a == "-help" {
			return nil, ErrHelp
		}
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return nil, errf("unexpected argument %q (every value belongs to a flag)", a)
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		// underscores spell hyphens in the flag's name, not in a dotted key
		base, key, isDotted := strings.Cut(name, ".")
		base = strings.ReplaceAll(base, "_", "-")
		if isDotted {
			name = base + "." + key
		} else {
			name = base
		}
		f := t.Lookup(base)
		if f == nil {
			return nil, errf("unknown flag --%s%s", name, suggest(t, base))
		}
		if isDotted {
			if f.Kind != JSON || key == "" {
				return nil, errf("--%s: only a JSON flag takes dotted keys", name)
			}
			if !hasVal {
				if i+1 >= len(expanded) {
					return nil, errf("--%s needs a value", name)
				}
				i++
				val = expanded[i]
			}
			if dotted[base] == nil {
				dotted[base] = map[string]any{}
				dottedOrder = append(dottedOrder, base)
			}
			setDotted(dotted[base], strings.Split(key, "."), dottedValue(val))
			continue
		}
		switch f.Kind {
		case Bool:
			if !hasVal {
				val = "true"
			}
			b, err := strconv.ParseBool(val)
			if err != nil {
				return nil, errf("--%s=%s: want true or false", name, val)
			}
			val = strconv.FormatBool(b)
			v.add(f.Name, val)
		case List:
			n := 0
			if hasVal {
				v.add(f.Name, val)
				n++
			}
			for i+1 < len(expanded) && (n == 0 || !isFlagLike(expanded[i+1])) {
				i++
				v.add(f.Name, expanded[i])
				n++
			}
			if n == 0 {
				return nil, errf("--%s needs at least one value", name)
			}
		default:
			if !hasVal {
				if i+1 >= len(expanded) {
					return nil, errf("--%s needs a value", name)
				}
				i++
				val = expanded[i]
			}
			if err := checkValue(f, val); err != nil {
				return nil, err
			}
			v.add(f.Name, val)
		}
		if f.Action == Warn && !warned[f.Name] {
			warned[f.Name] = true
			v.Warnings = append(v.Warnings, warning(f))
		}
	}
	for _, base := range dottedOrder {
		merged := map[string]any{}
		if v.Has(base) {
			if err := json.Unmarshal([]byte(v.Get(base)), &merged); err != nil {
				return nil, errf("--%s: %v", base, err)
			}
		}
		mergeDeep(merged, dotted[base])
		b, err := json.Marshal(merged)
		if err != nil {
			return nil, errf("--%s: %v", base, err)
		}
		v.add(base, string(b))
		if f := t.Lookup(base); f.Action == Warn && !warned[base] {
			warned[base] = true
			v.Warnings = append(v.Warnings, warning(f))
		}
	}
	return v, nil
}

func warning(f *Flag) string {
	msg := "--" + f.Name + " has no effect here"
	if f.Why != "" {
		msg += " (" + f.Why + ")"
	}
	return msg
}

// isFlagLike tells a flag from a List value: a negative number is a value.
func isFlagLike(s string) bool {
	if !strings.HasPrefix(s, "-") || s == "-" {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err != nil
}

func checkValue(f *Flag, val string) error {
	if why := valueProblem(f, val); why != "" {
		return errf("--%s %q: %s", f.Name, val, why)
	}
	return nil
}

// valueProblem says what is wrong with a value of f's kind, or "".
func valueProblem(f *Flag, val string) string {
	switch f.Kind {
	case Int:
		if _, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64); err != nil {
			return "want an integer"
		}
	case Float:
		if _, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err != nil {
			return "want a number"
		}
	}
	return ""
}

// dottedValue is a dotted key's value: JSON when it parses as JSON
// (numbers, true, objects), else the string itself.
func dottedValue(s string) any {
	var x any
	if err := json.Unmarshal([]byte(s), &x); err == nil {
		return x
	}
	return s
}

func setDotted(m map[string]any, path []string, val any) {
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[k] = next
		}
		m = next
	}
	m[path[len(path)-1]] = val
}

func mergeDeep(dst, src map[string]any) {
	for k, sv := range src {
		if sm, ok := sv.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeDeep(dm, sm)
				continue
			}
		}
		dst[k] = sv
	}
}

// suggest names the closest flag for a misspelling.
func suggest(t Table, name string) string {
	best, bestD := "", 4
	for _, f := range t {
		if d := editDistance(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	}
	if best == "" {
		return ""
	}
	return " (did you mean --" + best + "?)"
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := 1
			if a[i-1] == b[j-1] {
				c = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+c)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// expandConfig replaces --config FILE (or --config=FILE) with the flags
// the YAML file holds, placed before the other arguments so that the
// command line wins, as vLLM's FlexibleArgumentParser does. A key
// `true` becomes a bare flag, `false` is left out, a list becomes the
// flag's several values, an object a JSON value.
func (t Table) expandConfig(args []string) ([]string, error) {
	var cfg []string
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		var path string
		switch {
		case a == "--config":
			if i+1 >= len(args) {
				return nil, errf("--config needs a YAML file")
			}
			i++
			path = args[i]
		case strings.HasPrefix(a, "--config="):
			path = strings.TrimPrefix(a, "--config=")
		default:
			rest = append(rest, a)
			continue
		}
		more, err := t.configArgs(path)
		if err != nil {
			return nil, err
		}
		cfg = append(cfg, more...)
	}
	return append(cfg, rest...), nil
}

func (t Table) configArgs(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errf("--config: %v", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, errf("--config %s: %v", path, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return nil, errf("--config %s:%d: want a mapping of flag names to values", path, m.Line)
	}
	var out []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, val := m.Content[i], m.Content[i+1]
		name := strings.ReplaceAll(k.Value, "_", "-")
		f := t.Lookup(name)
		if f == nil {
			return nil, errf("--config %s:%d: unknown key %q%s", path, k.Line, k.Value, suggest(t, name))
		}
		switch {
		case f.Kind == Bool:
			var b bool
			if err := val.Decode(&b); err != nil {
				return nil, errf("--config %s:%d: %s: want true or false", path, val.Line, k.Value)
			}
			if b {
				out = append(out, "--"+name)
			}
		case val.Kind == yaml.SequenceNode && f.Kind != List:
			// vLLM passes the items as separate arguments and argparse
			// refuses the second; say so at the line
			return nil, errf("--config %s:%d: %s: a list, but --%s takes one value (e.g. a comma-separated string)", path, val.Line, k.Value, f.Name)
		case val.Kind == yaml.SequenceNode:
			var items []string
			if err := val.Decode(&items); err != nil {
				return nil, errf("--config %s:%d: %s: want a list of scalars", path, val.Line, k.Value)
			}
			out = append(out, "--"+name)
			out = append(out, items...)
		case val.Kind == yaml.MappingNode:
			var obj map[string]any
			if err := val.Decode(&obj); err != nil {
				return nil, errf("--config %s:%d: %s: %v", path, val.Line, k.Value, err)
			}
			b, err := json.Marshal(obj)
			if err != nil {
				return nil, errf("--config %s:%d: %s: %v", path, val.Line, k.Value, err)
			}
			out = append(out, "--"+name+"="+string(b))
		default:
			// a bad value is reported at its line, not later as a flag's
			if why := valueProblem(f, val.Value); why != "" {
				return nil, errf("--config %s:%d: %s %q: %s", path, val.Line, k.Value, val.Value, why)
			}
			out = append(out, "--"+name+"="+val.Value)
		}
	}
	return out, nil
}

// groups returns the table's groups in first-use order.
func (t Table) groups() []string {
	var g []string
	for _, f := range t {
		if !slices.Contains(g, f.Group) {
			g = append(g, f.Group)
		}
	}
	return g
}

// WriteUsage writes -h: the flags by group, each with its value kind,
// help, default, and "(no effect here)" for a Warn row.
func (t Table) WriteUsage(w io.Writer) error {
	var b bytes.Buffer
	for _, g := range t.groups() {
		fmt.Fprintf(&b, "\n%s:\n", g)
		for _, f := range t {
			if f.Group != g {
				continue
			}
			head := "  --" + f.Name
			if f.Kind != Bool {
				head += " " + f.Kind.String()
			}
			help := f.Help
			if f.Default != "" {
				help += " (default " + f.Default + ")"
			}
			if f.Action == Warn {
				help = "no effect here: " + help
				if f.Why != "" {
					help += "; " + f.Why
				}
			}
			fmt.Fprintf(&b, "%s\n    \t%s\n", head, help)
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteMarkdown writes docs/bench.md's flag list: one table per group.
func (t Table) WriteMarkdown(w io.Writer) error {
	var b bytes.Buffer
	for _, g := range t.groups() {
		b.WriteString("\n") // also after an HTML line above the list
		fmt.Fprintf(&b, "**%s**\n\n| flag | value | default | perflab |\n|---|---|---|---|\n", g)
		for _, f := range t {
			if f.Group != g {
				continue
			}
			kind := f.Kind.String()
			if f.Kind == Bool {
				kind = "—"
			}
			def := f.Default
			if def == "" {
				def = "—"
			}
			what := mdEscape(f.Help)
			if f.Action == Warn {
				what = "no effect here"
				if f.Why != "" {
					what += " (" + mdEscape(f.Why) + ")"
				}
			}
			origin := ""
			switch f.Origin {
			case VLLMBench:
				origin = " ¹"
			case Perflab:
				origin = " ²"
			}
			fmt.Fprintf(&b, "| `--%s`%s | %s | %s | %s |\n", f.Name, origin, kind, mdEscape(def), what)
		}
	}
	b.WriteString("\n¹ a flag of vLLM's compiled client (vllm-bench), not of Python's `vllm bench serve`. ² perflab's own.\n")
	_, err := w.Write(b.Bytes())
	return err
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// Names returns the long flags of origin o, "--name", sorted.
func (t Table) Names(o Origin) []string {
	var out []string
	for _, f := range t {
		if f.Origin == o {
			out = append(out, "--"+f.Name)
		}
	}
	sort.Strings(out)
	return out
}
