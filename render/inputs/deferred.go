package inputs

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
)

// Deferred is what a caller keeps of a file's bytes (after a cut it
// makes, such as taking off a front matter): read already, or, for a
// file whose recorded identity vouched for it (Memo), read on first use
// and checked against the sum the work's key was made from. The bytes
// are reachable only through Bytes, so no caller can take an unread
// file's nil for its content.
type Deferred struct {
	name string
	sum  [32]byte
	cut  func([]byte) ([]byte, error)
	once sync.Once
	done atomic.Bool
	data []byte
	err  error
}

// Loaded is a Deferred for bytes already read (and cut).
func Loaded(data []byte) *Deferred {
	d := &Deferred{data: data}
	d.once.Do(func() {})
	d.done.Store(true)
	return d
}

// Later is a Deferred for the file name, to be read on first use: its
// bytes must still hash to sum, and are then cut.
func Later(name string, sum [32]byte, cut func([]byte) ([]byte, error)) *Deferred {
	return &Deferred{name: name, sum: sum, cut: cut}
}

// Bytes returns the bytes, reading them first if need be; a file changed
// since its sum was taken is an error (the work's key was made from the
// old bytes), as is one that cannot be read.
func (d *Deferred) Bytes() ([]byte, error) {
	d.once.Do(func() {
		data, err := os.ReadFile(d.name)
		if err == nil && sha256.Sum256(data) != d.sum {
			err = errors.New("changed during the build; build again")
		}
		if err == nil {
			data, err = d.cut(data)
		}
		if err != nil {
			d.err = fmt.Errorf("load: %s: %w", d.name, err)
			return
		}
		d.data = data
	})
	d.done.Store(true)
	return d.data, d.err
}

// InMemory reports whether the bytes have been read.
func (d *Deferred) InMemory() bool { return d.done.Load() }
