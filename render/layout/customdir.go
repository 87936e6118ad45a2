package layout

import (
	"errors"
	"io/fs"
	"sort"
)

// A lab changes the look as MkDocs' custom_dir does: Options.TemplatesDir
// (perflab build and serve --templates) is laid over the embedded
// templates. Its *.html files are parsed after the embedded ones, so a
// {{define "name"}} there replaces the built-in template of that name and
// every other template stays as built in; a file under its assets/
// replaces the embedded file of the same path (site.css, site.js) or adds
// one. A directory holding a full copy of templates/ replaces everything.

// overlayFS reads a file from top when it is there, else from base; a
// directory lists the entries of both.
type overlayFS struct{ top, base fs.FS }

func (o overlayFS) Open(name string) (fs.File, error) {
	f, err := o.top.Open(name)
	if err == nil {
		if fi, serr := f.Stat(); serr == nil && !fi.IsDir() {
			return f, nil
		}
		f.Close()
		// A directory: opened from base when there (ReadDir merges).
		if bf, berr := o.base.Open(name); berr == nil {
			return bf, nil
		}
		return o.top.Open(name)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	return o.base.Open(name)
}

// ReadDir lists name in both, top's entry winning, sorted by name.
func (o overlayFS) ReadDir(name string) ([]fs.DirEntry, error) {
	top, terr := fs.ReadDir(o.top, name)
	base, berr := fs.ReadDir(o.base, name)
	if terr != nil && berr != nil {
		return nil, berr
	}
	seen := map[string]bool{}
	var out []fs.DirEntry
	for _, e := range top {
		seen[e.Name()] = true
		out = append(out, e)
	}
	for _, e := range base {
		if !seen[e.Name()] {
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}
