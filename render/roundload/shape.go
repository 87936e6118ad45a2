package roundload

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// A shape is what a JSON value must look like to decode into a Go type
// (shapeOf: derived from the type, so a field added to schema.Request is
// checked without a line here): an older round's requests are checked
// against it and not decoded. Decoding them into a Request only to drop
// it (strconv's float parsing of every event time, reflection per field)
// made a cold build of a 306-round report a third slower than passing
// them over. A shape may refuse more than schema.Unmarshal does (a name
// in another case, a float literal it would have to parse): decode then
// gives the file to schema.Unmarshal, which decides; it never takes what
// schema.Unmarshal refuses.
type shape struct {
	kind reflect.Kind
	typ  reflect.Type
	elem *shape // a pointer's or slice's
	// fields are a struct's in declaration order, the order an encoder
	// writes them (checkComposite tries the field after the last one
	// found before looking the name up in index).
	fields []namedShape
	index  map[string]int
}

type namedShape struct {
	name string
	s    *shape
}

// errShape is a value that does not fit its shape; schema.Unmarshal
// words the error.
var errShape = errors.New("value does not fit the field's type")

// shapeOf is t's shape: bools, integers, floats, strings, pointers,
// slices and structs (fields by their json tag's name) are checked
// token by token; any other type, and a type that decodes itself or a
// struct whose tags ask for more than a name, is decoded into a value
// of it.
func shapeOf(t reflect.Type) *shape {
	s := &shape{kind: t.Kind(), typ: t}
	whole := &shape{kind: reflect.Invalid, typ: t}
	if decodesItself(t) || t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
		return whole // its own rules, or base64 ([]byte)
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice:
		s.elem = shapeOf(t.Elem())
	case reflect.Struct:
		s.index = map[string]int{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous || strings.Contains(","+opts+",", ",string,") || strings.Contains(opts, "inline") {
				return whole // embedded fields, numbers as strings: decode it whole
			}
			if !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if _, dup := s.index[name]; dup {
				return whole
			}
			s.index[name] = len(s.fields)
			s.fields = append(s.fields, namedShape{name, shapeOf(f.Type)})
		}
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
	default:
		s.kind = reflect.Invalid
	}
	return s
}

// decodesItself reports whether values of t (or *t) decode by methods
// of their own.
func decodesItself(t reflect.Type) bool {
	for _, u := range []reflect.Type{t, reflect.PointerTo(t)} {
		if u.Implements(reflect.TypeFor[jsonv2.UnmarshalerFrom]()) || u.Implements(reflect.TypeFor[jsonv2.Unmarshaler]()) ||
			u.Implements(reflect.TypeFor[json.Unmarshaler]()) || u.Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
			return true
		}
	}
	return false
}

// check reads the next value of dec, an error unless it fits s.
func (s *shape) check(dec *jsontext.Decoder) error {
	switch s.kind {
	case reflect.Pointer, reflect.Slice, reflect.Struct:
		if dec.PeekKind() == 'n' {
			_, err := dec.ReadToken()
			return err
		}
		if s.kind == reflect.Pointer {
			return s.elem.check(dec)
		}
		return s.checkComposite(dec)
	case reflect.Invalid:
		return jsonv2.UnmarshalDecode(dec, reflect.New(s.typ).Interface())
	}
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	k := v.Kind()
	switch {
	case k == 'n':
		return nil // null leaves a scalar as it is
	case s.kind == reflect.Bool:
		if k == 't' || k == 'f' {
			return nil
		}
	case s.kind == reflect.String:
		if k == '"' {
			return nil
		}
	case k != '0':
	case s.kind == reflect.Float32 || s.kind == reflect.Float64:
		if s.kind == reflect.Float64 && len(v) < 300 && bytes.IndexByte(v, 'e') < 0 && bytes.IndexByte(v, 'E') < 0 {
			return nil // no exponent, under 300 digits: within float64's range
		}
		if _, err := strconv.ParseFloat(string(v), s.typ.Bits()); err == nil {
			return nil
		}
	case s.typ.Bits() == 64 && smallInt(v, s.kind >= reflect.Int && s.kind <= reflect.Int64):
		return nil // the common case, without strconv's allocations
	case s.kind >= reflect.Int && s.kind <= reflect.Int64:
		if _, err := strconv.ParseInt(string(v), 10, s.typ.Bits()); err == nil {
			return nil
		}
	default:
		if _, err := strconv.ParseUint(string(v), 10, s.typ.Bits()); err == nil {
			return nil
		}
	}
	return errShape
}

// smallInt reports whether number literal v is an integer of at most 18
// digits (a sign when signed): one any 64-bit integer type holds.
func smallInt(v []byte, signed bool) bool {
	if signed && len(v) > 0 && v[0] == '-' {
		v = v[1:]
	}
	if len(v) == 0 || len(v) > 18 {
		return false
	}
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// checkComposite checks an array of s.elem (a slice) or an object of
// s.fields (a struct), its opening token next.
func (s *shape) checkComposite(dec *jsontext.Decoder) error {
	open, end := jsontext.Kind('['), jsontext.Kind(']')
	if s.kind == reflect.Struct {
		open, end = '{', '}'
	}
	if dec.PeekKind() != open {
		return errShape
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	hint := 0 // the field expected next
	for dec.PeekKind() != end {
		next := s.elem
		if s.kind == reflect.Struct {
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			if len(v) < 2 || bytes.IndexByte(v, '\\') >= 0 {
				return errShape // an escaped name: schema.Unmarshal decides
			}
			name := v[1 : len(v)-1]
			if hint >= len(s.fields) || s.fields[hint].name != string(name) {
				i, ok := s.index[string(name)]
				if !ok {
					return errShape // unknown (or in another case: schema.Unmarshal decides)
				}
				hint = i
			}
			next = s.fields[hint].s
			hint++
		}
		if err := next.check(dec); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}
