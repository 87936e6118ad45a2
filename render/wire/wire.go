package wire

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"
)

// rules names this file's encoding rules (the kinds below and how each
// is written). It is part of every Version, so a change to the rules
// changes every version at once; it is the one constant here, and it
// belongs to the code beside it rather than to any encoded type.
const rules = "wire-1"

// ErrMalformed is what Decode returns for bytes Append did not write
// for the type (truncated, damaged, or of another version).
var ErrMalformed = errors.New("wire: malformed data")

// codec writes and reads one type.
type codec struct {
	enc func(b []byte, v reflect.Value) []byte
	dec func(r *reader, v reflect.Value)
}

var (
	mu      sync.Mutex
	codecs  = map[reflect.Type]*codec{}
	version = map[reflect.Type]string{}
)

// Version identifies the encoding of values of v's type: a hash of the
// rules and of the type's complete description (every field's name,
// type, and the types below it, recursively). Encoded bytes carry it so
// that a change to a type makes the bytes another version's: read as a
// miss, never as a value with a field shifted or missing. It panics for
// a type the codec cannot encode (an unexported struct field, an
// interface, a func, a chan): such a type would lose data silently.
func Version(v any) string {
	t := reflect.TypeOf(v)
	mu.Lock()
	defer mu.Unlock()
	if s, ok := version[t]; ok {
		return s
	}
	var b strings.Builder
	b.WriteString(rules)
	b.WriteByte(' ')
	describe(&b, t, map[reflect.Type]bool{})
	sum := sha256.Sum256([]byte(b.String()))
	s := hex.EncodeToString(sum[:12])
	compile(t)
	version[t] = s
	return s
}

// describe writes t's description into b.
func describe(b *strings.Builder, t reflect.Type, seen map[reflect.Type]bool) {
	if t.Name() != "" {
		b.WriteString(t.PkgPath())
		b.WriteByte('.')
		b.WriteString(t.Name())
		b.WriteByte(':')
	}
	switch t.Kind() {
	case reflect.Struct:
		if seen[t] {
			b.WriteString("<recursive>")
			return
		}
		seen[t] = true
		b.WriteString("struct{")
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if skipped(f) {
				continue
			}
			if !f.IsExported() {
				panic(fmt.Sprintf("wire: %s.%s is not exported: it could not be encoded (tag it wire:\"-\" if it is derived from the others)", t, f.Name))
			}
			b.WriteString(f.Name)
			b.WriteByte(' ')
			describe(b, f.Type, seen)
			b.WriteByte(';')
		}
		b.WriteByte('}')
		delete(seen, t)
	case reflect.Pointer:
		b.WriteByte('*')
		describe(b, t.Elem(), seen)
	case reflect.Slice:
		b.WriteString("[]")
		describe(b, t.Elem(), seen)
	case reflect.Array:
		fmt.Fprintf(b, "[%d]", t.Len())
		describe(b, t.Elem(), seen)
	case reflect.Map:
		b.WriteString("map[")
		describe(b, t.Key(), seen)
		b.WriteByte(']')
		describe(b, t.Elem(), seen)
	default:
		b.WriteString(t.Kind().String())
	}
}

// Append appends v encoded to b. v's type must be one Version accepts.
func Append(b []byte, v any) []byte {
	rv := reflect.ValueOf(v)
	c := codecFor(rv.Type())
	if rv.Kind() == reflect.Struct || rv.Kind() == reflect.Array {
		// Addressable, so that byte arrays are copied whole.
		p := reflect.New(rv.Type()).Elem()
		p.Set(rv)
		rv = p
	}
	return c.enc(b, rv)
}

// Decode decodes data, written by Append for a value of the type *v
// points to, into *v. Strings are copied; byte slices alias data. Bytes
// left over, or too few, are ErrMalformed.
func Decode(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		panic("wire: Decode needs a non-nil pointer")
	}
	r := &reader{b: data}
	codecFor(rv.Type().Elem()).dec(r, rv.Elem())
	if r.bad || len(r.b) != 0 {
		return ErrMalformed
	}
	return nil
}

func codecFor(t reflect.Type) *codec {
	mu.Lock()
	defer mu.Unlock()
	return compile(t)
}

