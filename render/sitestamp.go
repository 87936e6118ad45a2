package render

import (
	"github.com/perflab/perflab/render/inputs"
	"github.com/perflab/perflab/render/output"
	"github.com/perflab/perflab/render/wire"

	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// An unchanged rebuild of the 1,000-report site still loaded every
// campaign and result (YAML and JSON decoding, ~0.3 s of 0.4) only to
// find every page already in --out. The site stamp, kept in the cache
// directory after a build that found --out exactly as it should be and
// left it alone, records everything such a build depended on, each with
// its identity as stat reports it (render/inputs: size, modification and
// change times, inode, device). The inputs are what the build's Readers
// recorded (stampEntries), not a list kept here:
//   - every directory of content/ that the build listed (adding, removing
//     or renaming a file in a directory sets its change time), every
//     Markdown file (drafts, and a bundle's absent index.md, included) and
//     every static file;
//   - each report's campaign file, results directory (or that there was
//     none: creating it changes the report) and result files;
//   - every file a page's blocks read when it was rendered;
//   - --out itself, each of its directories and each of its files, and
//     the manifest of --out in the cache (render/output);
//   - the options, the working directory and perflab's build.
//
// The next build stats those paths, reads nothing else, and when every
// identity is the recorded one it is done: it reports the stamp's figures
// and touches neither --out nor the cache. Anything else is a normal
// build. A file a Reader took by stat when it recorded it (the round
// cache's result files: KnownAs) is recorded with the identity taken
// then; the other paths are stat'ed after the build. A stamp is written
// only when no recorded identity changed at or after the moment the
// build began to read (the input stat cache's marker: the racy rule of
// render/inputs), so that a change made during the build is never
// recorded as what the build saw (one made after a file's identity was
// taken changes it: the next build does not stop at the stamp); only
// for a build whose state on disk agrees with what it loaded (a results
// directory found is a directory, one not found is absent, a campaign
// and its results still exist: a file gone since its identity was taken
// fails the next build's check); never with a templates directory, live
// reload, --no-cache, or a results directory that is a link or has
// subdirectories (walked: not worth recording).

// stampVersion heads the file: wire's version of the stamp's type.
var stampVersion = "perflab-site-stamp " + wire.Version(stampFile{}) + "\n"

// The kinds of a stamp's path.
const (
	stampAbsent = 0 // os.Lstat says it does not exist
	stampStat   = 1 // os.Stat's identity (a file read through links)
	stampLstat  = 2 // os.Lstat's identity (a directory, an output)
)

type stampEntry struct {
	Name string
	Kind byte
	ID   inputs.ID
}

// stampFile is the stamp (after stampVersion, before its CRC-32C).
type stampFile struct {
	Key     string
	Stats   Stats
	Entries []stampEntry
}

// stampKey is everything besides the recorded paths that a build's
// output depends on: perflab's build, the working directory, and every
// option (wire's encoding of Options, so that a new option is in it).
func stampKey(opt Options, out string) string {
	wd, _ := os.Getwd()
	h := sha256.New()
	field(h, stampVersion, selfVersion(), wd, out, opt.cacheDir(), string(wire.Append(nil, opt)))
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
	if e.Kind == stampStat {
		fi, err = os.Stat(e.Name)
	} else {
		fi, err = os.Lstat(e.Name)
	}
	if e.Kind == stampAbsent {
		return os.IsNotExist(err)
	}
	if err != nil {
		return false
	}
	id, ok := inputs.StatID(fi)
	return ok && id == e.ID
}

// stamp writes the site stamp after a successful build that left out
// alone, or removes a stale one.
func (s *Site) stamp(out string, st Stats) {
	if testHookBeforeStamp != nil {
		testHookBeforeStamp()
	}
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

// testHookBeforeStamp, when set (tests only), runs when a build that
// left out alone is about to stamp it: after every input was read.
var testHookBeforeStamp func()

// stampEntries are the paths a stamp records, with their identities;
// ok is false when the build may not be stamped. The paths are what the
// build's readers recorded (Load's walk of content/, every page's reads,
// drafts' included, and what its blocks read when rendered): nothing is
// listed here by hand, so a new kind of input is stamped as it is read.
// Out's files and directories, and its manifest, are added.
//
// A file whose identity a Reader took by stat when it recorded the file
// (inputs.Reader.EachRecord: the round cache's 1.4 million result files
// of a thousand reports' hundred rounds, checked by KnownAs) is stamped
// with that identity, not stat'ed again: a change after that stat
// changes the identity (its change time cannot be put back), so the
// next build does not stop at the stamp; one changed at or after the
// moment the build began to read is racy (no stamp), as below. The
// other paths (directories listed, absent paths, files read without
// such an identity, Out's, the manifest) are stat'ed now (stampNow).
func (s *Site) stampEntries(out string) ([]stampEntry, bool) {
	o := s.untouched
	if o == nil || o.Relaid() || s.InputStats == nil || !stampable(s.opt) || s.In == nil {
		return nil, false
	}
	readers := append([]*inputs.Reader{s.In}, s.Readers...)
	for _, p := range s.Pages {
		readers = append(readers, p.Rendered)
	}
	if s.Home != nil {
		readers = append(readers, s.Home.Rendered)
	}
	var seen []stampSeen
	tree := false
	for _, rd := range readers {
		if rd == nil {
			continue
		}
		rd.EachRecord(func(rec inputs.Record, id inputs.ID, known bool) {
			kind := byte(stampStat)
			switch rec.Kind {
			case inputs.Value:
				return
			case inputs.Absent:
				kind = stampAbsent
			case inputs.Dir, inputs.Listed:
				kind = stampLstat
			case inputs.Tree:
				tree = true // walked: not worth recording
			}
			seen = append(seen, stampSeen{name: rec.Name, kind: kind, id: id, known: known})
		})
	}
	if tree {
		return nil, false
	}
	seen = append(seen, stampSeen{name: out, kind: stampLstat})
	// The manifest of out: a build that finds it rewritten (by another
	// build, or edited) takes the normal path, which reads it. This
	// build may have written it: its own write is not racy.
	manifest := output.ManifestPath(s.opt.cacheDir(), out)
	seen = append(seen, stampSeen{name: manifest, kind: stampLstat})
	for p := range o.Paths() {
		seen = append(seen, stampSeen{name: filepath.Join(out, filepath.FromSlash(p)), kind: stampLstat})
	}
	for d := range output.Dirs(o.Paths()) {
		seen = append(seen, stampSeen{name: filepath.Join(out, d), kind: stampLstat})
	}
	entries, stat, ok := mergeSeen(seen, s.InputStats.Horizon())
	if !ok {
		return nil, false
	}
	return entries, s.stampNow(entries, stat, manifest)
}

// stampSeen is one record of a path: its stamp kind (stampAbsent: found
// absent) and, where known, the identity stat gave when it was recorded.
type stampSeen struct {
	name  string
	kind  byte
	id    inputs.ID
	known bool
}

// mergeSeen sorts seen by name and makes one entry of each name's
// records; stat lists the entries whose identity is to be taken now (the
// rest have a known one, not racy). ok is false when the build may not
// be stamped: a path found and not found, two identities of a file, a
// racy one.
func mergeSeen(seen []stampSeen, horizon int64) (entries []stampEntry, stat []int, ok bool) {
	slices.SortFunc(seen, func(a, b stampSeen) int { return strings.Compare(a.name, b.name) })
	entries = make([]stampEntry, 0, len(seen))
	for i := 0; i < len(seen); {
		j := i + 1
		for j < len(seen) && seen[j].name == seen[i].name {
			j++
		}
		e := stampEntry{Name: seen[i].name, Kind: seen[i].kind}
		var id inputs.ID
		known := false
		for _, r := range seen[i:j] {
			if (r.kind == stampAbsent) != (e.Kind == stampAbsent) {
				return nil, nil, false // found and not found: changed during the build
			}
			e.Kind = max(e.Kind, r.kind) // a directory or an output: Lstat
			if r.known {
				if known && r.id != id {
					return nil, nil, false // two identities: changed during the build
				}
				id, known = r.id, true
			}
		}
		if known && e.Kind == stampStat {
			if inputs.Racy(id.CTime, horizon) {
				return nil, nil, false // changed since the build began to read
			}
			e.ID = id
		} else {
			stat = append(stat, len(entries))
		}
		entries = append(entries, e)
		i = j
	}
	return entries, stat, true
}

// stampNow stats the paths of entries[i], i in stat, of their kind and
// sets their identities; it returns false when one is not as the build
// saw it (found where the build found nothing or not found where it
// found something, or changed since the build began to read).
func (s *Site) stampNow(entries []stampEntry, stat []int, manifest string) bool {
	horizon := s.InputStats.Horizon()
	bad := untilFalse(len(stat), func(k int) bool {
		e := &entries[stat[k]]
		n, kind := e.Name, e.Kind
		var fi os.FileInfo
		var err error
		if kind == stampStat {
			fi, err = os.Stat(n)
		} else {
			fi, err = os.Lstat(n)
		}
		if os.IsNotExist(err) && kind == stampAbsent {
			return true
		}
		if err != nil || kind == stampAbsent {
			return false // found where the build found nothing, or unreadable
		}
		id, ok := inputs.StatID(fi)
		if !ok || n != manifest && inputs.Racy(id.CTime, horizon) {
			return false // changed since the build began to read
		}
		e.ID = id
		return true
	})
	return !bad
}

// The file: stampVersion (a line), the stampFile (wire), then the
// CRC-32C of all of that (4 bytes, little endian).

func encodeStamp(key string, st Stats, entries []stampEntry) []byte {
	b := wire.Append([]byte(stampVersion), stampFile{Key: key, Stats: st, Entries: entries})
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

func decodeStamp(b []byte) (key string, st Stats, entries []stampEntry, ok bool) {
	if len(b) < 4+len(stampVersion) || crc32.Checksum(b[:len(b)-4], castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) ||
		string(b[:len(stampVersion)]) != stampVersion {
		return "", Stats{}, nil, false
	}
	var f stampFile
	if wire.Decode(b[len(stampVersion):len(b)-4], &f) != nil {
		return "", Stats{}, nil, false
	}
	return f.Key, f.Stats, f.Entries, true
}
