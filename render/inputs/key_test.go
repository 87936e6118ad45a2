package inputs

import (
	"crypto/sha256"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// keyByPiece is Key as it was written first: each piece written to the
// hash on its own. Keys are stored in caches between builds, so Key's
// bytes must not change: this is the reference it is checked against.
func keyByPiece(recs []Record) [32]byte {
	h := sha256.New()
	for _, rec := range recs {
		h.Write([]byte{byte(rec.Kind)})
		field(h, rec.Name, rec.Ext)
		h.Write(rec.Sum[:])
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// TestKeySame: Key hashes the same bytes as keyByPiece for record lists
// of every length around its buffer's flushes, names long and short,
// empty and not, and a key depends on each field of each record.
func TestKeySame(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var recs []Record
	for i := 0; i < 3000; i++ {
		name := strings.Repeat(string(rune('a'+i%26)), rng.IntN(200))
		if i%97 == 0 {
			name = strings.Repeat("x", 5000+rng.IntN(5000)) // longer than the buffer
		}
		rec := Record{Kind: Kind(1 + rng.IntN(7)), Name: name}
		if rng.IntN(3) == 0 {
			rec.Ext = ".json"
		}
		for j := range rec.Sum {
			rec.Sum[j] = byte(rng.Uint32())
		}
		recs = append(recs, rec)
	}
	for _, n := range []int{0, 1, 2, 30, 31, 32, 33, 97, 98, 500, 1400, 3000} {
		if got, want := Key(recs[:n]), keyByPiece(recs[:n]); got != want {
			t.Fatalf("%d records: Key %x, hashed piece by piece %x", n, got, want)
		}
	}
	base := Key(recs[:40])
	for _, edit := range []func(r *Record){
		func(r *Record) { r.Kind++ },
		func(r *Record) { r.Name += "x" },
		func(r *Record) { r.Ext += "x" },
		func(r *Record) { r.Sum[31]++ },
	} {
		for _, i := range []int{0, 20, 39} {
			c := slices.Clone(recs[:40])
			edit(&c[i])
			if Key(c) == base {
				t.Errorf("record %d edited: same key", i)
			}
		}
	}
	// Name and extension are length-prefixed: moving a byte between
	// them changes the key.
	a := []Record{{Kind: Dir, Name: "ab", Ext: "c"}}
	b := []Record{{Kind: Dir, Name: "a", Ext: "bc"}}
	if Key(a) == Key(b) {
		t.Error("a byte moved from name to extension: same key")
	}
}

// TestPathsSorted: Paths are the files read and the paths found present
// or absent, sorted, once each; nil when there are none.
func TestPathsSorted(t *testing.T) {
	r := NewReader(nil)
	if got := r.Paths(); got != nil {
		t.Fatalf("no records: Paths %q, want nil", got)
	}
	for _, rec := range []Record{
		{Kind: File, Name: "c"}, {Kind: Listed, Name: "dir"}, {Kind: Absent, Name: "a"},
		{Kind: File, Name: "c"}, {Kind: Present, Name: "b"}, {Kind: Value, Name: "v"},
		{Kind: Dir, Name: "d"}, {Kind: Tree, Name: "t"}, {Kind: File, Name: "a"},
	} {
		r.add(rec)
	}
	if got, want := r.Paths(), []string{"a", "b", "c"}; !slices.Equal(got, want) {
		t.Fatalf("Paths %q, want %q", got, want)
	}
}
