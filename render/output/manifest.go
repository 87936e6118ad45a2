package output

import (
	"maps"

	"github.com/perflab/perflab/render/inputs"

	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sync"

	"github.com/zeebo/xxh3"
)

// A rebuild with nothing changed should cost little more than reading
// and hashing the inputs, but writing every page into a fresh directory
// and swapping it in (so that a failed build leaves --out as it was)
// writes and deletes the whole site. The build therefore keeps, in its
// cache directory, a manifest of the site it last swapped into --out:
// every file's sum (Sum), size and modification time. A file the new build
// renders to the same bytes, whose copy in --out still has that size and
// time, is not written; when no file differs and --out holds nothing
// else, --out is left alone. Otherwise the unwritten files are linked (or
// copied) from --out into the new directory, which is swapped in as
// before. Deleting the cache, or touching --out, only costs the writes.

// Manifest is the site a build left in out.
type Manifest struct {
	Out   string // the output directory, absolute
	Files map[string]FileRecord
	// Units are the groups of files the caller made together, by the
	// caller's name for them (render: a page's files, by its URL).
	Units map[string]Unit
	// Extra is a sum the caller keeps with the manifest (render: the
	// digest of the search entries search.json was written from).
	Extra [32]byte
	// Dirs are the directories below Out (slash-separated, relative);
	// nil where statID reports nothing.
	Dirs map[string]DirRecord
}

// Unit is what a build needs of a group of files that is already in
// Out: the key it was made under, the caller's sum of what else it
// made (render: its search entry's), and the paths of its files. A unit
// whose key is unchanged and whose files are all unchanged in Out is
// neither made nor written again (Tracker.Reuse).
type Unit struct {
	Key   [32]byte
	Extra [32]byte
	Paths []string
}

// Sum identifies an output file's bytes: the 128-bit XXH3 hash
// (SumOf). It only tells whether a file the build renders is the one
// the last build wrote, never facing bytes made to collide, so a
// cryptographic hash buys nothing here; SHA-256 of every output was a
// fifth of the time a cold 1,000-report build spent writing its files,
// XXH3 hashes at memory speed.
type Sum [16]byte

// SumOf is data's Sum.
func SumOf(data []byte) Sum {
	return xxh3.Hash128(data).Bytes()
}

