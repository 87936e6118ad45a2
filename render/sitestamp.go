package render

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
)

// An unchanged rebuild of the 1,000-report site still loaded every
// campaign and result (YAML and JSON decoding, ~0.3 s of 0.4) only to
// find every page already in --out. The site stamp, kept in the cache
// directory after a build that found --out exactly as it should be and
// left it alone, records everything such a build depended on, each with
// its identity as stat reports it (statcache.go: size, modification and
// change times, inode, device):
//   - every directory of content/ that the build listed (adding, removing
//     or renaming a file in a directory sets its change time), every
//     Markdown file (drafts, and a bundle's absent index.md, included) and
//     every static file;
//   - each report's campaign file, results directory (or that there was
//     none: creating it changes the report) and result files;
//   - --out itself, each of its directories and each of its files, and
//     the manifest of --out in the cache (manifest.go);
//   - the options, the working directory and perflab's build.
//
// The next build stats those paths, reads nothing else, and when every
// identity is the recorded one it is done: it reports the stamp's figures
// and touches neither --out nor the cache. Anything else is a normal
// build. A stamp is written only when no recorded path changed at or
// after the moment the build began to read (the input stat cache's
// marker: the racy rule of statcache.go), so that a change made during
// the build is never recorded as what the build saw; only for a build
// whose state on disk agrees with what it loaded (a results directory
// found is a directory, one not found is absent, a campaign and its
// results still exist); never with a templates directory, live reload,
// --no-cache, or a results directory that is a link or has
// subdirectories (walked: not worth recording).

// stampFormat heads the file; it changes with the encoding.
const stampFormat = "perflab-site-stamp-1\n"

// The kinds of a stamp's path.
const (
	stampAbsent = 0 // os.Lstat says it does not exist
	stampStat   = 1 // os.Stat's identity (a file read through links)
	stampLstat  = 2 // os.Lstat's identity (a directory, an output)
)

type stampEntry struct {
	name string
	kind byte
	id   fileID
}

// stampKey is everything besides the recorded paths that a build's
// output depends on.
func stampKey(opt Options, out string) string {
	wd, _ := os.Getwd()
	h := sha256.New()
	field(h, stampFormat, inputsFormat, cacheFormat, selfVersion(), wd, opt.Content, opt.Results, out, opt.BaseURL, opt.cacheDir())
	return hex.EncodeToString(h.Sum(nil))
}

// stampPath is where the stamp of out is kept.
func stampPath(opt Options, out string) string {
	sum := sha256.Sum256([]byte(out))
	return filepath.Join(opt.cacheDir(), "site-"+hex.EncodeToString(sum[:8]))
}

// stampable reports whether a build with opt may write or use a stamp.
func stampable(opt Options) bool {
	return opt.TemplatesDir == "" && !opt.LiveReload && !opt.NoCache
}

// absOut is BuildStats's output directory.
func absOut(opt Options) string {
	out := filepath.Clean(opt.Out)
	if abs, err := filepath.Abs(out); err == nil {
		out = abs
	}
	return out
}

// unchangedSite returns the stamp's figures when every path it records
// is as recorded (opt has its defaults).
func unchangedSite(opt Options) (Stats, bool) {
	if !stampable(opt) {
		return Stats{}, false
	}
	out := absOut(opt)
	data, err := os.ReadFile(stampPath(opt, out))
	if err != nil {
		return Stats{}, false
	}
	key, st, entries, ok := decodeStamp(data)
	if !ok || key != stampKey(opt, out) {
		return Stats{}, false
	}
	if untilFalse(len(entries), func(i int) bool { return entries[i].holds() }) {
		return Stats{}, false
	}
	st.Unchanged = true
	return st, true
}

