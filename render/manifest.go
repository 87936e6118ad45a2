package render

import (
	"github.com/perflab/perflab/render/inputs"

	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/zeebo/xxh3"
)

// A rebuild with nothing changed should cost little more than reading
// and hashing the inputs, but writing every page into a fresh directory
// and swapping it in (so that a failed build leaves --out as it was)
// writes and deletes the whole site. The build therefore keeps, in its
// cache directory, a manifest of the site it last swapped into --out:
// every file's sum (outSum), size and modification time. A file the new build
// renders to the same bytes, whose copy in --out still has that size and
// time, is not written; when no file differs and --out holds nothing
// else, --out is left alone. Otherwise the unwritten files are linked (or
// copied) from --out into the new directory, which is swapped in as
// before. Deleting the cache, or touching --out, only costs the writes.

// manifest is the site a build left in out.
type manifest struct {
	Out   string // the output directory, absolute
	Files map[string]manifestFile
	Pages map[string]manifestPage // by page URL
	// Search is the digest of the search index's entries (searchDigest)
	// that search.json and search.js were written from.
	Search [32]byte
	// Dirs are the directories below Out (slash-separated, relative);
	// nil where statID reports nothing.
	Dirs map[string]manifestDir
}

// manifestPage is what a build needs of a page that is already in Out:
// the layout key it was written under (layoutKey), its search entry and
// the paths of its files. A page whose key is unchanged and whose files
// are all unchanged in Out is neither read from the cache nor laid out.
type manifestPage struct {
	Layout [32]byte
	// SearchSum is searchEntrySum of its search entry; the entry itself
	// is in the manifest's search file (manifestSearch), read only when
	// the search index is written again: decoding every page's text was
	// most of reading the manifest.
	SearchSum [32]byte
	Paths     []string
}

// outSum identifies an output file's bytes: the 128-bit XXH3 hash
// (sumOutput). It only tells whether a file the build renders is the one
// the last build wrote, never facing bytes made to collide, so a
// cryptographic hash buys nothing here; SHA-256 of every output was a
// fifth of the time a cold 1,000-report build spent writing its files,
// XXH3 hashes at memory speed.
type outSum [16]byte

// sumOutput is data's outSum.
func sumOutput(data []byte) outSum {
	return xxh3.Hash128(data).Bytes()
}

// layoutKey determines a page's files: its cache key (its inputs, the
// templates, perflab's build, the options) and its navigation, the one
// part of its layout that depends on other pages.
func layoutKey(cacheKey string, nav string) [32]byte {
	h := sha256.New()
	field(h, "layout", cacheKey, nav)
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// manifestFile is a file the last build left in Out: its bytes' sum
// (outSum) and its identity when the manifest was written (statID: the change
// time and inode too, which no touch -d can put back; zero where the
// platform does not report them).
type manifestFile struct {
	Sum     outSum
	Size    int64
	ModTime int64 // nanoseconds
	CTime   int64 // nanoseconds
	Ino     uint64
	// Racy is set when the file changed at or after the moment the
	// manifest began to be written (as the file system stamps it): a
	// change made then, in the same timestamp tick, would leave its
	// identity as recorded, so the next build compares its bytes.
	Racy bool
}

// manifestDir is a directory below Out as the last build left it. Adding,
// removing or renaming an entry in a directory sets its modification and
// change times, so a directory whose identity is unchanged holds what it
// held: an unchanged rebuild need not read it to look for stray files
// (statcache.go tells why change times can be trusted, and Racy is as
// for manifestFile: such a directory is read).
type manifestDir struct {
	ModTime, CTime int64
	Ino            uint64
	Racy           bool
}

// manifestPath is where the cache keeps the manifest of out.
func (c *buildCache) manifestPath(out string) string { return manifestPath(c.Dir(), out) }

// manifestPath is where the cache in dir keeps the manifest of out.
func manifestPath(dir, out string) string {
	sum := sha256.Sum256([]byte(out))
	return filepath.Join(dir, "manifest-"+hex.EncodeToString(sum[:8]))
}

// readManifest returns the manifest of out, or nil.
func (c *buildCache) readManifest(out string) *manifest {
	if c == nil {
		return nil
	}
	data, err := os.ReadFile(c.manifestPath(out))
	if err != nil {
		return nil
	}
	m := decodeManifest(data)
	if m == nil || m.Out != out {
		return nil
	}
	return m
}

// writeManifest records the files of out, whose contents hash to sums,
// and its directories. A file that cannot be read back is left out (it
// will be written again).
func (c *buildCache) writeManifest(out string, o *outputs) {
	if c == nil {
		return
	}
	if c.MkdirAll() != nil {
		return
	}
	// The temporary file is made first: its change time is the moment
	// from which a change to out might go unseen (Racy).
	tmp, err := os.CreateTemp(c.Dir(), ".tmp-*")
	if err != nil {
		return
	}
	ref, refOK := int64(0), false
	if st, err := tmp.Stat(); err == nil {
		var id inputs.ID
		id, refOK = inputs.StatID(st)
		ref = id.CTime
	}
	sums := o.sums
	m := manifest{Out: out, Files: make(map[string]manifestFile, len(sums)), Pages: o.pages, Search: o.search}
	// The files and directories are stat'ed on every core, the search
	// entries written meanwhile: this was serial at the end of a cold
	// build.
	var mu sync.Mutex
	paths := make(chan string, 64)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range paths {
				st, err := os.Lstat(filepath.Join(out, filepath.FromSlash(p)))
				if err != nil || !st.Mode().IsRegular() {
					continue
				}
				e := manifestFile{Sum: sums[p], Size: st.Size(), ModTime: st.ModTime().UnixNano()}
				if id, ok := inputs.StatID(st); ok && refOK {
					e.CTime, e.Ino, e.Racy = id.CTime, id.Ino, inputs.Racy(id.CTime, ref)
				}
				mu.Lock()
				m.Files[p] = e
				mu.Unlock()
			}
		}()
	}
	if refOK {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dirs := map[string]manifestDir{}
			for d := range outDirs(sums) {
				st, err := os.Lstat(filepath.Join(out, d))
				if err != nil || !st.IsDir() {
					return // m.Dirs stays nil: walk next time
				}
				id, _ := inputs.StatID(st)
				dirs[filepath.ToSlash(d)] = manifestDir{ModTime: id.MTime, CTime: id.CTime, Ino: id.Ino, Racy: inputs.Racy(id.CTime, ref)}
			}
			mu.Lock()
			m.Dirs = dirs
			mu.Unlock()
		}()
	}
	if o.searchEntries != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.writeManifestSearch(out, o.searchEntries)
		}()
	}
	for p := range sums {
		paths <- p
	}
	close(paths)
	wg.Wait()
	_, werr := tmp.Write(encodeManifest(&m))
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), c.manifestPath(out)) != nil {
		os.Remove(tmp.Name())
	}
}

