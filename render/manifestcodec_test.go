package render

import (
	"reflect"
	"testing"
)

// TestCacheEntryCodec: a cache entry reads back as written; a truncated or
// padded one reads as none (a miss).
func TestCacheEntryCodec(t *testing.T) {
	for _, e := range []*cacheEntry{
		{},
		{Page: renderedPage{Title: "T", Description: "D", Body: "<p>b</p>", Charts: true},
			Search: searchEntry{Title: "T", URL: "a/index.html", Tags: "x y", Text: "text"},
			Files:  []File{{Path: "a/data.json", Data: []byte("{}")}, {Path: "a/data.csv", Data: []byte{}}}},
	} {
		data := encodeCacheEntry(e)
		got := decodeCacheEntry(data)
		if got == nil || got.Page != e.Page || got.Search != e.Search || len(got.Files) != len(e.Files) {
			t.Fatalf("round trip of %+v: %+v", e, got)
		}
		for i, f := range e.Files {
			if got.Files[i].Path != f.Path || string(got.Files[i].Data) != string(f.Data) {
				t.Errorf("file %d: %+v, want %+v", i, got.Files[i], f)
			}
		}
		for n := 0; n < len(data); n++ {
			if decodeCacheEntry(data[:n]) != nil {
				t.Errorf("truncated to %d bytes: decoded", n)
			}
		}
		if decodeCacheEntry(append(data, 0)) != nil {
			t.Error("trailing byte: decoded")
		}
	}
	if !reflect.DeepEqual(decodeCacheEntry(encodeCacheEntry(&cacheEntry{})), &cacheEntry{}) {
		t.Error("empty entry")
	}
}

// TestSearchEntriesCodec: the manifest's search file reads back as
// written; a truncated or padded one reads as none.
func TestSearchEntriesCodec(t *testing.T) {
	m := map[string]searchEntry{"a/": {Title: "A", URL: "a/index.html", Tags: "t", Text: "text"}, "b/": {}}
	data := encodeSearchEntries(m)
	if got := decodeSearchEntries(data); !reflect.DeepEqual(got, m) {
		t.Errorf("round trip: %v", got)
	}
	for n := 0; n < len(data); n++ {
		if decodeSearchEntries(data[:n]) != nil {
			t.Errorf("truncated to %d bytes: decoded", n)
		}
	}
	if decodeSearchEntries(append(data, 0)) != nil {
		t.Error("trailing byte: decoded")
	}
}
