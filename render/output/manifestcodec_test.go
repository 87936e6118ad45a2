package output

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
)

// TestSumOutput: an output's sum is XXH3's 128-bit hash (the reference
// vectors of the xxHash project, hi then lo), it tells apart every
// one-bit change of a page-sized buffer, and a manifest whose files carry
// the old 32-byte SHA-256 sums (perflab-manifest-1) is not read.
func TestSumOutput(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "99aa06d3014798d86001c324468d497f"},
		{"abc", "06b05ab6733a618578af5f94892f3950"},
	} {
		if s := SumOf([]byte(tc.in)); fmt.Sprintf("%x", s[:]) != tc.want {
			t.Errorf("SumOf(%q) = %x, want %s", tc.in, s[:], tc.want)
		}
	}
	buf := []byte(strings.Repeat("<p>data</p>\n", 400))
	base := SumOf(buf)
	for i := range buf {
		for bit := 0; bit < 8; bit++ {
			buf[i] ^= 1 << bit
			if SumOf(buf) == base {
				t.Fatalf("flipping bit %d of byte %d keeps the sum", bit, i)
			}
			buf[i] ^= 1 << bit
		}
	}
	m := &Manifest{Out: "/x/site", Files: map[string]FileRecord{"a.html": {Sum: base, Size: 3}}}
	data := encodeManifest(m)
	if got := decodeManifest(data); got == nil || got.Files["a.html"] != m.Files["a.html"] {
		t.Fatalf("round trip: %+v", got)
	}
	old := append([]byte("perflab-manifest-1\n"), data[len(manifestVersion):]...)
	if decodeManifest(old) != nil {
		t.Error("a perflab-manifest-1 manifest was read")
	}
}

// TestManifestCodec: a manifest reads back as written; a truncated or
// foreign one reads as none.
func TestManifestCodec(t *testing.T) {
	m := &Manifest{Out: "/x/site", Extra: sha256.Sum256([]byte("s")),
		Files: map[string]FileRecord{"a/index.html": {Sum: SumOf([]byte("a")), Size: 3, ModTime: -4, CTime: 5, Ino: 6, Racy: true}, "b.css": {Size: 1}},
		Units: map[string]Unit{"a/": {Key: sha256.Sum256([]byte("l")), Extra: sha256.Sum256([]byte("e")), Paths: []string{"a/index.html", "a/data.json"}}, "c/": {}},
		Dirs:  map[string]DirRecord{"a": {ModTime: 1, CTime: 2, Ino: 3, Racy: true}, "a/b": {}},
	}
	data := encodeManifest(m)
	got := decodeManifest(data)
	if got == nil || got.Out != m.Out || got.Extra != m.Extra || len(got.Files) != 2 || got.Files["a/index.html"] != m.Files["a/index.html"] ||
		len(got.Units) != 2 || got.Units["a/"].Key != m.Units["a/"].Key || got.Units["a/"].Extra != m.Units["a/"].Extra ||
		strings.Join(got.Units["a/"].Paths, ",") != "a/index.html,a/data.json" || len(got.Dirs) != 2 || got.Dirs["a"] != m.Dirs["a"] {
		t.Errorf("round trip: %+v", got)
	}
	if string(encodeManifest(got)) != string(data) {
		t.Error("encoding is not deterministic")
	}
	m.Dirs = nil
	if got := decodeManifest(encodeManifest(m)); got == nil || got.Dirs != nil {
		t.Errorf("no directories: %+v", got)
	}
	for n := 0; n < len(data); n += 7 {
		if decodeManifest(data[:n]) != nil {
			t.Errorf("truncated to %d bytes: decoded", n)
		}
	}
	if decodeManifest(append(data, 0)) != nil {
		t.Error("trailing byte: decoded")
	}
}

// TestManifestDamaged: a manifest with any byte changed reads as none,
// not as another manifest (a unit whose path rounds/r005.json became
// rounds/r004.json was reused and r005.json left out of the site).
func TestManifestDamaged(t *testing.T) {
	m := &Manifest{Out: "/x/site",
		Files: map[string]FileRecord{"a/rounds/r004.json": {Size: 3}, "a/rounds/r005.json": {Size: 4}},
		Units: map[string]Unit{"a/rounds/r005": {Key: sha256.Sum256([]byte("k")), Paths: []string{"a/rounds/r005.json"}}},
	}
	data := encodeManifest(m)
	for i := range data {
		for _, x := range []byte{1, 0x80} {
			bad := bytes.Clone(data)
			bad[i] ^= x
			if got := decodeManifest(bad); got != nil {
				t.Fatalf("byte %d ^ %#x: decoded as %+v", i, x, got)
			}
		}
	}
}
