package main

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite README.md's generated bench flag list")

// TestREADMEBenchFlags: README's flag list of `perflab bench` is the
// table's (collect/benchflags), between its markers; -update rewrites it.
func TestREADMEBenchFlags(t *testing.T) {
	const begin, end = "<!-- bench-flags:begin (generated from collect/benchflags: go test ./cmd/perflab -run READMEBenchFlags -update) -->\n", "<!-- bench-flags:end -->\n"
	path := "../../README.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("README.md lacks the markers %q … %q", begin, end)
	}
	var want bytes.Buffer
	if err := benchTable.WriteMarkdown(&want); err != nil {
		t.Fatal(err)
	}
	got := s[i+len(begin) : j]
	if got == want.String() {
		return
	}
	if *update {
		out := s[:i+len(begin)] + want.String() + s[j:]
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("README.md's bench flag list differs from the table; run go test ./cmd/perflab -run READMEBenchFlags -update")
}
