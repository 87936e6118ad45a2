package render

import (
	"bytes"
	"encoding/binary"
	"errors"
	"html/template"
)

// A cache entry is written as its fields one after another, each string
// or byte slice as a uvarint length and its bytes, the Charts flag as one
// byte, the files as a count then path and data each. gob spent a tenth
// of a cold 1,000-report build's allocations (its own buffer, grown by
// doubling, for 106 MB of entries) and reflection on the same few
// fields; this format is written into a lent buffer and read without
// reflection. A truncated or malformed entry reads as an error (a miss).

func appendField(b *bytes.Buffer, s string) {
	var n [binary.MaxVarintLen64]byte
	b.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
	b.WriteString(s)
}

func appendBytes(b *bytes.Buffer, d []byte) {
	var n [binary.MaxVarintLen64]byte
	b.Write(n[:binary.PutUvarint(n[:], uint64(len(d)))])
	b.Write(d)
}

// encodeEntry writes e into b.
func encodeEntry(b *bytes.Buffer, e *cacheEntry) {
	size := len(e.Page.Body) + len(e.Search.Text) + 256
	for _, f := range e.Files {
		size += len(f.Path) + len(f.Data) + 16
	}
	b.Grow(size)
	for _, s := range []string{e.Page.Title, e.Page.Description, string(e.Page.Body),
		e.Search.Title, e.Search.URL, e.Search.Tags, e.Search.Text} {
		appendField(b, s)
	}
	if e.Page.Charts {
		b.WriteByte(1)
	} else {
		b.WriteByte(0)
	}
	var n [binary.MaxVarintLen64]byte
	b.Write(n[:binary.PutUvarint(n[:], uint64(len(e.Files)))])
	for _, f := range e.Files {
		appendField(b, f.Path)
		appendBytes(b, f.Data)
	}
}

var errEntry = errors.New("malformed cache entry")

// entryReader reads what encodeEntry wrote.
type entryReader struct {
	data []byte
	err  error
}

func (r *entryReader) bytes() []byte {
	n, k := binary.Uvarint(r.data)
	if r.err != nil || k <= 0 || n > uint64(len(r.data)-k) {
		r.err = errEntry
		return nil
	}
	b := r.data[k : k+int(n)]
	r.data = r.data[k+int(n):]
	return b
}

func (r *entryReader) string() string { return string(r.bytes()) }

// decodeEntry reads an entry written by encodeEntry.
func decodeEntry(data []byte) (*cacheEntry, error) {
	r := &entryReader{data: data}
	e := &cacheEntry{}
	e.Page.Title, e.Page.Description, e.Page.Body = r.string(), r.string(), template.HTML(r.string())
	e.Search.Title, e.Search.URL, e.Search.Tags, e.Search.Text = r.string(), r.string(), r.string(), r.string()
	if r.err != nil || len(r.data) == 0 || r.data[0] > 1 {
		return nil, errEntry
	}
	e.Page.Charts = r.data[0] == 1
	r.data = r.data[1:]
	n, k := binary.Uvarint(r.data)
	if k <= 0 || n > uint64(len(r.data)) {
		return nil, errEntry
	}
	r.data = r.data[k:]
	for i := uint64(0); i < n; i++ {
		p := r.string()
		d := r.bytes() // data is the entry's own copy
		if r.err != nil {
			return nil, r.err
		}
		e.Files = append(e.Files, File{Path: p, Data: d})
	}
	if len(r.data) != 0 {
		return nil, errEntry
	}
	return e, nil
}
