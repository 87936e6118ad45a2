package render

import (
	"sync"

	"bytes"
	"crypto/sha256"

	"github.com/perflab/perflab/render/output"

	"github.com/perflab/perflab/render/wire"
)

// What render keeps in the output manifest (render/output) besides the
// files: a unit per page, under its layout key, with its search entry's
// sum; the digest of the search index's entries; and, in the manifest's
// side file, the entries themselves.

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

// prevSearchOf returns a function giving the search entries (by page
// URL) the last build wrote its search index from (the manifest's side
// file), read once; nil when there are none.
func prevSearchOf(c *buildCache, o *output.Tracker) func() map[string]searchEntry {
	return sync.OnceValue(func() map[string]searchEntry {
		if c == nil || o == nil {
			return nil
		}
		if data := o.PrevSide(c.Dir()); data != nil {
			return decodeSearchEntries(data)
		}
		return nil
	})
}

// outputPage records the page at url, rendered under layout key lk,
// with its search entry and files.
func (s *Site) outputPage(url string, lk [32]byte, se searchEntry, files []File) {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.Path
	}
	s.outputs.Unit(url, lk, searchEntrySum(se), paths)
}

// searchEntriesVersion heads the manifest's search file
// (manifestSearchPath): the entries by page URL, written by wire.
var searchEntriesVersion = "perflab-search " + wire.Version(map[string]searchEntry{}) + "\n"

func encodeSearchEntries(m map[string]searchEntry) []byte {
	n := len(searchEntriesVersion) + 8
	for u, e := range m {
		n += len(u) + len(e.Title) + len(e.URL) + len(e.Tags) + len(e.Text) + 5*binaryMaxVarint
	}
	return wire.Append(append(make([]byte, 0, n), searchEntriesVersion...), m)
}

// binaryMaxVarint is the most bytes a string's length takes in wire.
const binaryMaxVarint = 10

// decodeSearchEntries returns the entries encoded in data, or nil.
func decodeSearchEntries(data []byte) map[string]searchEntry {
	rest, ok := bytes.CutPrefix(data, []byte(searchEntriesVersion))
	if !ok {
		return nil
	}
	m := map[string]searchEntry{}
	if wire.Decode(rest, &m) != nil {
		return nil
	}
	if m == nil {
		m = map[string]searchEntry{}
	}
	return m
}

// readManifest returns the manifest of out, or nil.
func (s *Site) readManifest(out string) *output.Manifest {
	if s.cache == nil {
		return nil
	}
	return output.ReadManifest(s.cache.Dir(), out)
}

// writeManifest records out as o tracked it (output.WriteManifest), in
// the cache; without a cache, nothing.
func (s *Site) writeManifest(out string, o *output.Tracker) {
	if s.cache != nil {
		output.WriteManifest(s.cache.Dir(), out, o)
	}
}
