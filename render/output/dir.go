package output

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// File is one output file.
type File struct {
	Path string // slash-separated, relative to the output directory
	Data []byte
}

// MakeBuildDir makes the temporary directory a build of out renders
// into, beside out (the swap renames it), marked as the top of a tree
// (topdir_linux.go).
func MakeBuildDir(out string) (string, error) {
	tmp, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".build-*")
	if err == nil {
		SpreadTree(tmp)
	}
	return tmp, err
}

// RemoveLeftovers removes the build directories of out (MakeBuildDir's,
// and the old sites SwapAside moved aside, the retained tree's too)
// that a killed build left beside it; each can be a whole site. The
// retained tree itself stays (stage.go). Only a caller that keeps every
// other build of out from running (Lock) may call it.
func RemoveLeftovers(out string) {
	os.RemoveAll(RetainedDir(out) + ".old")
	prefix := "." + filepath.Base(out) + ".build-"
	entries, err := os.ReadDir(filepath.Dir(out))
	if err != nil {
		return
	}
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() {
			continue
		}
		name = strings.TrimSuffix(name, ".old")
		if name == "" || strings.Trim(name, "0123456789") != "" {
			continue // not a name MkdirTemp gave: someone else's
		}
		os.RemoveAll(filepath.Join(filepath.Dir(out), e.Name()))
	}
}

// Swap replaces dir out with dir tmp using renames: out moves aside, tmp
// takes its place, the old copy is removed.
func Swap(tmp, out string) error {
	old, err := SwapAside(tmp, out)
	if err != nil {
		return err
	}
	return RemoveOld(old)
}

// SwapAside is swap but for the removal: it returns the directory the
// old out was moved to ("" when there was none): tmp itself where the
// two were exchanged in one step (exchange), else tmp + ".old".
func SwapAside(tmp, out string) (old string, err error) {
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", fmt.Errorf("output: swap: %w", err)
	}
	if _, err := os.Lstat(out); err == nil {
		// One step where the system allows: a build killed between the
		// two renames below left no out (the old site beside it).
		if done, err := exchange(tmp, out); err != nil {
			return "", fmt.Errorf("output: swap: %w", err)
		} else if done {
			return tmp, nil
		}
		old = tmp + ".old"
		if err := os.Rename(out, old); err != nil {
			return "", fmt.Errorf("output: swap: %w", err)
		}
	}
	if err := os.Rename(tmp, out); err != nil {
		if old != "" {
			_ = os.Rename(old, out)
		}
		return "", fmt.Errorf("output: swap: %w", err)
	}
	return old, nil
}

// RemoveOld removes the old site SwapAside moved aside.
func RemoveOld(old string) error {
	if old == "" {
		return nil
	}
	if err := os.RemoveAll(old); err != nil {
		return fmt.Errorf("output: swap: remove old site: %w", err)
	}
	return nil
}

// WriteInPlace writes files into dir, each through a temporary file and a
// rename, so no reader sees half a file, and returns how many it wrote: a
// file already there with the same bytes is left alone.
func WriteInPlace(dir string, files []File) (int, error) {
	n := 0
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, f.Data) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return n, fmt.Errorf("output: %w", err)
		}
		tmp, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp-*")
		if err != nil {
			return n, fmt.Errorf("output: %w", err)
		}
		_, werr := tmp.Write(f.Data)
		cerr := tmp.Close()
		if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o644)); err != nil {
			os.Remove(tmp.Name())
			return n, fmt.Errorf("output: %w", err)
		}
		if err := os.Rename(tmp.Name(), p); err != nil {
			os.Remove(tmp.Name())
			return n, fmt.Errorf("output: %w", err)
		}
		n++
	}
	return n, nil
}
