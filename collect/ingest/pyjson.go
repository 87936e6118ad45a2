package ingest

import (
	"bytes"
	"fmt"
	"sort"
)

// Python's json module writes a float nan or inf as the bare tokens NaN,
// Infinity and -Infinity, which JSON does not have (vLLM's --save-result
// and the tools that mimic it, guidellm's reports), and reads them back.
// pythonJSON rewrites them, outside strings, into JSON a decoder takes:
// NaN into null (not measured, as vLLM's "nan" string already is),
// Infinity and -Infinity into the strings infToken and negInfToken,
// which the field readers turn into an error naming the field (or, for
// request_rate, an unlimited rate). Newlines are kept, so a line counted
// in the rewritten text is the source's; offsets shift by the length the
// rewrites add, which pyJSON.orig maps back for the raw record kept.
const (
	infToken    = "\x00Infinity"
	negInfToken = "\x00-Infinity"
)

// pyRewrite is one bare token rewritten: at clean offset at, the source's
// from bytes became to bytes.
type pyRewrite struct{ at, from, to int }

// pyJSON is a source rewritten by pythonJSON.
type pyJSON struct {
	clean    []byte
	rewrites []pyRewrite // by offset
}

var pyTokens = []struct{ bare, json string }{
	{"NaN", "null"},
	{"-Infinity", `"\u0000-Infinity"`},
	{"Infinity", `"\u0000Infinity"`},
}

// pythonJSON rewrites data's bare NaN, Infinity and -Infinity tokens; data
// without them is returned as it is. Outside a string no other JSON token
// starts with N, I or -I, so a match there is one of them.
func pythonJSON(data []byte) pyJSON {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return pyJSON{clean: data}
	}
	var b bytes.Buffer
	var rw []pyRewrite
	inStr, esc := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			b.WriteByte(c)
			continue
		}
		if c == '"' {
			inStr = true
			b.WriteByte(c)
			continue
		}
		matched := false
		for _, t := range pyTokens {
			if bytes.HasPrefix(data[i:], []byte(t.bare)) {
				rw = append(rw, pyRewrite{at: b.Len(), from: len(t.bare), to: len(t.json)})
				b.WriteString(t.json)
				i += len(t.bare) - 1
				matched = true
				break
			}
		}
		if !matched {
			b.WriteByte(c)
		}
	}
	return pyJSON{clean: b.Bytes(), rewrites: rw}
}

// orig maps an offset of the rewritten text that is not inside a rewrite
// (a record's start or end) to the source's.
func (p pyJSON) orig(off int) int {
	n := sort.Search(len(p.rewrites), func(i int) bool { return p.rewrites[i].at >= off })
	for _, r := range p.rewrites[:n] {
		off -= r.to - r.from
	}
	return off
}

// infinite says which bare token a decoded value came from, "" when it is
// not an infinity.
func infinite(v any) string {
	switch v {
	case infToken:
		return "Infinity"
	case negInfToken:
		return "-Infinity"
	}
	return ""
}

// findInfinite is the path of the first infinity in a decoded value (keys
// in order, "metrics.ttft.successful.mean", "ttfts[3]"), and its token.
func findInfinite(v any, path string) (at, token string) {
	if t := infinite(v); t != "" {
		return path, t
	}
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if at, t := findInfinite(x[k], join(k)); t != "" {
				return at, t
			}
		}
	case []any:
		for i, e := range x {
			if at, t := findInfinite(e, fmt.Sprintf("%s[%d]", path, i)); t != "" {
				return at, t
			}
		}
	}
	return "", ""
}

// shown is a decoded value as an error message quotes it: an infinity as
// its bare token.
func shown(v any) string {
	if t := infinite(v); t != "" {
		return t
	}
	return fmt.Sprint(v)
}