// compile returns t's codec, making it (mu is held).
func compile(t reflect.Type) *codec {
	if c, ok := codecs[t]; ok {
		return c
	}
	c := &codec{}
	codecs[t] = c // before the elements: a recursive type finds itself
	switch t.Kind() {
	case reflect.Bool:
		c.enc, c.dec = encBool, decBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		c.enc, c.dec = encInt, decInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		c.enc, c.dec = encUint, decUint
	case reflect.Float32, reflect.Float64:
		c.enc, c.dec = encFloat, decFloat
	case reflect.String:
		c.enc, c.dec = encString, decString
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			c.enc, c.dec = encBytes, decBytes
		} else {
			sliceCodec(c, t)
		}
	case reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			byteArrayCodec(c, t.Len())
		} else {
			arrayCodec(c, t)
		}
	case reflect.Map:
		mapCodec(c, t)
	case reflect.Pointer:
		pointerCodec(c, t)
	case reflect.Struct:
		structCodec(c, t)
	default:
		panic(fmt.Sprintf("wire: cannot encode %s (%s)", t, t.Kind()))
	}
	return c
}

func encBool(b []byte, v reflect.Value) []byte {
	if v.Bool() {
		return append(b, 1)
	}
	return append(b, 0)
}

func decBool(r *reader, v reflect.Value) {
	x := r.byte()
	if x > 1 {
		r.bad = true
	}
	v.SetBool(x == 1)
}

func encInt(b []byte, v reflect.Value) []byte { return binary.AppendVarint(b, v.Int()) }

func decInt(r *reader, v reflect.Value) {
	x := r.varint()
	if v.OverflowInt(x) {
		r.bad = true
	}
	v.SetInt(x)
}

func encUint(b []byte, v reflect.Value) []byte { return binary.AppendUvarint(b, v.Uint()) }

func decUint(r *reader, v reflect.Value) {
	x := r.uvarint()
	if v.OverflowUint(x) {
		r.bad = true
	}
	v.SetUint(x)
}

func encFloat(b []byte, v reflect.Value) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float()))
}

func decFloat(r *reader, v reflect.Value) { v.SetFloat(math.Float64frombits(r.uint64())) }

