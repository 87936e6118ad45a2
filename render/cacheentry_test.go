package render

import (
	"bytes"
	"html/template"
	"reflect"
	"testing"
)

// TestCacheEntryCodec: an entry reads back as written (with and without
// files, charts and empty fields), and every truncation of it, or a byte
// too many, reads as an error rather than as a different entry.
func TestCacheEntryCodec(t *testing.T) {
	entries := []*cacheEntry{
		{},
		{Page: renderedPage{Title: "T", Description: "D", Body: "<p>b</p>\n", Charts: true},
			Search: searchEntry{Title: "T", URL: "a/index.html", Tags: "x y", Text: "words"},
			Files:  []File{{Path: "a/data.json", Data: []byte("{}\n")}, {Path: "a/data.csv", Data: []byte{}}}},
		{Page: renderedPage{Body: template.HTML("é\x00" + string(make([]byte, 300)))}, Files: []File{{Path: "p", Data: []byte("x")}}},
	}
	for i, e := range entries {
		var b bytes.Buffer
		encodeEntry(&b, e)
		got, err := decodeEntry(bytes.Clone(b.Bytes()))
		if err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		// Zero files read back as none; empty data as empty.
		want := *e
		for j := range want.Files {
			if want.Files[j].Data == nil {
				want.Files[j].Data = []byte{}
			}
		}
		if !reflect.DeepEqual(*got, want) {
			t.Errorf("entry %d: read back %+v, want %+v", i, got, want)
		}
		for n := 0; n < b.Len(); n++ {
			if _, err := decodeEntry(b.Bytes()[:n]); err == nil {
				t.Errorf("entry %d cut to %d of %d bytes: no error", i, n, b.Len())
			}
		}
		if _, err := decodeEntry(append(bytes.Clone(b.Bytes()), 0)); err == nil {
			t.Errorf("entry %d with a byte too many: no error", i)
		}
	}
}
