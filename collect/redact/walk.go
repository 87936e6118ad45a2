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
	r.walk(rv.Elem(), planOf(rv.Elem().Type()))
}

var (
	stringType      = reflect.TypeFor[string]()
	stringSliceType = reflect.TypeFor[[]string]()
)

// plan is what Walk needs to know of a type, worked out once: whether a
// value of it can hold a string at all (a result's thousands of numeric
// request timings are not walked), and for a struct which fields can.
type plan struct {
	strings bool
	fields  []int   // a struct's exported fields that hold strings
	elem    *plan   // a pointer's, slice's, array's or map's element
	subs    []*plan // the plans of fields, in step with fields
}

var (
	plans  sync.Map // reflect.Type → *plan, complete
	planMu sync.Mutex
)

func planOf(t reflect.Type) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	planMu.Lock()
	defer planMu.Unlock()
	building := map[reflect.Type]*plan{}
	p := planLocked(t, building)
	// Published only when all are complete (a recursive type's plans
	// point at each other).
	for t, q := range building {
		plans.Store(t, q)
	}
	return p
}

func planLocked(t reflect.Type, building map[reflect.Type]*plan) *plan {
	if p, ok := plans.Load(t); ok {
		return p.(*plan)
	}
	if p, ok := building[t]; ok {
		return p
	}
	p := &plan{strings: true} // a recursive type refers to itself: walked
	building[t] = p
	switch t.Kind() {
	case reflect.String, reflect.Interface:
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		p.elem = planLocked(t.Elem(), building)
		p.strings = p.elem.strings
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			if fp := planLocked(f.Type, building); fp.strings {
				p.fields = append(p.fields, i)
				p.subs = append(p.subs, fp)
			}
		}
		p.strings = len(p.fields) > 0
	default:
		p.strings = false
	}
	return p
}

func (r *Redactor) walk(v reflect.Value, p *plan) {
	if !p.strings {
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
	case reflect.Interface:
		if !v.IsNil() {
			// A value held in an interface cannot be set: redact a copy.
			e := v.Elem()
			c := reflect.New(e.Type()).Elem()
			c.Set(e)
			r.walk(c, planOf(e.Type()))
			if v.CanSet() {
				v.Set(c)
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			r.walk(v.Elem(), p.elem)
		}
	case reflect.Struct:
		for i, f := range p.fields {
			r.walk(v.Field(f), p.subs[i])
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
			r.walk(v.Index(i), p.elem)
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
				r.walk(c, p.elem)
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
