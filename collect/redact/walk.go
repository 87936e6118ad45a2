package redact

import (
	"reflect"
	"strings"
	"sync"
)

// Walk redacts, in place, every string that v (a pointer) holds, however
// deep: struct fields, slices, arrays, maps and pointers. A reader of
// records (a results file, a campaign) calls it once where the record
// comes in, so no field is missed because a later change forgot to list
// it. The rules are those of the rest of the package:
//
//   - a string is free text (String: known values, token shapes, bearer
//     headers, secret NAME=value and --flag value pairs);
//   - a []string is an argv first (Args: the word after a secret flag),
//     then free text word by word;
//   - a map[string]string is an environment (Env: the value of a secret
//     name is masked whole), its other values free text.
//
// References to the environment (${HF_TOKEN}, IsRef) are kept. Unexported
// fields are left alone.
func (r *Redactor) Walk(v any) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return
	}
	r.walk(rv.Elem())
}

var (
	stringType      = reflect.TypeFor[string]()
	stringSliceType = reflect.TypeFor[[]string]()
)

func (r *Redactor) walk(v reflect.Value) {
	if !holdsStrings(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			if s := v.String(); s != "" {
				if t := r.String(s); t != s {
					v.SetString(t)
				}
			}
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			e := v.Elem()
			if v.Kind() == reflect.Interface && !e.CanSet() {
				// A value held in an interface cannot be set: redact a copy.
				c := reflect.New(e.Type()).Elem()
				c.Set(e)
				r.walk(c)
				if v.CanSet() {
					v.Set(c)
				}
				return
			}
			r.walk(e)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			if t.Field(i).IsExported() {
				r.walk(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Type().Elem() == stringType && v.CanSet() && v.Len() > 0 {
			in := v.Interface()
			if v.Type() != stringSliceType {
				in = v.Convert(stringSliceType).Interface()
			}
			words := in.([]string)
			out := Args(words)
			for i := range out {
				out[i] = r.String(out[i])
				if out[i] != words[i] {
					v.Index(i).SetString(out[i])
				}
			}
			return
		}
		fallthrough
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			r.walk(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		env := v.Type().Key().Kind() == reflect.String && v.Type().Elem().Kind() == reflect.String
		it := v.MapRange()
		type kv struct{ k, v reflect.Value }
		var set []kv
		for it.Next() {
			k, e := it.Key(), it.Value()
			c := reflect.New(e.Type()).Elem()
			c.Set(e)
			if env && SecretName(k.String()) && c.String() != "" && !IsRef(c.String()) {
				c.SetString(Mask)
			} else {
				r.walk(c)
			}
			if c.Kind() != reflect.String || c.String() != e.String() {
				set = append(set, kv{k, c}) // the map cannot change while ranged
			}
		}
		for _, x := range set {
			v.SetMapIndex(x.k, x.v)
		}
	}
}

// holdsStrings reports whether a value of type t can hold a string:
// numeric records (a result's thousands of request timings) are not
// walked.
func holdsStrings(t reflect.Type) bool {
	if h, ok := holds.Load(t); ok {
		return h.(bool)
	}
	holds.Store(t, true) // a recursive type is walked
	h := holdsStringsOf(t)
	holds.Store(t, h)
	return h
}

var holds sync.Map // reflect.Type → bool

func holdsStringsOf(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return holdsStrings(t.Elem())
	case reflect.Map:
		return holdsStrings(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() && holdsStrings(f.Type) {
				return true
			}
		}
	}
	return false
}

// Leak is a token-shaped string found in text (Find).
type Leak struct {
	// Line is 1-based; Text is the token, its middle hidden.
	Line int
	Text string
}

// Find returns the token-shaped strings of text (hf_…, sk-…, ghp_…,
// github_pat_…, xox?-…, AKIA…), each with its line: what a published
// site must not hold. The tokens come back shortened (their first and
// last characters), so reporting one does not repeat it.
func Find(text []byte) []Leak {
	s := string(text)
	if !containsAny(s, "hf_", "sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "AKIA") {
		return nil
	}
	var out []Leak
	for _, m := range shaped.FindAllStringIndex(s, -1) {
		tok := s[m[0]:m[1]]
		out = append(out, Leak{Line: strings.Count(s[:m[0]], "\n") + 1, Text: tok[:min(6, len(tok))] + "…" + tok[len(tok)-2:]})
	}
	return out
}
