//go:build linux

package inputs

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestEachRecordIDs: EachRecord gives each record the identity its own
// file had when it was recorded, through Sub and Include (a sub's
// records land after the reader's own), and none to a record made
// without one.
func TestEachRecordIDs(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, n := range []string{"a", "b", "c", "d"} {
		f := filepath.Join(dir, n+".json")
		if err := os.WriteFile(f, []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	time.Sleep(20 * time.Millisecond) // older than the horizon: not racy
	stats := OpenStats(filepath.Join(dir, "cache"), "test")
	if stats == nil {
		t.Skip("no input stat cache here")
	}
	want := map[string]ID{}
	for _, f := range files {
		id, ok := statFile(f)
		if !ok {
			t.Fatal(f)
		}
		want[f] = id
	}
	r := NewReader(stats)
	r.Listed(dir)
	if _, _, err := r.ReadFile(files[0]); err != nil { // read: no identity kept
		t.Fatal(err)
	}
	sub := r.Sub()
	sub.Value("v", "1")
	if !sub.KnownAs(files[1], want[files[1]], sha256.Sum256([]byte("b"))) {
		t.Fatal("KnownAs refused the file's own identity")
	}
	if _, _, _, ok, err := sub.ReadFileID(files[2]); err != nil || !ok {
		t.Fatalf("ReadFileID: ok %v, %v", ok, err)
	}
	r.Include(sub)
	if !r.KnownAs(files[3], want[files[3]], sha256.Sum256([]byte("d"))) {
		t.Fatal("KnownAs refused the file's own identity")
	}
	type got struct {
		name  string
		id    ID
		known bool
	}
	var gots []got
	r.EachRecord(func(rec Record, id ID, known bool) { gots = append(gots, got{rec.Name, id, known}) })
	wantRecs := []got{{dir, ID{}, false}, {files[0], ID{}, false}, {"v", ID{}, false},
		{files[1], want[files[1]], true}, {files[2], want[files[2]], true}, {files[3], want[files[3]], true}}
	if len(gots) != len(wantRecs) {
		t.Fatalf("EachRecord gave %d records, want %d: %+v", len(gots), len(wantRecs), gots)
	}
	for i := range wantRecs {
		if gots[i] != wantRecs[i] {
			t.Errorf("record %d: %+v, want %+v", i, gots[i], wantRecs[i])
		}
	}
}
