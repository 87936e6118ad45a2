package roundload

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/inputs"
)

// manyRounds writes round 1 and rounds r02..rN into dir, two results
// each: more rounds than a block holds.
func manyRounds(t *testing.T, dir string, n int) {
	t.Helper()
	for k := 1; k <= n; k++ {
		rdir := dir
		if k > 1 {
			id := fmt.Sprintf("r%02d", k)
			rd, err := schema.CreateRound(dir, &schema.Round{ID: id, Start: fmt.Sprintf("2026-01-01T00:%02d:00Z", k)})
			if err != nil {
				t.Fatal(err)
			}
			rdir = rd.Dir
		}
		for i, id := range []string{"a", "b"} {
			if err := schema.WriteFile(filepath.Join(rdir, id+".json"), result(id, float64(100*k+i))); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// blockBuild is a build's use of the round cache in cdir for the
// results directories dirs (nil cdir: none): each directory scanned
// and every round given to Results, then kept; it returns each
// directory's rounds' keys and how many rounds' files were read now
// (not known by their sums).
type blockBuild struct {
	keys   map[string][][32]byte
	read   int
	listed int64
	parsed int64
	had    map[string]int // blocks read, by directory
}

func buildBlocks(t *testing.T, cdir string, dirs ...string) blockBuild {
	t.Helper()
	time.Sleep(30 * time.Millisecond) // the files are older than the build (the racy rule)
	var st *inputs.Stats
	var c *Cache
	if cdir != "" {
		if st = inputs.OpenStats(cdir, "test"); st == nil {
			t.Skip("no input stat cache on this platform")
		}
		c = Open(cdir)
	}
	bb := blockBuild{keys: map[string][][32]byte{}, had: map[string]int{}}
	listed, parsed := Listings(), Records()
	for _, dir := range dirs {
		in := inputs.NewReader(st)
		d, err := c.Scan(in, dir)
		if err != nil {
			t.Fatal(err)
		}
		bb.had[dir] = len(d.had)
		for _, rd := range d.Rounds {
			r, err := d.Results(in, rd, "salt", func(*schema.Result) {})
			if err != nil {
				t.Fatal(err)
			}
			if r.kept != nil {
				bb.read++
			}
			bb.keys[dir] = append(bb.keys[dir], r.Key())
		}
		d.Keep()
	}
	bb.listed, bb.parsed = Listings()-listed, Records()-parsed
	if c != nil {
		c.Finish(true)
		st.Save()
	}
	return bb
}

// TestRoundBlocks: the round entries kept in blocks (blocks.go) give
// the next build every round of two reports of more rounds than a
// block holds, neither listed, parsed nor read; and each change a round
// entry's checks must see is seen, whichever block the round is in —
// a result edited in place (same size, its time put back), a result
// added, a record edited, a round removed (the later rounds move to
// other blocks), rounds removed until one block is left — each round's
// key then the one a build without the cache makes. Two reports' blocks
// (the key's directory) and a report's blocks (the key's place) are
// each their own: with either left out of the key, the unchanged
// build would list rounds again.
func TestRoundBlocks(t *testing.T) {
	root, cdir := t.TempDir(), t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	manyRounds(t, a, 2*blockLen+3)
	manyRounds(t, b, blockLen+2)
	check := func(what string, got blockBuild, read int, listed, parsed int64) {
		t.Helper()
		want := buildBlocks(t, "", a, b) // no cache: every file read
		for _, dir := range []string{a, b} {
			if fmt.Sprint(got.keys[dir]) != fmt.Sprint(want.keys[dir]) {
				t.Errorf("%s: %s: rounds' keys differ from a build without the cache", what, filepath.Base(dir))
			}
		}
		if got.read != read || got.listed != listed || got.parsed != parsed {
			t.Errorf("%s: read %d rounds' files, listed %d round directories, parsed %d records; want %d, %d, %d",
				what, got.read, got.listed, got.parsed, read, listed, parsed)
		}
	}
	ra, rb := 2*blockLen+3, blockLen+2
	check("first build", buildBlocks(t, cdir, a, b), ra+rb, int64(ra+rb), int64(ra+rb-2))
	got := buildBlocks(t, cdir, a, b)
	check("unchanged", got, 0, 0, 0)
	if got.had[a] != 3 || got.had[b] != 2 {
		t.Errorf("blocks read: a %d, b %d; want 3 and 2", got.had[a], got.had[b])
	}

	// A result of round 3 (the first block) edited in place: same
	// size, its times put back.
	f := filepath.Join(a, schema.RoundsDir, "r03", "a.json")
	fi, err := os.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"total_token_throughput_tok_per_s": 300`, `"total_token_throughput_tok_per_s": 399`, 1)
	if edited == string(data) {
		t.Fatal("no throughput to edit")
	}
	if err := os.WriteFile(f, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(f, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	check("a result edited in place", buildBlocks(t, cdir, a, b), 1, 0, 0)
	check("after the edit", buildBlocks(t, cdir, a, b), 0, 0, 0)

	// A result added to round 20 (the second block): listed again.
	if err := schema.WriteFile(filepath.Join(a, schema.RoundsDir, "r20", "c.json"), result("c", 1)); err != nil {
		t.Fatal(err)
	}
	check("a result added", buildBlocks(t, cdir, a, b), 1, 1, 0)

	// Round 18's record edited (same size).
	rf := filepath.Join(b, schema.RoundsDir, "r18", schema.RoundFile)
	rec, err := os.ReadFile(rf)
	if err != nil {
		t.Fatal(err)
	}
	redated := strings.Replace(string(rec), "2026-01-01T00:18:00Z", "2026-01-01T00:18:30Z", 1)
	if redated == string(rec) {
		t.Fatal("no start to edit")
	}
	if err := os.WriteFile(rf, []byte(redated), 0o644); err != nil {
		t.Fatal(err)
	}
	check("a record edited", buildBlocks(t, cdir, a, b), 0, 0, 1)

	// Round 5 removed: every later round moves one place down, into
	// another block for some; their entries are still theirs.
	if err := os.RemoveAll(filepath.Join(a, schema.RoundsDir, "r05")); err != nil {
		t.Fatal(err)
	}
	check("a round removed", buildBlocks(t, cdir, a, b), 0, 0, 0)
	check("after the removal", buildBlocks(t, cdir, a, b), 0, 0, 0)

	// Rounds removed down to one block, the first, as it was: the
	// blocks beyond are not read.
	for k := blockLen + 2; k <= 2*blockLen+3; k++ {
		if err := os.RemoveAll(filepath.Join(a, schema.RoundsDir, fmt.Sprintf("r%02d", k))); err != nil {
			t.Fatal(err)
		}
	}
	check("rounds removed", buildBlocks(t, cdir, a, b), 0, 0, 0)
	if got := buildBlocks(t, cdir, a, b); got.had[a] != 1 {
		t.Errorf("after the removal of all but %d rounds, %d blocks read; want 1", blockLen, got.had[a])
	}

	// A round added to the full first block: two blocks again, the
	// first saying so.
	rd, err := schema.CreateRound(a, &schema.Round{ID: "r40", Start: "2026-01-01T00:40:00Z"})
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.WriteFile(filepath.Join(rd.Dir, "a.json"), result("a", 1)); err != nil {
		t.Fatal(err)
	}
	check("a round added", buildBlocks(t, cdir, a, b), 1, 1, 1)
	check("after the addition", buildBlocks(t, cdir, a, b), 0, 0, 0)
}
