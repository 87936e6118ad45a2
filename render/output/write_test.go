package output

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteOutput: writeOutput leaves the bytes os.WriteFile leaves (a
// longer file it replaces is truncated) with the same mode, and fails as
// os.WriteFile fails, in the same words.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.html")
	if err := os.WriteFile(p, []byte(strings.Repeat("old ", 1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	big := []byte(strings.Repeat("<p>new</p>\n", 100_000)) // 1.1 MB: more than one write may take
	for _, data := range [][]byte{[]byte("short"), big, nil} {
		if err := WriteFile(p, data); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != string(data) {
			t.Fatalf("%d bytes written, %d read back", len(data), len(got))
		}
	}
	q, r := filepath.Join(dir, "b.html"), filepath.Join(dir, "c.html")
	if err := WriteFile(q, big); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r, big, 0o644); err != nil {
		t.Fatal(err)
	}
	sq, _ := os.Stat(q)
	sr, _ := os.Stat(r)
	if sq.Mode() != sr.Mode() {
		t.Errorf("mode %v, os.WriteFile's %v", sq.Mode(), sr.Mode())
	}
	for _, bad := range []string{filepath.Join(dir, "missing", "x.html"), filepath.Join(p, "x.html"), dir} {
		got, want := WriteFile(bad, big), os.WriteFile(bad, big, 0o644)
		if got == nil || want == nil || got.Error() != want.Error() {
			t.Errorf("%s: %v, os.WriteFile: %v", bad, got, want)
		}
	}
}

// TestMakeDir: makeDir makes a directory whose parent exists, and its
// missing parents; an existing directory is no error; a file in the way
// fails as os.MkdirAll does.
func TestMakeDir(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a", "a/b", "c/d/e", "c/d/e"} {
		p := filepath.Join(dir, filepath.FromSlash(d))
		if err := MakeDir(p); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			t.Fatalf("%s: not made", d)
		}
	}
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, filepath.Join(file, "x")} {
		got, want := MakeDir(p), os.MkdirAll(p, 0o755)
		if got == nil || want == nil || got.Error() != want.Error() {
			t.Errorf("%s: %v, os.MkdirAll: %v", p, got, want)
		}
	}
}
