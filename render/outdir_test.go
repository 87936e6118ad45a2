package render

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutHoldsInputs: an --out that is or holds the working directory or
// an input, or lies inside an input, is refused before anything is
// written, by build and by serve's builds; the lab's files are as they
// were and nothing is left beside it. `perflab build --out .` in a lab's
// checkout moved the checkout to .<name>.prev and put the site in its
// place (the next build then cleared it); --out content/site gave one
// more page per build, the site's copies of the campaigns; a symbolic
// link as --out (to a web server's directory) became a directory, and the
// directory it named never got the site.
func TestOutHoldsInputs(t *testing.T) {
	lab := copyFixture(t)
	if err := os.WriteFile(filepath.Join(lab, "notes.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".", filepath.Join(lab, "self")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(lab, "www"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("www", filepath.Join(lab, "public")); err != nil {
		t.Fatal(err)
	}
	before := tree(t, filepath.Dir(lab))
	t.Chdir(lab)
	for _, c := range []struct{ out, cache, want string }{
		{".", "", "holds the content directory"},
		{"./", "", "holds the content directory"},
		{"..", "", "holds the content directory"},
		{"self", "", "is a symbolic link (to .)"},
		{"public", "", "is a symbolic link (to www)"},
		{"public/", "", "is a symbolic link (to www)"},
		{"results", "", "holds the results directory"},
		{"content/site", "", "is inside the content directory"},
		{"site", "site/cache", "holds the cache directory"},
	} {
		opt := Options{Content: "content", Results: "results", Out: c.out, CacheDir: c.cache}
		_, err := BuildStats(context.Background(), opt)
		if err == nil || !strings.Contains(err.Error(), "--out "+c.out+" "+c.want) {
			t.Errorf("--out %s (cache %q): %v; want an error saying it %s", c.out, c.cache, err, c.want)
		}
		if _, err := NewBuilder(opt).Build(context.Background(), nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("serve, --out %s: %v; want an error saying it %s", c.out, err, c.want)
		}
	}
	if after := tree(t, filepath.Dir(lab)); after != before {
		t.Errorf("refused builds changed the lab:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	// Not every dot is the working directory: a site of its own beside the
	// inputs builds, and so does one in content under a name the build
	// does not read (a lab whose pages are its root, with _site).
	for _, out := range []string{"./pub.v2/", "content/_site"} {
		if err := Build(context.Background(), Options{Content: "content", Results: "results", Out: out}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(lab, out, "index.html")); err != nil {
			t.Error(err)
		}
	}
}

// tree lists every path under root with its size.
func tree(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		b.WriteString(rel + " " + info.Mode().String())
		if d.Type().IsRegular() {
			b.WriteString(" " + strings.Repeat("*", int(min(info.Size(), 1))))
		}
		b.WriteString("\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
