package render

import (
	"github.com/perflab/perflab/render/inputs"

	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSiteStamp changes one thing after two builds of the fixture site
// (the second leaves --out alone and stamps it) and checks that the
// third build takes the stamp's fast path exactly when nothing changed,
// and that --out is then byte-identical to a cold build of the same
// inputs.
func TestSiteStamp(t *testing.T) {
	about := func(dir string) string { return filepath.Join(dir, "content", "about.md") }
	resDir := func(dir string) string { return filepath.Join(dir, "results", "demo-h100") }
	const oneResult = "vllm-fp8--long.json"
	// The blocks page needs the demo's results: cases that take them
	// away take it away first.
	noBlocks := func(t *testing.T, dir string) {
		if err := os.RemoveAll(filepath.Join(dir, "content", "demo", "blocks")); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name   string
		setup  func(t *testing.T, dir string) // before the first build
		change func(t *testing.T, dir, out string, opt *Options)
		fast   bool
		// warnings is how many warnings every build gives.
		warnings int
	}{
		{name: "unchanged", fast: true},
		{name: "unchanged with a draft", setup: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "content", "draft.md"), "---\ndraft: true\n---\n# Draft\n")
		}, fast: true},
		{name: "draft published", setup: func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "content", "draft.md"), "---\ndraft: true\n---\n# Draft\n")
		}, change: func(t *testing.T, dir, out string, opt *Options) {
			writeFile(t, filepath.Join(dir, "content", "draft.md"), "---\ndraft: false\n---\n# Draft\n")
		}},
		{name: "new result in a results dir", setup: func(t *testing.T, dir string) {
			rename(t, filepath.Join(resDir(dir), oneResult), filepath.Join(dir, oneResult))
		}, change: func(t *testing.T, dir, out string, opt *Options) {
			rename(t, filepath.Join(dir, oneResult), filepath.Join(resDir(dir), oneResult))
		}},
		{name: "result deleted", change: func(t *testing.T, dir, out string, opt *Options) {
			remove(t, filepath.Join(resDir(dir), oneResult))
		}},
		{name: "new results dir", setup: func(t *testing.T, dir string) {
			noBlocks(t, dir)
			rename(t, resDir(dir), filepath.Join(dir, "spare"))
		}, change: func(t *testing.T, dir, out string, opt *Options) {
			rename(t, filepath.Join(dir, "spare"), resDir(dir))
		}},
		{name: "campaign moves its results", setup: noBlocks, change: func(t *testing.T, dir, out string, opt *Options) {
			f := filepath.Join(dir, "content", "demo", "h100", "campaign.yaml")
			writeFile(t, f, readFile(t, f)+"results: moved\n")
		}},
		{name: "symlinked results dir", setup: func(t *testing.T, dir string) {
			noBlocks(t, dir)
			rename(t, resDir(dir), filepath.Join(dir, "real"))
			if err := os.Symlink(filepath.Join(dir, "real"), resDir(dir)); err != nil {
				t.Skip(err)
			}
		}}, // never stamped: a linked results directory is walked
		{name: "unchanged with a stale result", setup: func(t *testing.T, dir string) {
			// A repeat the campaign does not define: left out, with a
			// warning the fast path must repeat.
			b := readFile(t, filepath.Join(resDir(dir), "vllm-base--long.json"))
			writeFile(t, filepath.Join(resDir(dir), "vllm-base--long-r4.json"), strings.Replace(strings.Replace(b, "{", `{"repeat": 3,`, 1), `"name": "vllm bench serve"`, `"name": "perflab bench"`, 1))
		}, fast: true, warnings: 2}, // the report and the blocks page
		{name: "new page", change: func(t *testing.T, dir, out string, opt *Options) {
			writeFile(t, filepath.Join(dir, "content", "new.md"), "# New\n")
		}},
		{name: "new bundle", change: func(t *testing.T, dir, out string, opt *Options) {
			if err := os.MkdirAll(filepath.Join(dir, "content", "extra", "page"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, "content", "extra", "page", "index.md"), "# Extra\n")
		}},
		{name: "new static file", change: func(t *testing.T, dir, out string, opt *Options) {
			writeFile(t, filepath.Join(dir, "content", "demo", "note.txt"), "note\n")
		}},
		{name: "page deleted", change: func(t *testing.T, dir, out string, opt *Options) {
			remove(t, about(dir))
		}},
		{name: "same size, mtime put back", change: func(t *testing.T, dir, out string, opt *Options) {
			fi, err := os.Stat(about(dir))
			if err != nil {
				t.Fatal(err)
			}
			b := []byte(readFile(t, about(dir)))
			b[2] = 'X' // "# About" → "# XBout"
			writeFile(t, about(dir), string(b))
			if err := os.Chtimes(about(dir), fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "replaced by rename", change: func(t *testing.T, dir, out string, opt *Options) {
			fi, err := os.Stat(about(dir))
			if err != nil {
				t.Fatal(err)
			}
			b := []byte(readFile(t, about(dir)))
			b[3] = 'X'
			tmp := filepath.Join(dir, "about.tmp")
			writeFile(t, tmp, string(b))
			if err := os.Chtimes(tmp, fi.ModTime(), fi.ModTime()); err != nil {
				t.Fatal(err)
			}
			rename(t, tmp, about(dir))
		}},
		{name: "output deleted", change: func(t *testing.T, dir, out string, opt *Options) {
			remove(t, filepath.Join(out, "about", "index.html"))
		}},
		{name: "output edited", change: func(t *testing.T, dir, out string, opt *Options) {
			writeFile(t, filepath.Join(out, "about", "index.html"), "defaced")
		}},
		{name: "stray output", change: func(t *testing.T, dir, out string, opt *Options) {
			writeFile(t, filepath.Join(out, "demo", "stray.html"), "stray")
		}},
		{name: "base URL", change: func(t *testing.T, dir, out string, opt *Options) {
			opt.BaseURL = "/perflab/"
		}},
		{name: "templates dir", change: func(t *testing.T, dir, out string, opt *Options) {
			opt.TemplatesDir = filepath.Join("..", "templates")
		}},
		{name: "cache deleted", change: func(t *testing.T, dir, out string, opt *Options) {
			if err := os.RemoveAll(opt.CacheDir); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "stamp damaged", change: func(t *testing.T, dir, out string, opt *Options) {
			p := stampPath(opt.withDefaults(), absOut(opt.withDefaults()))
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 1
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := copyFixture(t)
			if c.setup != nil {
				c.setup(t, dir)
			}
			out := filepath.Join(dir, "site")
			opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: out, CacheDir: filepath.Join(dir, "cache")}
			var last Stats
			for i := 0; i < 2; i++ {
				settle()
				st, err := BuildStats(context.Background(), opt)
				if err != nil {
					t.Fatal(err)
				}
				if st.Unchanged {
					t.Fatalf("build %d took the stamp's fast path", i+1)
				}
				if len(st.Warnings) != c.warnings {
					t.Fatalf("build %d warned %q; want %d warning(s)", i+1, st.Warnings, c.warnings)
				}
				last = st
			}
			if c.change != nil {
				c.change(t, dir, out, &opt)
			}
			settle()
			st, err := BuildStats(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			if st.Unchanged != c.fast {
				t.Fatalf("fast path taken: %v, want %v", st.Unchanged, c.fast)
			}
			if c.fast {
				st.Unchanged = false
				if !sameStats(st, last) {
					t.Errorf("fast path reported %+v, the last build %+v", st, last)
				}
			}
			cold := opt
			cold.Out, cold.NoCache = filepath.Join(t.TempDir(), "site"), true
			cst, err := BuildStats(context.Background(), cold)
			if err != nil {
				t.Fatal(err)
			}
			if st.Pages != cst.Pages || st.Reports != cst.Reports || st.Files != cst.Files {
				t.Errorf("build reported %d pages, %d reports, %d files; a cold build %d, %d, %d", st.Pages, st.Reports, st.Files, cst.Pages, cst.Reports, cst.Files)
			}
			sameTree(t, c.name, out, cold.Out)
		})
	}
}

// TestSiteStampFires checks that an unchanged site is stamped by its
// second build and that every later build takes the fast path, touching
// neither --out nor the cache.
func TestSiteStampFires(t *testing.T) {
	dir := copyFixture(t)
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site"), CacheDir: filepath.Join(dir, "cache")}
	var fast int
	for i := 0; i < 4; i++ {
		settle()
		st, err := BuildStats(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if st.Unchanged {
			fast++
		}
	}
	if fast != 2 {
		t.Fatalf("%d of 4 builds took the fast path; want the 3rd and 4th", fast)
	}
	before := dirIDs(t, dir)
	settle()
	if st, err := BuildStats(context.Background(), opt); err != nil || !st.Unchanged {
		t.Fatalf("5th build: fast %v, %v", st.Unchanged, err)
	}
	if after := dirIDs(t, dir); after != before {
		t.Errorf("the fast path changed files:\n%s\nthen\n%s", before, after)
	}
}

// TestStampCodec round-trips a stamp and refuses damaged ones.
func TestStampCodec(t *testing.T) {
	st := Stats{Pages: 3, Reports: 1, Files: 9, Cached: 2, LaidOut: 1, Warnings: []string{"a: 1 result(s)", "b"}}
	es := []stampEntry{{Name: "c/x.md", Kind: stampStat, ID: inputs.ID{Size: 1, MTime: 2, CTime: 3, Ino: 4, Dev: 5}}, {Name: "r/none", Kind: stampAbsent}, {Name: "out", Kind: stampLstat, ID: inputs.ID{Size: 6}}}
	b := encodeStamp("key", st, es)
	key, gst, ges, ok := decodeStamp(b)
	if !ok || key != "key" || !sameStats(gst, st) || len(ges) != len(es) {
		t.Fatalf("decoded %q %+v %+v %v", key, gst, ges, ok)
	}
	for i := range es {
		if ges[i] != es[i] {
			t.Errorf("entry %d: %+v, want %+v", i, ges[i], es[i])
		}
	}
	for i := range b {
		d := bytes.Clone(b)
		d[i] ^= 0x40
		if _, _, _, ok := decodeStamp(d); ok {
			t.Fatalf("a stamp damaged at byte %d decoded", i)
		}
	}
	if _, _, _, ok := decodeStamp(b[:len(b)-1]); ok {
		t.Fatal("a short stamp decoded")
	}
}

func sameStats(a, b Stats) bool {
	if len(a.Warnings) != len(b.Warnings) {
		return false
	}
	for i := range a.Warnings {
		if a.Warnings[i] != b.Warnings[i] {
			return false
		}
	}
	return a.Pages == b.Pages && a.Reports == b.Reports && a.Files == b.Files && a.Cached == b.Cached && a.LaidOut == b.LaidOut && a.Unchanged == b.Unchanged
}

// settle waits past the file system's timestamp tick, so that the next
// build's start is later than every change made so far (a change in the
// same tick is racy: the build would not stamp the site).
func settle() { time.Sleep(30 * time.Millisecond) }

func rename(t *testing.T, a, b string) {
	t.Helper()
	if err := os.Rename(a, b); err != nil {
		t.Fatal(err)
	}
}

func remove(t *testing.T, p string) {
	t.Helper()
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
}

// dirIDs lists every path below dir with its identity.
func dirIDs(t *testing.T, dir string) string {
	t.Helper()
	var b bytes.Buffer
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		id, _ := inputs.StatID(fi)
		b.WriteString(p)
		b.WriteString(" ")
		b.WriteString(fi.Mode().String())
		b.WriteString(" ")
		b.WriteString(time.Unix(0, id.CTime).String() + time.Unix(0, id.MTime).String())
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
