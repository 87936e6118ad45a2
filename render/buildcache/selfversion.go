package buildcache

import (
	"bytes"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// SelfVersion identifies the perflab build that renders: the Go build ID
// of the running executable (it hashes the link's inputs and its output,
// so two builds of the same source with the same toolchain and flags,
// such as two `go run ./cmd/perflab` or `make build`, share it, and any
// change to the code changes it), else the SHA-256 of the executable's
// bytes. It is computed once a process.
func SelfVersion() string {
	selfOnce.Do(func() {
		exe, err := os.Executable()
		if err == nil {
			if id := ExeBuildID(exe); id != "" {
				self = "buildid " + id
				return
			}
			if f, err := os.Open(exe); err == nil {
				h := sha256.New()
				_, err = io.Copy(h, f)
				f.Close()
				if err == nil {
					self = "sha256 " + hex.EncodeToString(h.Sum(nil))
					return
				}
			}
		}
		// Nothing identifies this build: a key no other process makes.
		self = fmt.Sprintf("pid %d %p", os.Getpid(), &self)
	})
	return self
}

// ExeBuildID returns the Go build ID recorded in the executable at path,
// or "" when it has none (built with -buildid=) or cannot be read. The
// standard library has no reader for it (cmd/internal/buildid is
// internal), so this reads the two places the Go linker puts it: an ELF
// note named "Go\x00\x00" of type 4 in the section .note.go.buildid, and, on
// other formats, a `\xff Go build ID: "…"` line near the start of the
// text segment.
func ExeBuildID(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if ef, err := elf.NewFile(f); err == nil {
		s := ef.Section(".note.go.buildid")
		if s == nil {
			return ""
		}
		data, err := s.Data()
		if err != nil || len(data) < 16 {
			return ""
		}
		bo := ef.ByteOrder
		namesz, descsz, typ := bo.Uint32(data), bo.Uint32(data[4:]), bo.Uint32(data[8:])
		if namesz != 4 || typ != 4 || uint64(len(data)) < 16+uint64(descsz) || string(data[12:16]) != "Go\x00\x00" {
			return ""
		}
		return string(data[16 : 16+descsz])
	}
	head := make([]byte, 32<<10)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	const prefix = "\xff Go build ID: \""
	i := bytes.Index(head, []byte(prefix))
	if i < 0 {
		return ""
	}
	rest := head[i+len(prefix):]
	j := bytes.IndexByte(rest, '"')
	if j <= 0 {
		return ""
	}
	return string(rest[:j])
}
