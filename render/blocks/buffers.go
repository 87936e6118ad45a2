package blocks

import (
	"bytes"
	"sync"
)

// Buffers lends the byte buffers that templates and the cache encode
// into. Each page's body, layout and blocks grew fresh buffers by
// doubling: 0.7 GB of a cold 1,000-report build's 2 GB of allocations,
// and much of its garbage collection. What a buffer holds is copied out
// (a string, or a slice of the exact size) before it is given back. A nil
// *Buffers lends fresh ones.
type Buffers struct{ pool sync.Pool }

func (b *Buffers) Get() *bytes.Buffer {
	if b == nil {
		return new(bytes.Buffer)
	}
	if v, ok := b.pool.Get().(*bytes.Buffer); ok {
		return v
	}
	return new(bytes.Buffer)
}

// Put gives buf back; a buffer grown past 4 MB (an outsized page) is left
// to the collector rather than kept.
func (b *Buffers) Put(buf *bytes.Buffer) {
	if b == nil || buf.Cap() > 4<<20 {
		return
	}
	buf.Reset()
	b.pool.Put(buf)
}