// outDirs are the directories below the output directory that hold the
// files at paths (OS-separated, relative).
func outDirs[V any](paths map[string]V) map[string]bool {
	dirs := map[string]bool{}
	for p := range paths {
		for d := filepath.Dir(filepath.FromSlash(p)); d != "." && !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	return dirs
}

// outputs tracks one build's files against the previous manifest.
type outputs struct {
	prev *manifest // nil: write everything
	// static are the paths of content/'s files copied as they are, over
	// what a page or the search index makes there (Render): a page or an
	// index taken as it was does not take those paths with it.
	static map[string]bool

	mu      sync.Mutex
	sums    map[string]outSum
	skipped []string // same bytes as the file in prev.Out: not written
	pages   map[string]manifestPage
	// relaid is set when a page was laid out again (its layout key was
	// not the one recorded): even when its bytes come out the same and
	// out is left untouched, the manifest must record the new key, or
	// every later build lays the page out again.
	relaid bool
	// reverified is set when a file or directory recorded as Racy was
	// found as recorded: the manifest is rewritten so that the next
	// build need not check it again.
	reverified bool
	search     [32]byte // the search index's digest
	// searchEntries are the search index's entries by page URL when this
	// build wrote it (the manifest's search file is then written too).
	searchEntries  map[string]searchEntry
	prevSearchOnce sync.Once
	prevSearchMap  map[string]searchEntry
}

func newOutputs(prev *manifest) *outputs {
	return &outputs{prev: prev, sums: map[string]outSum{}, pages: map[string]manifestPage{}}
}

// inOut reports whether the previous output directory still holds e at
// p: the same size and modification time, and where the platform reports
// them the same change time and inode (a file rewritten with its size
// and time put back has a new change time); a Racy entry's bytes are
// compared too.
func (o *outputs) inOut(p string, e manifestFile) bool {
	name := filepath.Join(o.prev.Out, filepath.FromSlash(p))
	st, err := os.Lstat(name)
	if err != nil || !st.Mode().IsRegular() || st.Size() != e.Size || st.ModTime().UnixNano() != e.ModTime {
		return false
	}
	if id, ok := inputs.StatID(st); ok && (id.CTime != e.CTime || id.Ino != e.Ino) {
		return false
	}
	if e.Racy {
		data, err := os.ReadFile(name)
		if err != nil || sumOutput(data) != e.Sum {
			return false
		}
		o.mu.Lock()
		o.reverified = true
		o.mu.Unlock()
	}
	return true
}

// reuse returns the page at url's record when the last build wrote it
// under layout key lk and Out still holds all its files, which it then
// counts as skipped.
func (o *outputs) reuse(url string, lk [32]byte) (manifestPage, bool) {
	if o.prev == nil {
		return manifestPage{}, false
	}
	mp, ok := o.prev.Pages[url]
	if !ok || mp.Layout != lk {
		return manifestPage{}, false
	}
	for _, p := range mp.Paths {
		if o.static[p] {
			continue
		}
		if e, ok := o.prev.Files[p]; !ok || !o.inOut(p, e) {
			return manifestPage{}, false
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, p := range mp.Paths {
		if o.static[p] {
			continue
		}
		o.sums[p] = o.prev.Files[p].Sum
		o.skipped = append(o.skipped, p)
	}
	o.pages[url] = mp
	return mp, true
}

// reuseFiles counts the files at paths as skipped when the last build
// wrote them and Out still holds them.
func (o *outputs) reuseFiles(paths ...string) bool {
	if o.prev == nil {
		return false
	}
	for _, p := range paths {
		if o.static[p] {
			continue
		}
		if e, ok := o.prev.Files[p]; !ok || !o.inOut(p, e) {
			return false
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, p := range paths {
		if o.static[p] {
			continue
		}
		o.sums[p] = o.prev.Files[p].Sum
		o.skipped = append(o.skipped, p)
	}
	return true
}

// searchEntrySum identifies one search entry.
func searchEntrySum(e searchEntry) [32]byte {
	h := sha256.New()
	field(h, e.Title, e.URL, e.Tags, e.Text)
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// searchDigest identifies the search index's entries by their sums
// (searchEntrySum, in index order): search.json and search.js are a
// function of it (and of perflab's build).
func searchDigest(sums [][32]byte) [32]byte {
	h := sha256.New()
	field(h, "search", selfVersion())
	for _, s := range sums {
		h.Write(s[:])
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// manifestSearchPath is where the manifest's search entries are kept.
func (c *buildCache) manifestSearchPath(out string) string { return c.manifestPath(out) + ".search" }

// prevSearch returns the search entries (by page URL) the last build
// wrote its search index from, read once; nil when there are none.
func (o *outputs) prevSearch(c *buildCache) map[string]searchEntry {
	o.prevSearchOnce.Do(func() {
		if c == nil || o.prev == nil {
			return
		}
		data, err := os.ReadFile(c.manifestSearchPath(o.prev.Out))
		if err != nil {
			return
		}
		o.prevSearchMap = decodeSearchEntries(data)
	})
	return o.prevSearchMap
}

// writeManifestSearch keeps the entries (by page URL) that this build
// wrote the search index from, for a later build that reuses the pages.
func (c *buildCache) writeManifestSearch(out string, entries map[string]searchEntry) {
	if c == nil {
		return
	}
	data := encodeSearchEntries(entries)
	if c.MkdirAll() != nil {
		return
	}
	tmp, err := os.CreateTemp(c.Dir(), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), c.manifestSearchPath(out)) != nil {
		os.Remove(tmp.Name())
	}
}

// page records the page at url, rendered under layout key lk.
func (o *outputs) page(url string, lk [32]byte, se searchEntry, files []File) {
	mp := manifestPage{Layout: lk, SearchSum: searchEntrySum(se)}
	relaid := o.prev == nil || o.prev.Pages[url].Layout != lk
	for _, f := range files {
		mp.Paths = append(mp.Paths, f.Path)
	}
	o.mu.Lock()
	o.relaid = o.relaid || relaid
	o.pages[url] = mp
	o.mu.Unlock()
}

// same records f and reports whether its copy in the previous output
// directory already holds its bytes, so that it need not be written.
func (o *outputs) same(f File) bool {
	sum := sumOutput(f.Data)
	same := false
	if o.prev != nil {
		if e, ok := o.prev.Files[f.Path]; ok && e.Sum == sum && e.Size == int64(len(f.Data)) {
			same = o.inOut(f.Path, e)
		}
	}
	o.mu.Lock()
	o.sums[f.Path] = sum
	if same {
		o.skipped = append(o.skipped, f.Path)
	}
	o.mu.Unlock()
	return same
}

// unchanged reports whether out holds exactly this build's files: every
// one was skipped, and out has no other file or directory, and its
// directories have the modes a build gives them (out's own 0755, set by
// swap; below it the mode a directory made now in tmp, this build's
// directory, gets: 0755 less the umask). A chmod of a directory sets its
// change time, so only a directory whose identity changed is checked.
func (o *outputs) unchanged(out, tmp string) bool {
	if o.prev == nil || len(o.skipped) != len(o.sums) || len(o.sums) != len(o.prev.Files) {
		return false
	}
	// (Windows reports every directory as 0777 and has no chmod to undo.)
	if st, err := os.Lstat(out); err != nil || !st.IsDir() || runtime.GOOS != "windows" && st.Mode().Perm() != 0o755 {
		return false
	}
	dirPerm := sync.OnceValue(func() fs.FileMode {
		probe := filepath.Join(tmp, ".mode")
		if err := os.Mkdir(probe, 0o755); err != nil {
			return 0o755
		}
		defer os.Remove(probe)
		if st, err := os.Lstat(probe); err == nil {
			return st.Mode().Perm()
		}
		return 0o755
	})
	dirs := outDirs(o.sums)
	if o.prev.Dirs != nil && len(o.prev.Dirs) == len(dirs) {
		return o.unchangedDirs(out, dirs, dirPerm)
	}
	// Each top-level entry is walked on its own worker: reading 900
	// directories was an eighth of an unchanged 924-page rebuild, all of
	// it on one core.
	top, err := os.ReadDir(out)
	if err != nil {
		return false
	}
	var files atomic.Int64
	var stray atomic.Bool
	check := func(rel string, d fs.DirEntry) error {
		if d.IsDir() {
			if !dirs[rel] {
				return fs.ErrExist
			}
			if st, err := d.Info(); err != nil || st.Mode().Perm() != dirPerm() {
				return fs.ErrExist
			}
			return nil
		}
		if _, ok := o.sums[filepath.ToSlash(rel)]; !ok || !d.Type().IsRegular() {
			return fs.ErrExist
		}
		files.Add(1)
		return nil
	}
	work := make(chan fs.DirEntry)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range work {
				if stray.Load() {
					continue
				}
				var err error
				if !d.IsDir() {
					err = check(d.Name(), d)
				} else {
					root := filepath.Join(out, d.Name())
					err = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
						if err != nil {
							return err
						}
						return check(filepath.Join(d.Name(), p[len(root):]), e)
					})
				}
				if err != nil {
					stray.Store(true)
				}
			}
		}()
	}
	for _, d := range top {
		work <- d
	}
	close(work)
	wg.Wait()
	return !stray.Load() && files.Load() == int64(len(o.sums))
}

// unchangedDirs is unchanged's check for stray files when the manifest
// recorded out's directories (and every file of this build was found in
// out as recorded): out's own entries are read; a directory below it
// whose identity is as recorded holds what it held and is not read, any
// other is. The directories are checked on every core.
func (o *outputs) unchangedDirs(out string, dirs map[string]bool, dirPerm func() fs.FileMode) bool {
	// entryOK reports whether rel, found in out, is one of the build's
	// files or directories.
	entryOK := func(rel string, d fs.DirEntry) bool {
		if d.IsDir() {
			return dirs[rel]
		}
		_, ok := o.sums[filepath.ToSlash(rel)]
		return ok && d.Type().IsRegular()
	}
	top, err := os.ReadDir(out)
	if err != nil {
		return false
	}
	for _, d := range top {
		if !entryOK(d.Name(), d) {
			return false
		}
	}
	var stray, reverified atomic.Bool
	check := func(d string) {
		md, ok := o.prev.Dirs[filepath.ToSlash(d)]
		if !ok {
			stray.Store(true)
			return
		}
		st, err := os.Lstat(filepath.Join(out, d))
		if err != nil || !st.IsDir() {
			stray.Store(true)
			return
		}
		if id, ok := inputs.StatID(st); ok && !md.Racy && id.MTime == md.ModTime && id.CTime == md.CTime && id.Ino == md.Ino {
			return
		}
		if st.Mode().Perm() != dirPerm() {
			stray.Store(true) // chmod'ed: made afresh
			return
		}
		entries, err := os.ReadDir(filepath.Join(out, d))
		if err != nil {
			stray.Store(true)
			return
		}
		for _, e := range entries {
			if !entryOK(filepath.Join(d, e.Name()), e) {
				stray.Store(true)
				return
			}
		}
		reverified.Store(true) // read and found as it should be: record it
	}
	work := make(chan string, 64)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range work {
				if !stray.Load() {
					check(d)
				}
			}
		}()
	}
	for d := range dirs {
		work <- d
	}
	close(work)
	wg.Wait()
	if stray.Load() {
		return false
	}
	if reverified.Load() {
		o.mu.Lock()
		o.reverified = true
		o.mu.Unlock()
	}
	return true
}

// fill links (or copies) the skipped files from the previous output
// directory into dir, where the build wrote the others.
func (o *outputs) fill(dir string) error {
	for _, p := range o.skipped {
		src := filepath.Join(o.prev.Out, filepath.FromSlash(p))
		dst := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if os.Link(src, dst) == nil {
			continue
		}
		if err := copyFile(src, dst); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
