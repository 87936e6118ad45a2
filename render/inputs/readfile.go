package inputs

import (
	"slices"
	"sync"
)

// Load reads some 14,000 result files for a site of 1,000 reports, and
// drops their bytes once decoded (schema.Unmarshal copies every string out
// of them; the Result types hold no raw JSON). os.ReadFile allocated a
// fresh buffer for each (cleared by the runtime, then garbage) and made
// ten system calls on Linux (open, four fcntl and an epoll_ctl the kernel
// refuses for a regular file, fstat to size the buffer, two reads,
// close). ReadInto reads into a buffer kept between files, with open,
// read until the end and close alone where the platform allows
// (readfile_linux.go): 14,000 fresh buffers and 84,000 system calls fewer.

// bufs are buffers for ReadInto (GetBuf, PutBuf), one per loading goroutine at a time.
var bufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// PutBuf gives a buffer from GetBuf back, unless a huge file made it
// huge.
func PutBuf(b *[]byte) {
	if cap(*b) <= 1<<20 {
		*b = (*b)[:0]
		bufs.Put(b)
	}
}

// GetBuf lends a buffer for ReadInto; give it back with PutBuf.
func GetBuf() *[]byte { return bufs.Get().(*[]byte) }

// minGrow is the least room ReadInto makes when buf is full: append's
// growth starts at 8 bytes, and a round's files read into a nil buffer
// (render/roundload, before it borrowed one) took a dozen reads and as
// many buffers each.
const minGrow = 16 << 10

// grow makes room in the full buf: its length again, at least minGrow.
func grow(buf []byte) []byte { return slices.Grow(buf, max(len(buf), minGrow)) }