func encString(b []byte, v reflect.Value) []byte {
	s := v.String()
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func decString(r *reader, v reflect.Value) { v.SetString(string(r.bytes(r.uvarint()))) }

func encBytes(b []byte, v reflect.Value) []byte {
	d := v.Bytes()
	return append(binary.AppendUvarint(b, uint64(len(d))), d...)
}

func decBytes(r *reader, v reflect.Value) {
	n := r.uvarint()
	if n == 0 {
		return // nil, as Append found it or an empty slice
	}
	v.SetBytes(r.bytes(n))
}

func sliceCodec(c *codec, t reflect.Type) {
	ec := compile(t.Elem())
	c.enc = func(b []byte, v reflect.Value) []byte {
		n := v.Len()
		b = binary.AppendUvarint(b, uint64(n))
		for i := 0; i < n; i++ {
			b = ec.enc(b, v.Index(i))
		}
		return b
	}
	c.dec = func(r *reader, v reflect.Value) {
		n := r.uvarint()
		if n == 0 {
			return
		}
		if n > uint64(len(r.b)) { // every element takes a byte at least
			r.bad = true
			return
		}
		s := reflect.MakeSlice(t, int(n), int(n))
		for i := 0; i < int(n) && !r.bad; i++ {
			ec.dec(r, s.Index(i))
		}
		v.Set(s)
	}
}

func byteArrayCodec(c *codec, n int) {
	c.enc = func(b []byte, v reflect.Value) []byte {
		if v.CanAddr() {
			return append(b, v.Slice(0, n).Bytes()...)
		}
		b = append(b, make([]byte, n)...)
		reflect.Copy(reflect.ValueOf(b[len(b)-n:]), v)
		return b
	}
	c.dec = func(r *reader, v reflect.Value) {
		d := r.bytes(uint64(n))
		if d != nil {
			reflect.Copy(v, reflect.ValueOf(d))
		}
	}
}

func arrayCodec(c *codec, t reflect.Type) {
	ec := compile(t.Elem())
	c.enc = func(b []byte, v reflect.Value) []byte {
		for i := 0; i < v.Len(); i++ {
			b = ec.enc(b, v.Index(i))
		}
		return b
	}
	c.dec = func(r *reader, v reflect.Value) {
		for i := 0; i < v.Len() && !r.bad; i++ {
			ec.dec(r, v.Index(i))
		}
	}
}

func mapCodec(c *codec, t reflect.Type) {
	kc, ec := compile(t.Key()), compile(t.Elem())
	c.enc = func(b []byte, v reflect.Value) []byte {
		if t.Key().Kind() == reflect.String {
			return encStringMap(b, v, ec)
		}
		keys := v.MapKeys()
		sortKeys(keys)
		b = binary.AppendUvarint(b, uint64(len(keys)))
		for _, k := range keys {
			b = kc.enc(b, k)
			b = ec.enc(b, v.MapIndex(k))
		}
		return b
	}
	c.dec = func(r *reader, v reflect.Value) {
		n := r.uvarint()
		if n == 0 {
			return // nil, as Append found it or an empty map
		}
		if n > uint64(len(r.b)) {
			r.bad = true
			return
		}
		m := reflect.MakeMapWithSize(t, int(n))
		k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
		for i := uint64(0); i < n && !r.bad; i++ {
			k.SetZero()
			e.SetZero()
			kc.dec(r, k)
			ec.dec(r, e)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	}
}

// encStringMap encodes a map with string keys in key order, its values
// copied once into one addressable slice (MapIndex copied each value on
// its own, and a byte array in it again).
func encStringMap(b []byte, v reflect.Value, ec *codec) []byte {
	n := v.Len()
	keys := make([]string, 0, n)
	vals := reflect.MakeSlice(reflect.SliceOf(v.Type().Elem()), n, n)
	for it := v.MapRange(); it.Next(); {
		vals.Index(len(keys)).SetIterValue(it)
		keys = append(keys, it.Key().String())
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return keys[order[i]] < keys[order[j]] })
	b = binary.AppendUvarint(b, uint64(n))
	for _, i := range order {
		b = append(binary.AppendUvarint(b, uint64(len(keys[i]))), keys[i]...)
		b = ec.enc(b, vals.Index(i))
	}
	return b
}

func pointerCodec(c *codec, t reflect.Type) {
	ec := compile(t.Elem())
	c.enc = func(b []byte, v reflect.Value) []byte {
		if v.IsNil() {
			return append(b, 0)
		}
		return ec.enc(append(b, 1), v.Elem())
	}
	c.dec = func(r *reader, v reflect.Value) {
		switch r.byte() {
		case 0:
		case 1:
			p := reflect.New(t.Elem())
			ec.dec(r, p.Elem())
			v.Set(p)
		default:
			r.bad = true
		}
	}
}

func structCodec(c *codec, t reflect.Type) {
	var fcs []*codec
	var idx []int
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if skipped(f) {
			continue
		}
		if !f.IsExported() {
			panic(fmt.Sprintf("wire: %s.%s is not exported: it could not be encoded (tag it wire:\"-\" if it is derived from the others)", t, f.Name))
		}
		fcs = append(fcs, compile(f.Type))
		idx = append(idx, i)
	}
	c.enc = func(b []byte, v reflect.Value) []byte {
		for i, fc := range fcs {
			b = fc.enc(b, v.Field(idx[i]))
		}
		return b
	}
	c.dec = func(r *reader, v reflect.Value) {
		for i, fc := range fcs {
			if r.bad {
				return
			}
			fc.dec(r, v.Field(idx[i]))
		}
	}
}

// skipped reports whether f is tagged wire:"-": derived from the other
// fields (an index, a cache), it is neither encoded nor part of the
// version; decoding leaves it zero.
func skipped(f reflect.StructField) bool { return f.Tag.Get("wire") == "-" }

// sortKeys orders a map's keys, so that equal maps encode alike.
func sortKeys(keys []reflect.Value) {
	if len(keys) == 0 {
		return
	}
	switch keys[0].Kind() {
	case reflect.String:
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		sort.Slice(keys, func(i, j int) bool { return keys[i].Int() < keys[j].Int() })
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		sort.Slice(keys, func(i, j int) bool { return keys[i].Uint() < keys[j].Uint() })
	default:
		// Other keys (arrays, structs) in the order of their encoding.
		enc := make(map[reflect.Value]string, len(keys))
		kc := codecs[keys[0].Type()]
		for _, k := range keys {
			enc[k] = string(kc.enc(nil, k))
		}
		sort.Slice(keys, func(i, j int) bool { return enc[keys[i]] < enc[keys[j]] })
	}
}

// reader reads what the codecs wrote; a short or malformed input sets bad.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) bytes(n uint64) []byte {
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if b := r.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *reader) uvarint() uint64 {
	v, k := binary.Uvarint(r.b)
	if k <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[k:]
	return v
}

func (r *reader) varint() int64 {
	v, k := binary.Varint(r.b)
	if k <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[k:]
	return v
}

func (r *reader) uint64() uint64 {
	if b := r.bytes(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}
