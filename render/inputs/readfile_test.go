package inputs

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
)

// TestReadIntoSame: readInto returns what os.ReadFile returns, bytes and
// error text, for files at the reused buffer's edges, a file read after a
// bigger one into the same buffer, and the files it cannot read; openFile
// opens (and fails) as os.Open does.
func TestReadIntoSame(t *testing.T) {
	dir := t.TempDir()
	var names []string
	for _, n := range []int{0, 1, 511, 512, 513, 64<<10 - 1, 64 << 10, 64<<10 + 1, 3<<20 + 7, 5} {
		name := filepath.Join(dir, fmt.Sprintf("f%d.json", n))
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i*7 + n)
		}
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "f5.json"), filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "none"), filepath.Join(dir, "dangling.json")); err != nil {
		t.Fatal(err)
	}
	names = append(names, dir, filepath.Join(dir, "missing.json"), filepath.Join(dir, "no", "such.json"),
		filepath.Join(dir, "file", "under.json"), filepath.Join(dir, "link.json"), filepath.Join(dir, "dangling.json"), "")
	buf := make([]byte, 0, 16)
	for _, name := range names {
		want, werr := os.ReadFile(name)
		got, gerr := ReadInto(name, buf[:0])
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || reflect.TypeOf(gerr) != reflect.TypeOf(werr) {
			t.Errorf("%s: error %v (%T), os.ReadFile's is %v (%T)", name, gerr, gerr, werr, werr)
		}
		if werr == nil && !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes differ from os.ReadFile's %d", name, len(got), len(want))
		}
		if gerr == nil {
			buf = got // reused, grown
		}
		// openFile opens what os.Open opens, and fails as it does.
		wf, werr := os.Open(name)
		gf, gerr := OpenFile(name)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || reflect.TypeOf(gerr) != reflect.TypeOf(werr) {
			t.Errorf("%s: openFile error %v (%T), os.Open's is %v (%T)", name, gerr, gerr, werr, werr)
		}
		if werr == nil && gerr == nil {
			if gf.Name() != wf.Name() {
				t.Errorf("%s: openFile named it %q", name, gf.Name())
			}
			wfi, _ := wf.Stat()
			gfi, _ := gf.Stat()
			if !os.SameFile(wfi, gfi) {
				t.Errorf("%s: openFile opened another file", name)
			}
			wd, werr := io.ReadAll(wf)
			gd, gerr := io.ReadAll(gf)
			if !bytes.Equal(gd, wd) || fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Errorf("%s: read through openFile: %d bytes, %v; os.Open: %d bytes, %v", name, len(gd), gerr, len(wd), werr)
			}
			if wfi.IsDir() {
				wf.Seek(0, io.SeekStart)
				we, _ := wf.ReadDir(-1)
				ge, err := gf.ReadDir(-1)
				if err != nil || len(ge) != len(we) || len(ge) < 10 {
					t.Errorf("%s: ReadDir through openFile: %d entries, %v; os.Open: %d", name, len(ge), err, len(we))
				}
			}
			wf.Close()
			if err := gf.Close(); err != nil {
				t.Errorf("%s: close: %v", name, err)
			}
		}
	}
	if cap(buf) < 3<<20 {
		t.Errorf("the buffer was not reused (cap %d)", cap(buf))
	}
}

// oldResultFiles is Load's listing of a results directory before the flat
// case was read in one go: os.Stat, then filepath.WalkDir.
func oldResultFiles(dir string) ([]string, bool, error) {
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		return nil, false, nil
	}
	files, err := walkFiles(dir, ".json")
	return files, true, err
}

// TestResultFilesSame: Reader.Files lists what os.Stat and filepath.WalkDir
// did (files, whether the directory is there, the error's text) for flat
// directories, nested and hidden ones, links, files in the directory's
// place and missing names.
func TestResultFilesSame(t *testing.T) {
	root := t.TempDir()
	mk := func(rel, data string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
	}
	mk("flat/b.json", "{}")
	mk("flat/a.json", "{}")
	mk("flat/.a.json.tmp-1", "")
	mk("flat/.hidden.json", "{}")
	mk("flat/notes.txt", "")
	mk("flat/.git/x.json", "{}")
	mk("nested/a.json", "{}")
	mk("nested/sub/c.json", "{}")
	mk("nested/sub/.d.json", "{}")
	mk("nested/.tmp/e.json", "{}")
	mk("nested/z.json/f.json", "{}") // a directory named *.json
	mk("empty/.keep", "")
	mk("file.json", "{}")
	mk("file", "")
	mk("links/a.json", "{}")
	link(filepath.Join(root, "flat"), "linkdir")
	link(filepath.Join(root, "nothing"), "dangling")
	link(filepath.Join(root, "flat", "a.json"), "links/l.json")
	link(filepath.Join(root, "flat"), "links/d.json")
	link(filepath.Join(root, "nothing"), "links/x.json")
	mk("trailing/a.json", "{}")
	cases := []string{"flat", "nested", "empty", "file.json", "file", "links", "linkdir", "dangling", "missing",
		"missing/deeper", "file/under", "trailing/", "./flat", "nested/sub", "nested/.tmp"}
	for _, c := range cases {
		dir := filepath.Join(root, filepath.FromSlash(c))
		if c == "trailing/" {
			dir += "/"
		}
		for _, d := range []string{dir, filepath.ToSlash(dir)} {
			gf, gfound, gerr := NewReader(nil).Files(d, ".json")
			wf, wfound, werr := oldResultFiles(d)
			sort.Strings(wf)
			if !reflect.DeepEqual(gf, wf) || gfound != wfound || fmt.Sprint(gerr) != fmt.Sprint(werr) {
				t.Errorf("%s: Files = %q, %v, %v; before: %q, %v, %v", c, gf, gfound, gerr, wf, wfound, werr)
			}
		}
	}
	// The flat case is taken where it should be (and lists the same).
	if files, ok := flatFiles(filepath.Join(root, "flat"), ".json"); !ok || len(files) != 2 {
		t.Errorf("flat: flatFiles = %q, %v", files, ok)
	}
	if _, ok := flatFiles(filepath.Join(root, "nested"), ".json"); ok {
		t.Error("nested: flatFiles took a directory with a subdirectory")
	}
}

// TestReadIntoGrows: ReadInto into a nil buffer makes room in steps of
// at least minGrow, doubling: a 40 KB file is three buffers (16, 32 and
// 64 KB), not append's dozen from 8 bytes on.
func TestReadIntoGrows(t *testing.T) {
	name := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(name, bytes.Repeat([]byte("x"), 40<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(10, func() {
		if b, err := ReadInto(name, nil); err != nil || len(b) != 40<<10 {
			t.Fatalf("%d bytes, %v", len(b), err)
		}
	})
	if allocs > 4 {
		t.Errorf("%v allocations to read 40 KB into a nil buffer, want at most 4", allocs)
	}
}
