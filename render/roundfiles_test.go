package render

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/blocks"
	"github.com/perflab/perflab/render/site"
)

// checkRoundFiles checks the round files of the report at url in the
// site out, whose results directory is res: data.json lists every round
// of res (schema.Rounds' order) with links that resolve, relative to
// it, to files of the site; each round's data.json holds the round's id
// and runs of exactly the round's results (ids and total throughput),
// its data.csv a row per run, led by the round's id; the report's
// rounds/ directory holds no other round.
func checkRoundFiles(t *testing.T, out, url, res string) {
	t.Helper()
	page := filepath.Join(out, filepath.FromSlash(url))
	var data struct {
		Rounds []struct {
			ID       string `json:"id"`
			DataJSON string `json:"data_json"`
			DataCSV  string `json:"data_csv"`
		} `json:"rounds"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(page, "data.json"))), &data); err != nil {
		t.Fatal(err)
	}
	rds, err := schema.Rounds(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(data.Rounds) != len(rds) {
		t.Fatalf("%sdata.json lists %d rounds; the results have %d", url, len(data.Rounds), len(rds))
	}
	dirs := map[string]bool{}
	for i, rd := range rds {
		x := data.Rounds[i]
		if x.ID != rd.ID {
			t.Errorf("round %d: data.json says %q, the results %q", i, x.ID, rd.ID)
		}
		dirs[filepath.Base(x.DataJSON)] = true
		dirs[filepath.Base(x.DataCSV)] = true
		var rf blocks.RoundDataFile
		if err := json.Unmarshal([]byte(readFile(t, filepath.Join(page, filepath.FromSlash(x.DataJSON)))), &rf); err != nil {
			t.Fatalf("round %s: %s: %v", rd.ID, x.DataJSON, err)
		}
		files, err := schema.RoundFiles(rd)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]float64{}
		for _, f := range files {
			r, err := schema.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want[r.ID] = -1
			if r.Summary != nil {
				want[r.ID] = r.Summary.TotalTokenThroughput
			}
		}
		got := map[string]float64{}
		for _, run := range rf.Runs {
			got[run.Result] = -1
			if run.Summary != nil {
				got[run.Result] = run.Summary.TotalTokenThroughput
			}
		}
		if rf.Round != rd.ID || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("round %s: %s holds round %q, runs %v; the round's results are %v", rd.ID, x.DataJSON, rf.Round, got, want)
		}
		rows, err := csv.NewReader(strings.NewReader(readFile(t, filepath.Join(page, filepath.FromSlash(x.DataCSV))))).ReadAll()
		if err != nil {
			t.Fatalf("round %s: %s: %v", rd.ID, x.DataCSV, err)
		}
		if len(rows) != len(files)+1 || rows[0][0] != "round" || len(rows) > 1 && rows[1][0] != rd.ID {
			t.Errorf("round %s: %s has %d rows (want %d), led by %q", rd.ID, x.DataCSV, len(rows), len(files)+1, rows[0][0])
		}
	}
	entries, err := os.ReadDir(filepath.Join(page, "rounds"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(dirs) {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("%srounds/ holds %v; data.json lists %d rounds' files", url, names, len(dirs))
	}
}

// countRoundData makes roundDataOf count the rounds it makes, by id,
// and fail for any round not in allowed; it returns the counts and a
// function putting roundDataOf back.
func countRoundData(allowed ...string) (func() map[string]int, func()) {
	var mu sync.Mutex
	made := map[string]int{}
	ok := map[string]bool{}
	for _, id := range allowed {
		ok[id] = true
	}
	roundDataOf = func(r *blocks.Report, ri int) ([]byte, []byte, error) {
		id := r.Rounds[ri].ID
		mu.Lock()
		made[id]++
		mu.Unlock()
		if !ok[id] {
			return nil, nil, fmt.Errorf("round %s made again", id)
		}
		return blocks.RoundData(r, ri)
	}
	return func() map[string]int {
			mu.Lock()
			defer mu.Unlock()
			return made
		}, func() {
			roundDataOf = blocks.RoundData
		}
}

// TestRoundFilesOnce: an older round's files are made by the build that
// first sees the round and never again while it is as it was: the build
// of the next round makes the new round's and the previous latest
// round's (now keyed as an older round) only; an older result edited
// makes that round's files again, and so does one of its files deleted
// from the output; a removed round's files leave the output. Each build's output is a build without the cache's, byte for
// byte, and its links resolve to the rounds' results.
func TestRoundFilesOnce(t *testing.T) {
	opt, res := roundsSite(t)
	dir := filepath.Dir(opt.Content)
	const url = "model-0000/h100/"
	settle()
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	checkRoundFiles(t, opt.Out, url, res)
	// The page's cache entry does not carry the rounds' files.
	// (A round's file names its round at the top level; the report's
	// data.json names it in each run, one level deeper.)
	if pack := readFile(t, filepath.Join(opt.CacheDir, "pack")); strings.Contains(pack, "\n  \"round\": \"r00") {
		t.Error("the page cache holds a round's data file")
	}

	step := func(what string, allowed []string, do func()) {
		t.Helper()
		do()
		made, restore := countRoundData(allowed...)
		settle()
		err := Build(context.Background(), opt)
		restore()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		var ids []string
		for id := range made() {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		if fmt.Sprint(ids) != fmt.Sprint(allowed) {
			t.Errorf("%s: rounds made %v, want %v", what, made(), allowed)
		}
		checkRoundFiles(t, opt.Out, url, res)
		sameTree(t, what, opt.Out, buildCold(t, opt))
	}
	step("next round", []string{"r004", "r005"}, func() { writeRounds(t, dir, 1, 5, 5) })
	step("an older result edited", []string{"r002", "r005"}, func() {
		files, err := filepath.Glob(filepath.Join(res, schema.RoundsDir, "r002", "*--*.json"))
		if err != nil || len(files) == 0 {
			t.Fatal(files, err)
		}
		editSameSize(t, files[0])
	})
	step("an older round's file deleted from the output", []string{"r002"}, func() {
		if err := os.Remove(filepath.Join(opt.Out, "model-0000", "h100", "rounds", "r002.csv")); err != nil {
			t.Fatal(err)
		}
	})
	step("an older round removed", []string{"r005"}, func() {
		if err := os.RemoveAll(filepath.Join(res, schema.RoundsDir, "r003")); err != nil {
			t.Fatal(err)
		}
	})
	if _, err := os.Stat(filepath.Join(opt.Out, url, "rounds", "r003.json")); !os.IsNotExist(err) {
		t.Errorf("removed round's files: %v, want none", err)
	}
}

// TestRoundFile: round ids made by collect are their directory's name;
// any other byte, and a leading dot, is escaped, so that no two ids
// share a directory, on a case-blind file system either.
func TestRoundFile(t *testing.T) {
	for id, want := range map[string]string{
		"1": "rounds/1", "2026-11-27.2": "rounds/2026-11-27.2", "slurm-81234": "rounds/slurm-81234", "v0.13.0_rc": "rounds/v0.13.0_rc",
		"A": "rounds/~41", "a b#": "rounds/a~20b~23", ".x": "rounds/~2ex", "~41": "rounds/~7e41", "é": "rounds/~c3~a9",
		strings.Repeat("Z", 40): "rounds/~~",
	} {
		got := blocks.RoundFile(id)
		if strings.HasSuffix(want, "~~") {
			if !strings.HasPrefix(got, want) || len(got) != len(want)+32 {
				t.Errorf("RoundFile(%q) = %q, want %s and a hash", id, got, want)
			}
			continue
		}
		if got != want {
			t.Errorf("RoundFile(%q) = %q, want %q", id, got, want)
		}
	}
	seen := map[string]string{}
	for _, id := range []string{"a", "A", "~61", "a~", "a~7e", ".a", "~2ea", "x.y", "x~2ey"} {
		d := strings.ToLower(blocks.RoundFile(id))
		if other, dup := seen[d]; dup {
			t.Errorf("%q and %q share %s", id, other, d)
		}
		seen[d] = id
	}
}

// TestRoundsOutReserved: a page inside a report's rounds/ directory,
// where the report writes its rounds' data files, is refused by name.
func TestRoundsOutReserved(t *testing.T) {
	dir := t.TempDir()
	writeSyntheticSite(t, dir, 1)
	page := filepath.Join(dir, "content", "model-0000", "h100", "rounds", "notes.md")
	if err := os.MkdirAll(filepath.Dir(page), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, []byte("# Notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), NoCache: true})
	if err == nil || !strings.Contains(err.Error(), "notes.md:1: renders to /model-0000/h100/rounds/notes/, inside /model-0000/h100/"+site.RoundsOut) {
		t.Errorf("Load: %v, want the page refused", err)
	}
}

// TestBuilderRoundFiles: the preview server's incremental build writes
// a new round's files (and the report's data.json linking them) in
// place, as a full build would; a removed round makes a full build,
// which leaves none of its files.
func TestBuilderRoundFiles(t *testing.T) {
	opt, res := roundsSite(t)
	dir := filepath.Dir(opt.Content)
	b := NewBuilder(opt)
	if inc, err := b.Build(context.Background(), nil); err != nil || !inc.Full {
		t.Fatalf("first build: %+v, %v", inc, err)
	}
	writeRounds(t, dir, 1, 5, 5)
	inc, err := b.Build(context.Background(), []string{filepath.Join(res, schema.RoundsDir, "r005")})
	if err != nil || inc.Full {
		t.Fatalf("new round: %+v, %v; want an incremental build", inc, err)
	}
	checkRoundFiles(t, opt.Out, "model-0000/h100/", res)
	sameTree(t, "new round, incremental", opt.Out, buildCold(t, opt))

	gone := filepath.Join(res, schema.RoundsDir, "r003")
	if err := os.RemoveAll(gone); err != nil {
		t.Fatal(err)
	}
	inc, err = b.Build(context.Background(), []string{gone})
	if err != nil || !inc.Full || !strings.Contains(inc.Why, "round r003") {
		t.Fatalf("round removed: %+v, %v; want a full build saying why", inc, err)
	}
	checkRoundFiles(t, opt.Out, "model-0000/h100/", res)
	sameTree(t, "round removed", opt.Out, buildCold(t, opt))
}

// TestRoundFileHandMade: a round directory made by hand, its name no
// round id collect would make, gets escaped files that data.json links
// to.
func TestRoundFileHandMade(t *testing.T) {
	opt, res := roundsSite(t)
	old, odd := filepath.Join(res, schema.RoundsDir, "r003"), filepath.Join(res, schema.RoundsDir, "Round 3#x")
	if err := os.Rename(old, odd); err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(odd, schema.RoundFile)
	if err := os.WriteFile(rec, []byte(strings.Replace(readFile(t, rec), `"r003"`, `"Round 3#x"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	checkRoundFiles(t, opt.Out, "model-0000/h100/", res)
	if data := readFile(t, filepath.Join(opt.Out, "model-0000", "h100", "data.json")); !strings.Contains(data, `"data_json": "rounds/~52ound~203~23x.json"`) {
		t.Errorf("data.json does not link the hand-made round's escaped file")
	}
}

// TestRoundFilesCancelled: a build cancelled (Ctrl-C) while it makes a
// report's rounds' files stops before the next round's, not after the
// report's last (one job, seconds at hundreds of rounds), fails with the
// cancellation and swaps nothing in.
func TestRoundFilesCancelled(t *testing.T) {
	opt, res := roundsSite(t)
	rds, err := schema.Rounds(res)
	if err != nil || len(rds) < 3 {
		t.Fatalf("the fixture has %d rounds (%v), want 3 or more", len(rds), err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	made := 0
	roundDataOf = func(r *blocks.Report, ri int) ([]byte, []byte, error) {
		mu.Lock()
		made++
		mu.Unlock()
		cancel() // Ctrl-C while the first round's files are made
		return blocks.RoundData(r, ri)
	}
	defer func() { roundDataOf = blocks.RoundData }()
	err = Build(ctx, opt)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("build cancelled while making a round's files: %v, want context.Canceled", err)
	}
	if made != 1 {
		t.Errorf("cancelled while making the first round's files, the build made %d rounds' files of %d", made, len(rds))
	}
	if _, err := os.Stat(opt.Out); err == nil {
		t.Error("a cancelled build swapped its site in")
	}
}