// FileRecord is a file the last build left in Out: its bytes' sum
// (Sum) and its identity when the manifest was written (statID: the change
// time and inode too, which no touch -d can put back; zero where the
// platform does not report them).
type FileRecord struct {
	Sum     Sum
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

// DirRecord is a directory below Out as the last build left it. Adding,
// removing or renaming an entry in a directory sets its modification and
// change times, so a directory whose identity is unchanged holds what it
// held: an unchanged rebuild need not read it to look for stray files
// (render/inputs tells why change times can be trusted, and Racy is as
// for FileRecord: such a directory is read).
type DirRecord struct {
	ModTime, CTime int64
	Ino            uint64
	Racy           bool
}

// ManifestPath is where the cache directory dir keeps the manifest of
// out.
func ManifestPath(dir, out string) string {
	sum := sha256.Sum256([]byte(out))
	return filepath.Join(dir, "manifest-"+hex.EncodeToString(sum[:8]))
}

// ReadManifest returns the manifest of out kept in dir, or nil.
func ReadManifest(dir, out string) *Manifest {
	data, err := os.ReadFile(ManifestPath(dir, out))
	if err != nil {
		return nil
	}
	m := decodeManifest(data)
	if m == nil || m.Out != out {
		return nil
	}
	return m
}

// WriteManifest records in dir the files of out, as o tracked them,
// and its directories, and o's side file when it has one. A file that
// cannot be read back is left out (it will be written again).
func WriteManifest(dir, out string, o *Tracker) {
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	// The temporary file is made first: its change time is the moment
	// from which a change to out might go unseen (Racy).
	tmp, err := os.CreateTemp(dir, ".tmp-*")
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
	m := Manifest{Out: out, Files: make(map[string]FileRecord, len(sums)), Units: o.units, Extra: o.Extra}
	// The files and directories are stat'ed on every core, the search
	// entries written meanwhile: this was serial at the end of a cold
	// build.
	var mu sync.Mutex
	var wg sync.WaitGroup
	if refOK {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dirs := map[string]DirRecord{}
			for d := range Dirs(sums) {
				st, err := os.Lstat(filepath.Join(out, d))
				if err != nil || !st.IsDir() {
					return // m.Dirs stays nil: walk next time
				}
				id, _ := inputs.StatID(st)
				dirs[filepath.ToSlash(d)] = DirRecord{ModTime: id.MTime, CTime: id.CTime, Ino: id.Ino, Racy: inputs.Racy(id.CTime, ref)}
			}
			mu.Lock()
			m.Dirs = dirs
			mu.Unlock()
		}()
	}
	if o.Side != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			writeSide(dir, out, o.Side())
		}()
	}
	onCores(maps.Keys(sums), func(p string) bool {
		// A record that was not racy stays so: the file's change time is
		// older than the last manifest's, older still than this one's.
		if o.asIs[p] && refOK {
			if e, ok := o.prev.Files[p]; ok && !e.Racy {
				mu.Lock()
				m.Files[p] = e
				mu.Unlock()
				return true
			}
		}
		st, err := os.Lstat(filepath.Join(out, filepath.FromSlash(p)))
		if err != nil || !st.Mode().IsRegular() {
			return true
		}
		e := FileRecord{Sum: sums[p], Size: st.Size(), ModTime: st.ModTime().UnixNano()}
		if id, ok := inputs.StatID(st); ok && refOK {
			e.CTime, e.Ino, e.Racy = id.CTime, id.Ino, inputs.Racy(id.CTime, ref)
		}
		mu.Lock()
		m.Files[p] = e
		mu.Unlock()
		return true
	})
	wg.Wait()
	_, werr := tmp.Write(encodeManifest(&m))
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), ManifestPath(dir, out)) != nil {
		os.Remove(tmp.Name())
	}
}

// Dirs are the directories below the output directory that hold the
// files at paths (OS-separated, relative).
func Dirs[V any](paths map[string]V) map[string]bool {
	dirs := map[string]bool{}
	for p := range paths {
		for d := filepath.Dir(filepath.FromSlash(p)); d != "." && !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
		}
	}
	return dirs
}

// Tracker tracks one build's files against the previous manifest. Its
// methods are safe for concurrent use.
type Tracker struct {
	prev *Manifest // nil: write everything
	// Static are paths the caller writes over whatever a unit makes there
	// (render: content/'s files copied as they are): a unit taken as it
	// was does not take those paths with it. Set before use.
	Static map[string]bool
	// Extra is the caller's sum kept in the manifest (Manifest.Extra).
	Extra [32]byte
	// Side, when set, makes what is written beside the manifest (render:
	// the search entries, when the search index was written), while the
	// manifest's files are stat'ed; PrevSide reads the last one.
	Side func() []byte

	mu      sync.Mutex
	sums    map[string]Sum
	skipped []string // same bytes as the file in prev.Out: not written
	units   map[string]Unit
	// relaid is set when a unit was made again (its key was not the one
	// recorded): even when its bytes come out the same and out is left
	// untouched, the manifest must record the new key, or every later
	// build makes the unit again.
	relaid bool
	// reverified is set when a file or directory recorded as Racy was
	// found as recorded: the manifest is rewritten so that the next
	// build need not check it again.
	reverified bool
	// asIs are files taken from out whose inodes nothing touched since
	// Reuse found them as recorded (retain.go): their records are
	// written as they were, without a stat.
	asIs         map[string]bool
	prevSideOnce sync.Once
	prevSide     []byte
}

// NewTracker tracks a build against prev, the manifest of its output
// directory's last build (nil: none).
func NewTracker(prev *Manifest) *Tracker {
	return &Tracker{prev: prev, sums: map[string]Sum{}, units: map[string]Unit{}}
}

