package render

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkOut refuses an output directory that holds what a build must not
// replace. A build swaps --out whole: the old tree is moved aside (to
// .<out>.prev, which the next build clears of all the site does not
// want; without the cache, or before the retained tree, it was removed
// at once). An --out that is or contains the working directory (--out .),
// the content, results or templates directory or the cache directory
// would take them with it: `perflab build --out .` in a lab's checkout
// moved the checkout aside and put the site in its place. An --out inside
// the content directory is read by the next build as input (a site built
// into content/site gave a page for each copy of a campaign in it, and
// more each build), unless under a name Load skips (content/_site). A symbolic link as --out (to a web server's
// directory) was replaced by the site's directory, and the directory it
// named never got a page.
func checkOut(opt Options) error {
	out, err := filepath.Abs(opt.Out)
	if err != nil {
		return fmt.Errorf("render: --out %s: %w", opt.Out, err)
	}
	if fi, err := os.Lstat(out); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(out)
		return fmt.Errorf("render: --out %s is a symbolic link (to %s): a build replaces --out whole, so the site would take the link's place and %s would never see it; give --out the directory itself", opt.Out, target, target)
	}
	out = physical(out)
	type dir struct {
		what, dir string
		walked    bool // walked by Load: no place for --out either, but under a name it skips
	}
	held := []dir{
		{"the content directory", opt.Content, true},
		{"the results directory", opt.Results, false},
		{"the templates directory", opt.TemplatesDir, false},
	}
	if !opt.NoCache {
		held = append(held, dir{"the cache directory", opt.CacheDir, false})
	}
	if wd, err := os.Getwd(); err == nil {
		held = append(held, dir{"the working directory", wd, false})
	}
	for _, h := range held {
		if h.dir == "" {
			continue
		}
		d, err := filepath.Abs(h.dir)
		if err != nil {
			continue
		}
		if within(out, physical(d)) { // within: incremental.go
			return fmt.Errorf("render: --out %s holds %s (%s): a build replaces --out whole, moving what was there aside and clearing it at the next build; give --out a directory of its own", opt.Out, h.what, d)
		}
		if h.walked && within(physical(d), out) && !skipped(physical(d), out) {
			return fmt.Errorf("render: --out %s is inside %s (%s): the next build would read the site as input; give --out a directory outside it, or one under a name the build does not read (hidden or starting with _, such as _site)", opt.Out, h.what, d)
		}
	}
	return nil
}

// physical resolves the symbolic links of an absolute path, of its
// longest existing leading part when the rest does not exist yet.
func physical(p string) string {
	rest := ""
	for {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return filepath.Join(p, rest)
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// skipped reports whether Load's walk of dir passes out by: a name on the
// way from dir to out that it skips (site.SkippedName: hidden, "_").
func skipped(dir, out string) bool {
	rel, err := filepath.Rel(dir, out)
	return err == nil && ignoredByLoad(rel) // incremental.go
}
