//go:build !linux

package inputs

import (
	"errors"
	"io"
	"os"
)

// OpenFile is os.Open.
func OpenFile(name string) (*os.File, error) { return os.Open(name) }

// ReadInto appends the bytes of the file name to buf, as os.ReadFile reads
// them (same errors) but into buf.
func ReadInto(name string, buf []byte) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	for {
		if len(buf) == cap(buf) {
			buf = grow(buf)
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
