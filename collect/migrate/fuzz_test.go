package migrate

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

var reLoc = regexp.MustCompile(`p\.md:([0-9]+)(?::|$)`)

// checkLoc fails unless s names p.md and one of the page's lines.
func checkLoc(t *testing.T, what, s string, lines int) {
	t.Helper()
	m := reLoc.FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("%s does not name p.md:line: %s", what, s)
	}
	if n, _ := strconv.Atoi(m[1]); n < 1 || n > lines {
		t.Fatalf("%s names line %d of a %d-line page: %s", what, n, lines, s)
	}
}

// FuzzMigrate feeds pages to migrate's page reader. A refused page gets an
// error naming p.md and a line; a migrated one writes a project whose
// campaign reads back (Files checks it), whose results decode and
// re-encode byte for byte, and whose notes and ambiguities name lines of
// the page.
func FuzzMigrate(f *testing.F) {
	pages, _ := filepath.Glob("testdata/*.md")
	variants, _ := filepath.Glob("testdata/variants/*.md")
	for _, p := range append(pages, variants...) {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("---\ntitle: x\ntags: [a]\n---\n# x\n\n```\n```bash\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte("\n")) + 1
		pg, err := Migrate("p.md", data, "c", "results/c/src/p.md")
		if err != nil {
			checkLoc(t, "error", err.Error(), lines)
			return
		}
		for _, n := range pg.Notes {
			checkLoc(t, "note", n, lines)
		}
		for _, a := range pg.Ambiguities {
			checkLoc(t, "ambiguity", a.Loc, lines)
		}
		files, err := pg.Files("p.md")
		if err != nil {
			t.Fatalf("page migrated, but its files cannot be written: %v", err)
		}
		for _, fl := range files {
			if !strings.HasSuffix(fl.Path, ".json") {
				continue
			}
			r, err := schema.Unmarshal(fl.Path, fl.Data)
			if err != nil {
				t.Fatalf("%s does not decode: %v", fl.Path, err)
			}
			again, err := schema.Marshal(r)
			if err != nil {
				t.Fatalf("%s does not re-encode: %v", fl.Path, err)
			}
			if !bytes.Equal(again, fl.Data) {
				t.Fatalf("%s changes through decoding:\n%s\n---\n%s", fl.Path, fl.Data, again)
			}
			if r.Summary != nil {
				checkNumbers(t, fl.Path, r.Summary, data)
			}
		}
	})
}

var reNumber = regexp.MustCompile(`[0-9][0-9_,]*(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+`)

// checkNumbers fails unless every number of the summary is written on
// the page (as it is, or between seconds and milliseconds); a
// percentile's rank comes from its label.
func checkNumbers(t *testing.T, where string, s *schema.Summary, page []byte) {
	t.Helper()
	var nums []float64
	for _, w := range reNumber.FindAll(page, -1) {
		if v, err := strconv.ParseFloat(strings.NewReplacer(",", "", "_", "").Replace(string(w)), 64); err == nil {
			nums = append(nums, v)
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("%s: summary does not encode: %v", where, err)
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		t.Fatal(err)
	}
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case float64:
			if x == 0 || strings.HasSuffix(path, "].p") {
				return
			}
			for _, n := range nums {
				for _, c := range []float64{math.Abs(x), math.Abs(x) / 1000, math.Abs(x) * 1000} {
					if math.Abs(n-c) <= 1e-9*math.Abs(n) {
						return
					}
				}
			}
			t.Fatalf("%s: %s = %v is written nowhere on the page", where, path, x)
		case map[string]any:
			for k, c := range x {
				walk(c, path+"."+k)
			}
		case []any:
			for i, c := range x {
				walk(c, path+"["+strconv.Itoa(i)+"]")
			}
		}
	}
	walk(tree, "summary")
}
