package render

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// TestStampEditedDuringBuild: an input edited while the stamping build
// runs (after the build read it, before the stamp is written; same
// size, modification time put back) never lets the next build stop at
// the stamp, whether the build read the file (a page, the latest
// round's results) or took it from the round cache by its identity (an
// older round's results, inputs.Reader.KnownAs: the stamp records the
// identity taken then rather than stat'ing the file again).
func TestStampEditedDuringBuild(t *testing.T) {
	cases := []struct {
		name string
		file func(t *testing.T, opt Options, res string) string
	}{
		{name: "page", file: func(t *testing.T, opt Options, res string) string {
			return filepath.Join(opt.Content, "model-0000", "h100", "index.md")
		}},
		{name: "latest round's result", file: func(t *testing.T, opt Options, res string) string {
			return roundResult(t, res, "r004")
		}},
		{name: "older round's result", file: func(t *testing.T, opt Options, res string) string {
			return roundResult(t, res, "r002")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opt, res := roundsSite(t)
			f := c.file(t, opt, res)
			settle()
			if err := Build(context.Background(), opt); err != nil { // changes --out: no stamp
				t.Fatal(err)
			}
			edited := false
			testHookBeforeStamp = func() {
				if !edited {
					edited = true
					editFile(t, f)
				}
			}
			defer func() { testHookBeforeStamp = nil }()
			settle()
			if st, err := BuildStats(context.Background(), opt); err != nil || st.Unchanged {
				t.Fatalf("2nd build: fast path %v, %v; want a build", st.Unchanged, err)
			}
			testHookBeforeStamp = nil
			if !edited {
				t.Fatal("the 2nd build did not come to the stamp")
			}
			settle()
			st, err := BuildStats(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			if st.Unchanged {
				t.Fatal("the build after an edit made during the stamping build stopped at the stamp")
			}
			sameTree(t, c.name, opt.Out, buildCold(t, opt))
		})
	}
}

// TestStampEditedAfter: the build right after a changing build stamps
// the site with the identities it took when it read (or knew) its
// inputs; an edit after that (same size, modification time put back)
// is seen by the next build, for a page and for an older round's
// result that the stamping build never read.
func TestStampEditedAfter(t *testing.T) {
	for _, older := range []bool{false, true} {
		opt, res := roundsSite(t)
		f := filepath.Join(opt.Content, "model-0000", "h100", "index.md")
		if older {
			f = roundResult(t, res, "r003")
		}
		for i := 0; i < 2; i++ { // a changing build, then the stamping one
			settle()
			if st, err := BuildStats(context.Background(), opt); err != nil || st.Unchanged {
				t.Fatalf("build %d: fast path %v, %v; want a build", i+1, st.Unchanged, err)
			}
		}
		settle()
		if st, err := BuildStats(context.Background(), opt); err != nil || !st.Unchanged {
			t.Fatalf("3rd build: fast path %v, %v; want the stamp", st.Unchanged, err)
		}
		editFile(t, f)
		settle()
		st, err := BuildStats(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		if st.Unchanged {
			t.Fatalf("%s edited after the stamp: the next build stopped at the stamp", f)
		}
		sameTree(t, f, opt.Out, buildCold(t, opt))
	}
}

// roundResult is the first result file of round id of the report whose
// results directory is res.
func roundResult(t *testing.T, res, id string) string {
	t.Helper()
	dir := schema.RoundPath(res, id)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if filepath.Ext(e.Name()) == ".json" && e.Name() != schema.RoundFile {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		t.Fatalf("no result file in %s", dir)
	}
	sort.Strings(names)
	return filepath.Join(dir, names[0])
}

// editFile changes f in place (a result: editSameSize; a page: one
// byte), keeping its size and modification time.
func editFile(t *testing.T, f string) {
	t.Helper()
	if filepath.Ext(f) == ".json" {
		editSameSize(t, f)
		return
	}
	fi, err := os.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	b := []byte(readFile(t, f))
	b[len(b)-2] ^= 1 // the narrative's last letter
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(f, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
}
