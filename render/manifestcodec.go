package render

import (
	"bytes"
	"encoding/binary"
	"sort"
)

// The manifest is read by every build, an unchanged one included; gob
// decoded its thousands of [32]byte sums a byte at a time (a tenth of an
// unchanged 924-page rebuild). This encoding writes them as they are:
// manifestFormat, then Out and Search; the files (count, then per file
// its path, 16-byte outSum, size, mtime, ctime, inode and racy flag); the pages
// (count, then per page its URL, layout key, search sum and paths); the
// directories (count+1, 0 for none, then per directory its path, mtime,
// ctime, inode and racy flag). Strings are a uvarint length and bytes,
// integers 8 bytes little endian, entries sorted so that equal manifests
// encode alike.
const manifestFormat = "perflab-manifest-2\n"

func encodeManifest(m *manifest) []byte {
	b := append([]byte(nil), manifestFormat...)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	u64 := func(v uint64) { b = binary.LittleEndian.AppendUint64(b, v) }
	flag := func(v bool) {
		if v {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	str(m.Out)
	b = append(b, m.Search[:]...)
	u64(uint64(len(m.Files)))
	for _, p := range manifestKeys(m.Files) {
		f := m.Files[p]
		str(p)
		b = append(b, f.Sum[:]...)
		u64(uint64(f.Size))
		u64(uint64(f.ModTime))
		u64(uint64(f.CTime))
		u64(f.Ino)
		flag(f.Racy)
	}
	u64(uint64(len(m.Pages)))
	for _, u := range manifestKeys(m.Pages) {
		pg := m.Pages[u]
		str(u)
		b = append(b, pg.Layout[:]...)
		b = append(b, pg.SearchSum[:]...)
		u64(uint64(len(pg.Paths)))
		for _, p := range pg.Paths {
			str(p)
		}
	}
	if m.Dirs == nil {
		u64(0)
	} else {
		u64(uint64(len(m.Dirs)) + 1)
	}
	for _, d := range manifestKeys(m.Dirs) {
		e := m.Dirs[d]
		str(d)
		u64(uint64(e.ModTime))
		u64(uint64(e.CTime))
		u64(e.Ino)
		flag(e.Racy)
	}
	return b
}

func manifestKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// decodeManifest returns the manifest encoded in data, or nil when it is
// not one (another format, truncated, broken).
func decodeManifest(data []byte) *manifest {
	rest, ok := bytes.CutPrefix(data, []byte(manifestFormat))
	if !ok {
		return nil
	}
	r := &reader{b: rest}
	// count reads a count that the remaining bytes can hold (each item
	// takes at least min bytes), so that a broken count allocates nothing.
	count := func(min uint64) int {
		n := r.uint64()
		if n > uint64(len(r.b))/min {
			r.bad = true
			return 0
		}
		return int(n)
	}
	sum := func() (s [32]byte) {
		copy(s[:], r.bytes(32))
		return s
	}
	flag := func() bool {
		b := r.bytes(1)
		return b != nil && b[0] == 1
	}
	m := &manifest{Out: r.string(), Search: sum()}
	n := count(1 + 16 + 4*8 + 1)
	m.Files = make(map[string]manifestFile, n)
	for i := 0; i < n && !r.bad; i++ {
		p := r.string()
		var fs outSum
		copy(fs[:], r.bytes(uint64(len(fs))))
		m.Files[p] = manifestFile{Sum: fs, Size: int64(r.uint64()), ModTime: int64(r.uint64()), CTime: int64(r.uint64()), Ino: r.uint64(), Racy: flag()}
	}
	n = count(1 + 2*32 + 8)
	m.Pages = make(map[string]manifestPage, n)
	for i := 0; i < n && !r.bad; i++ {
		u := r.string()
		pg := manifestPage{Layout: sum(), SearchSum: sum()}
		k := count(1)
		pg.Paths = make([]string, 0, k)
		for j := 0; j < k && !r.bad; j++ {
			pg.Paths = append(pg.Paths, r.string())
		}
		m.Pages[u] = pg
	}
	if n = count(1); n > 0 {
		n--
		m.Dirs = make(map[string]manifestDir, n)
		for i := 0; i < n && !r.bad; i++ {
			d := r.string()
			m.Dirs[d] = manifestDir{ModTime: int64(r.uint64()), CTime: int64(r.uint64()), Ino: r.uint64(), Racy: flag()}
		}
	}
	if r.bad || len(r.b) != 0 {
		return nil
	}
	return m
}

// The manifest's search file (manifestSearchPath): the number of entries,
// then each one's page URL, title, URL, tags and text as strings.
func encodeSearchEntries(m map[string]searchEntry) []byte {
	n := 8
	for u, e := range m {
		n += len(u) + len(e.Title) + len(e.URL) + len(e.Tags) + len(e.Text) + 5*binary.MaxVarintLen32
	}
	b := make([]byte, 0, n)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(m)))
	for _, u := range manifestKeys(m) {
		e := m[u]
		for _, s := range []string{u, e.Title, e.URL, e.Tags, e.Text} {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	}
	return b
}

// decodeSearchEntries returns the entries encoded in data, or nil.
func decodeSearchEntries(data []byte) map[string]searchEntry {
	r := &reader{b: data}
	n := r.uint64()
	if n > uint64(len(r.b))/5 {
		return nil
	}
	m := make(map[string]searchEntry, n)
	for i := uint64(0); i < n && !r.bad; i++ {
		u := r.string()
		m[u] = searchEntry{Title: r.string(), URL: r.string(), Tags: r.string(), Text: r.string()}
	}
	if r.bad || len(r.b) != 0 {
		return nil
	}
	return m
}