// untilFalse calls ok(i) for i in [0, n) on every P, in no set order,
// until one call returns false; it reports whether one did. The stamp's
// paths are stat'ed this way when it is read and when it is written.
func untilFalse(n int, ok func(i int) bool) bool {
	var failed atomic.Bool
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if !ok(i) {
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	return failed.Load()
}

// holds reports whether e's path is as recorded.
func (e stampEntry) holds() bool {
	var fi os.FileInfo
	var err error
	if e.kind == stampStat {
		fi, err = os.Stat(e.name)
	} else {
		fi, err = os.Lstat(e.name)
	}
	if e.kind == stampAbsent {
		return os.IsNotExist(err)
	}
	if err != nil {
		return false
	}
	id, ok := statID(fi)
	return ok && id == e.id
}

// stamp writes the site stamp after a successful build that left out
// alone, or removes a stale one.
func (s *Site) stamp(out string, st Stats) {
	path := stampPath(s.opt, out)
	entries, ok := s.stampEntries(out)
	if !ok {
		os.Remove(path)
		return
	}
	data := encodeStamp(stampKey(s.opt, out), st, entries)
	if old, err := os.ReadFile(path); err == nil && string(old) == string(data) {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		os.Remove(path)
		return
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
		os.Remove(path)
	}
}

// stampEntries are the paths a stamp records, with their identities now;
// ok is false when the build may not be stamped.
func (s *Site) stampEntries(out string) ([]stampEntry, bool) {
	o := s.untouched
	if o == nil || o.relaid || s.inputStats == nil || !stampable(s.opt) || len(s.walked) == 0 {
		return nil, false
	}
	want := map[string]byte{} // path → kind; stampAbsent: may be absent
	must := map[string]bool{} // paths that must exist
	for _, d := range s.walked {
		want[d], must[d] = stampLstat, true
	}
	for _, rel := range s.mds {
		want[filepath.Join(s.opt.Content, filepath.FromSlash(rel))] = stampStat
	}
	for _, rel := range s.Static {
		p := filepath.Join(s.opt.Content, filepath.FromSlash(rel))
		want[p], must[p] = stampStat, true
	}
	pages := s.Pages
	if s.Home != nil {
		pages = append(pages[:len(pages):len(pages)], s.Home)
	}
	for _, p := range pages {
		for _, d := range p.Deps {
			if d != p.Src {
				want[d], must[d] = stampStat, true
			}
		}
		if r := p.Report; r != nil {
			switch {
			case !r.resultsFound:
				want[r.ResultsDir] = stampAbsent
			case !r.resultsFlat:
				return nil, false
			default:
				want[r.ResultsDir], must[r.ResultsDir] = stampLstat, true
			}
		}
	}
	want[out], must[out] = stampLstat, true
	// The manifest of out: a build that finds it rewritten (by another
	// build, or edited) takes the normal path, which reads it. This
	// build may have written it: its own write is not racy.
	manifest := (&buildCache{dir: s.opt.cacheDir()}).manifestPath(out)
	want[manifest], must[manifest] = stampLstat, true
	for p := range o.sums {
		f := filepath.Join(out, filepath.FromSlash(p))
		want[f], must[f] = stampLstat, true
	}
	for d := range outDirs(o.sums) {
		f := filepath.Join(out, d)
		want[f], must[f] = stampLstat, true
	}
	names := make([]string, 0, len(want))
	for n := range want {
		names = append(names, n)
	}
	sort.Strings(names)
	entries := make([]stampEntry, len(names))
	horizon := s.inputStats.horizon
	bad := untilFalse(len(names), func(i int) bool {
		n, kind := names[i], want[names[i]]
		var fi os.FileInfo
		var err error
		if kind == stampStat {
			fi, err = os.Stat(n)
		} else {
			fi, err = os.Lstat(n)
		}
		if os.IsNotExist(err) && !must[n] {
			if kind == stampStat {
				// An absent page: it must be absent as Lstat says.
				if _, lerr := os.Lstat(n); !os.IsNotExist(lerr) {
					return false
				}
			}
			entries[i] = stampEntry{name: n, kind: stampAbsent}
			return true
		}
		if err != nil || kind == stampAbsent {
			return false // found where the build found nothing, or unreadable
		}
		id, ok := statID(fi)
		if !ok || n != manifest && racy(id.CTime, horizon) {
			return false // changed since the build began to read
		}
		entries[i] = stampEntry{name: n, kind: kind, id: id}
		return true
	})
	return entries, !bad
}

// The file: stampFormat, the key (uvarint length and bytes), the figures
// (pages, reports, files, cached, laid out as uvarints, then the count of
// warnings and each as a string), then per path its name, kind and, for
// a path that exists, size, mtime, ctime, inode, device (8 bytes each,
// little endian); last, the CRC-32C of the rest.

func encodeStamp(key string, st Stats, entries []stampEntry) []byte {
	b := []byte(stampFormat)
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	for _, v := range []int{st.Pages, st.Reports, st.Files, st.Cached, st.LaidOut, len(st.Warnings)} {
		b = binary.AppendUvarint(b, uint64(v))
	}
	for _, w := range st.Warnings {
		b = binary.AppendUvarint(b, uint64(len(w)))
		b = append(b, w...)
	}
	for _, e := range entries {
		b = binary.AppendUvarint(b, uint64(len(e.name)))
		b = append(b, e.name...)
		b = append(b, e.kind)
		if e.kind != stampAbsent {
			for _, v := range []uint64{uint64(e.id.Size), uint64(e.id.MTime), uint64(e.id.CTime), e.id.Ino, e.id.Dev} {
				b = binary.LittleEndian.AppendUint64(b, v)
			}
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

func decodeStamp(b []byte) (key string, st Stats, entries []stampEntry, ok bool) {
	if len(b) < 4+len(stampFormat) || crc32.Checksum(b[:len(b)-4], castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) ||
		string(b[:len(stampFormat)]) != stampFormat {
		return "", Stats{}, nil, false
	}
	r := &reader{b: b[len(stampFormat) : len(b)-4]}
	key = r.string()
	st.Pages, st.Reports, st.Files, st.Cached, st.LaidOut = int(r.uvarint()), int(r.uvarint()), int(r.uvarint()), int(r.uvarint()), int(r.uvarint())
	nw := r.uvarint()
	for i := uint64(0); i < nw && !r.bad; i++ {
		st.Warnings = append(st.Warnings, r.string())
	}
	for len(r.b) > 0 && !r.bad {
		e := stampEntry{name: r.string()}
		if k := r.bytes(1); k != nil {
			e.kind = k[0]
		}
		switch e.kind {
		case stampAbsent:
		case stampStat, stampLstat:
			e.id = fileID{Size: int64(r.uint64()), MTime: int64(r.uint64()), CTime: int64(r.uint64()), Ino: r.uint64(), Dev: r.uint64()}
		default:
			r.bad = true
		}
		entries = append(entries, e)
	}
	if r.bad {
		return "", Stats{}, nil, false
	}
	return key, st, entries, true
}
