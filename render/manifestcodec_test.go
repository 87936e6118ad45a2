package render

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

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

// TestSumOutput: an output's sum is XXH3's 128-bit hash (the reference
// vectors of the xxHash project, hi then lo), it tells apart every
// one-bit change of a page-sized buffer, and a manifest whose files carry
// the old 32-byte SHA-256 sums (perflab-manifest-1) is not read.
func TestSumOutput(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "99aa06d3014798d86001c324468d497f"},
		{"abc", "06b05ab6733a618578af5f94892f3950"},
	} {
		if s := sumOutput([]byte(tc.in)); fmt.Sprintf("%x", s[:]) != tc.want {
			t.Errorf("sumOutput(%q) = %x, want %s", tc.in, s[:], tc.want)
		}
	}
	buf := []byte(strings.Repeat("<p>data</p>\n", 400))
	base := sumOutput(buf)
	for i := range buf {
		for bit := 0; bit < 8; bit++ {
			buf[i] ^= 1 << bit
			if sumOutput(buf) == base {
				t.Fatalf("flipping bit %d of byte %d keeps the sum", bit, i)
			}
			buf[i] ^= 1 << bit
		}
	}
	m := &manifest{Out: "/x/site", Files: map[string]manifestFile{"a.html": {Sum: base, Size: 3}}}
	data := encodeManifest(m)
	if got := decodeManifest(data); got == nil || got.Files["a.html"] != m.Files["a.html"] {
		t.Fatalf("round trip: %+v", got)
	}
	old := append([]byte("perflab-manifest-1\n"), data[len(manifestVersion):]...)
	if decodeManifest(old) != nil {
		t.Error("a perflab-manifest-1 manifest was read")
	}
}