// Prev is the previous manifest, or nil.
func (o *Tracker) Prev() *Manifest { return o.prev }

// Relaid reports whether a unit was made under another key than the
// recorded one.
func (o *Tracker) Relaid() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.relaid
}

// Stale reports whether the manifest must be written again although Out
// is unchanged: a unit was made again, a racy record was verified, or
// the caller's sum changed.
func (o *Tracker) Stale() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.relaid || o.reverified || o.prev == nil || o.prev.Extra != o.Extra
}

// Skipped is how many files were found in Out and not written.
func (o *Tracker) Skipped() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.skipped)
}

// Paths are the build's files (slash-separated, relative to Out) with
// their sums; the map is the tracker's own.
func (o *Tracker) Paths() map[string]Sum { return o.sums }

// Unit records the unit name, made under key, its files at paths, and
// the caller's extra sum.
func (o *Tracker) Unit(name string, key, extra [32]byte, paths []string) {
	u := Unit{Key: key, Extra: extra, Paths: paths}
	o.mu.Lock()
	o.relaid = o.relaid || o.prev == nil || o.prev.Units[name].Key != key
	o.units[name] = u
	o.mu.Unlock()
}

// sidePath is where the side file of out's manifest is kept.
func sidePath(dir, out string) string { return ManifestPath(dir, out) + ".search" }

// SidePath is where the cache directory dir keeps the side file of
// out's manifest.
func SidePath(dir, out string) string { return sidePath(dir, out) }

// PrevSide returns the side file the last build wrote with its manifest
// in dir (read once), or nil.
func (o *Tracker) PrevSide(dir string) []byte {
	o.prevSideOnce.Do(func() {
		if o.prev == nil {
			return
		}
		o.prevSide, _ = os.ReadFile(sidePath(dir, o.prev.Out))
	})
	return o.prevSide
}

// writeSide writes the side file of out's manifest into dir.
func writeSide(dir, out string, data []byte) {
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), sidePath(dir, out)) != nil {
		os.Remove(tmp.Name())
	}
}

// inOut reports whether the previous output directory still holds e at
// p: the same size and modification time, and where the platform reports
// them the same change time and inode (a file rewritten with its size
// and time put back has a new change time); a Racy entry's bytes are
// compared too.
func (o *Tracker) inOut(p string, e FileRecord) bool {
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
		if err != nil || SumOf(data) != e.Sum {
			return false
		}
		o.mu.Lock()
		o.reverified = true
		o.mu.Unlock()
	}
	return true
}

// Reuse returns the record of unit name when the last build made it
// under key and Out still holds all its files, which it then counts as
// skipped.
func (o *Tracker) Reuse(name string, key [32]byte) (Unit, bool) {
	if o.prev == nil {
		return Unit{}, false
	}
	mp, ok := o.prev.Units[name]
	if !ok || mp.Key != key {
		return Unit{}, false
	}
	for _, p := range mp.Paths {
		if o.Static[p] {
			continue
		}
		if e, ok := o.prev.Files[p]; !ok || !o.inOut(p, e) {
			return Unit{}, false
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, p := range mp.Paths {
		if o.Static[p] {
			continue
		}
		o.sums[p] = o.prev.Files[p].Sum
		o.skipped = append(o.skipped, p)
	}
	o.units[name] = mp
	return mp, true
}

// ReuseFiles counts the files at paths as skipped when the last build
// wrote them and Out still holds them.
func (o *Tracker) ReuseFiles(paths ...string) bool {
	if o.prev == nil {
		return false
	}
	for _, p := range paths {
		if o.Static[p] {
			continue
		}
		if e, ok := o.prev.Files[p]; !ok || !o.inOut(p, e) {
			return false
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, p := range paths {
		if o.Static[p] {
			continue
		}
		o.sums[p] = o.prev.Files[p].Sum
		o.skipped = append(o.skipped, p)
	}
	return true
}

// Same records f and reports whether its copy in the previous output
// directory already holds its bytes, so that it need not be written.
func (o *Tracker) Same(f File) bool {
	sum := SumOf(f.Data)
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
