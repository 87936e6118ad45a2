//go:build !linux

package output

import "os"

// retainSupported: elsewhere a build links every file into a new
// directory and removes the old site (the tree is read on Linux alone:
// retain_linux.go).
const retainSupported = false

func takeRetained(string) (*retained, error) { return nil, nil }

// dropRetained removes the tree kept at dir (a Linux build's).
func dropRetained(dir string) { os.RemoveAll(dir) }

func replaceFile(name string, data []byte) error { return WriteFile(name, data) }

func makeDirOver(name string, _ func() error) error { return MakeDir(name) }
