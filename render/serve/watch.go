package serve

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsnotify/fsnotify"
)

// watcher turns fsnotify's per-directory events into changed paths under a
// set of roots. fsnotify is not recursive: every directory under a root is
// added at start and every directory created later is added when its
// Create event arrives (and the files already in it are reported, since
// they may have been written before the watch was in place).
type watcher struct {
	fs    *fsnotify.Watcher
	roots []string // absolute, cleaned
	skip  []string // absolute, cleaned: events at or under these are dropped
	// note receives the changed paths of one event (absolute); full is set
	// when events were lost and everything must be rebuilt.
	note func(paths []string, full bool)
	logf func(format string, a ...any)
	done chan struct{}
}

func newWatcher(roots, skip []string, note func([]string, bool), logf func(string, ...any)) (*watcher, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("watch: %w", err)
	}
	w := &watcher{fs: fw, note: note, logf: logf, done: make(chan struct{})}
	for _, r := range roots {
		a, err := filepath.Abs(r)
		if err != nil {
			fw.Close()
			return nil, fmt.Errorf("watch: %s: %w", r, err)
		}
		w.roots = append(w.roots, a)
	}
	for _, s := range skip {
		if a, err := filepath.Abs(s); err == nil {
			w.skip = append(w.skip, a)
		}
	}
	// The parents are watched too (their events filtered to the roots), so
	// a root that is missing now, or removed and made again, is picked up.
	parents := map[string]bool{}
	for _, r := range w.roots {
		p := filepath.Dir(r)
		if !parents[p] {
			parents[p] = true
			if err := fw.Add(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				fw.Close()
				return nil, fmt.Errorf("watch: %s: %w", p, err)
			}
		}
		if _, err := w.addTree(r); err != nil {
			fw.Close()
			return nil, err
		}
	}
	go w.run()
	return w, nil
}

// Close stops the watcher and waits for its goroutine.
func (w *watcher) Close() error {
	err := w.fs.Close()
	<-w.done
	return err
}

// addTree watches dir and every directory below it and returns the regular
// files found. A missing dir is not an error.
func (w *watcher) addTree(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // gone while walking, or a missing root
			}
			return err
		}
		if p != dir && ignoredName(d.Name()) || w.skipped(p) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if err := w.fs.Add(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil
		}
		files = append(files, p)
		return nil
	})
	if err != nil {
		return files, fmt.Errorf("watch: %s: %w", dir, err)
	}
	return files, nil
}

func (w *watcher) run() {
	defer close(w.done)
	for {
		select {
		case ev, ok := <-w.fs.Events:
			if !ok {
				return
			}
			w.event(ev)
		case err, ok := <-w.fs.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.logf("watch: events lost (%v); rebuilding everything", err)
				w.note(nil, true)
				continue
			}
			w.logf("watch: %v", err)
		}
	}
}

func (w *watcher) event(ev fsnotify.Event) {
	if ev.Op == fsnotify.Chmod { // touch, chmod, and the noise some tools make
		return
	}
	p := filepath.Clean(ev.Name)
	if !w.relevant(p) {
		return
	}
	changed := []string{p}
	if ev.Has(fsnotify.Create) {
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			files, err := w.addTree(p)
			if err != nil {
				w.logf("%v", err)
			}
			changed = append(changed, files...)
		}
	}
	w.note(changed, false)
}

// relevant reports whether p is at or under a root, outside the skipped
// directories, and not an editor's or atomic writer's temporary file.
func (w *watcher) relevant(p string) bool {
	if w.skipped(p) {
		return false
	}
	for _, r := range w.roots {
		if rel, ok := under(r, p); ok {
			for _, part := range strings.Split(rel, string(filepath.Separator)) {
				if part != "." && ignoredName(part) {
					return false
				}
			}
			return true
		}
	}
	return false
}

func (w *watcher) skipped(p string) bool {
	for _, s := range w.skip {
		if _, ok := under(s, p); ok {
			return true
		}
	}
	return false
}

// under reports whether p is dir or below it, with p's path relative to dir.
func under(dir, p string) (string, bool) {
	rel, err := filepath.Rel(dir, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return rel, true
}

// ignoredName is true for names no build reads: hidden files (including
// schema.WriteAtomic's ".NAME.tmp-*" and Emacs's ".#NAME" locks), editor
// backups and swap files, and Vim's "4913" write test.
func ignoredName(name string) bool {
	switch {
	case strings.HasPrefix(name, "."),
		strings.HasSuffix(name, "~"),
		strings.HasSuffix(name, ".swp"), strings.HasSuffix(name, ".swx"),
		strings.HasSuffix(name, ".swo"),
		name == "4913":
		return true
	}
	return false
}
