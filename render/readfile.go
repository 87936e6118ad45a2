package render

import "sync"

// Load reads some 14,000 result files for a site of 1,000 reports, and
// drops their bytes once decoded (schema.Unmarshal copies every string out
// of them; the Result types hold no raw JSON). os.ReadFile allocated a
// fresh buffer for each (cleared by the runtime, then garbage) and made
// ten system calls on Linux (open, four fcntl and an epoll_ctl the kernel
// refuses for a regular file, fstat to size the buffer, two reads,
// close). readInto reads into a buffer kept between files, with open,
// read until the end and close alone where the platform allows
// (readfile_linux.go): 14,000 fresh buffers and 84,000 system calls fewer.

// readBufs are buffers for readInto, one per loading goroutine at a time.
var readBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// putReadBuf gives a buffer from readBufs back, unless a huge file made it
// huge.
func putReadBuf(b *[]byte) {
	if cap(*b) <= 1<<20 {
		*b = (*b)[:0]
		readBufs.Put(b)
	}
}
