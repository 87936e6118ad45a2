package render

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/inputs"
	"github.com/perflab/perflab/render/roundload"
)

// roundsSite writes a synthetic site of one report with four rounds and
// returns its options (with a build cache) and the report's results
// directory.
func roundsSite(t *testing.T) (Options, string) {
	t.Helper()
	dir := t.TempDir()
	writeSyntheticSite(t, dir, 1)
	writeSyntheticRounds(t, dir, 1, 4)
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site"), CacheDir: filepath.Join(dir, "cache")}
	return opt, filepath.Join(dir, "results", "model-0000-h100")
}

// buildCold builds opt's site without a cache into a fresh directory and
// returns it.
func buildCold(t *testing.T, opt Options) string {
	t.Helper()
	opt.Out, opt.NoCache, opt.CacheDir = filepath.Join(t.TempDir(), "site"), true, ""
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	return opt.Out
}

// editSameSize changes the first digit of every total throughput in the
// result file f, keeping its size and putting its modification time
// back: only its change time (and bytes) tell.
func editSameSize(t *testing.T, f string) {
	t.Helper()
	fi, err := os.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	b := []byte(readFile(t, f))
	const field = `"total_token_throughput_tok_per_s": `
	n := 0
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte(field))
		if j < 0 {
			break
		}
		k := i + j + len(field)
		if b[k] >= '1' && b[k] <= '8' {
			b[k]++
		} else {
			b[k] = '1'
		}
		n++
		i = k
	}
	if n == 0 {
		t.Fatalf("%s: no %s", f, field)
	}
	if err := os.WriteFile(f, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(f, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(f); err != nil || after.Size() != fi.Size() || !after.ModTime().Equal(fi.ModTime()) {
		t.Fatalf("%s: size or mtime changed", f)
	}
}

// TestRoundCacheEdit: an older round's result file edited in place (same
// size, modification time put back) after builds that cached the round
// changes the history and data.json as a build without a cache shows
// them. The edit is seen by the file's change time (the input stat
// cache's identity, which cannot be put back); a file system that kept
// the change time would hide it from the input stat cache, the site
// stamp and the round cache alike.
func TestRoundCacheEdit(t *testing.T) {
	opt, res := roundsSite(t)
	for i := 0; i < 2; i++ { // the second build stamps the site
		settle()
		if err := Build(context.Background(), opt); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(opt.Out, "model-0000", "h100", "data.json")
	before := readFile(t, data)
	editSameSize(t, filepath.Join(res, "rounds", "r002", "e0-a--sharegpt.json"))
	settle()
	st, err := BuildStats(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if st.Unchanged {
		t.Fatal("the site stamp held after an older round's file was edited")
	}
	if readFile(t, data) == before {
		t.Error("data.json is unchanged after an older round's result was edited")
	}
	sameTree(t, "edited older round", opt.Out, buildCold(t, opt))
}

// TestRoundCache: a build whose older rounds come from the round cache
// (neither read nor hashed: their identities are the input stat cache's)
// writes the bytes a build without any cache writes, pages and data.json
// rendered afresh (the page cache removed) from the cached rounds and
// their data.json memos.
func TestRoundCache(t *testing.T) {
	opt, res := roundsSite(t)
	settle()
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(opt.CacheDir, "pack")); err != nil { // the pages' entries
		t.Fatal(err)
	}
	older := filepath.ToSlash(filepath.Join(res, schema.RoundsDir)) + "/"
	var reads atomic.Int32
	inputs.TestHookAfterStat = func(name string) {
		if strings.HasPrefix(filepath.ToSlash(name), older) && !strings.Contains(name, "r004") && !strings.HasSuffix(name, schema.RoundFile) {
			reads.Add(1)
		}
	}
	defer func() { inputs.TestHookAfterStat = nil }()
	settle()
	st, err := BuildStats(context.Background(), opt)
	inputs.TestHookAfterStat = nil
	if err != nil {
		t.Fatal(err)
	}
	if st.Cached != 0 {
		t.Fatalf("%d pages from the page cache; want none (removed)", st.Cached)
	}
	if n := reads.Load(); n != 0 {
		t.Errorf("the build read %d result files of older rounds; want none (the round cache)", n)
	}
	sameTree(t, "rounds from the round cache", opt.Out, buildCold(t, opt))
}

// TestHistoryNextRound: the build of round 4, with the cache of the
// build of rounds 1..3, decodes no older round again: the history's
// values of rounds 1 and 2 are the round cache's one entry of them
// (render/blocks' historydigest.go), round 3 is read from its files (it
// was the latest); it lists the directories of rounds 3 and 4 alone
// (those of rounds 1 and 2 are the round cache's, their identities
// unchanged); and the site is the one a build without a cache writes.
func TestHistoryNextRound(t *testing.T) {
	opt, res := roundsSite(t)
	latest := filepath.Join(res, schema.RoundsDir, "r004")
	rename(t, latest, filepath.Join(res, "..", "r004"))
	settle()
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	rename(t, filepath.Join(res, "..", "r004"), latest)
	settle()
	before, listed := roundload.Loads(), roundload.Listings()
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	if n := roundload.Loads() - before; n != 0 {
		t.Errorf("the build of round 4 decoded %d older rounds again; want none (the history's entry of rounds 1..2)", n)
	}
	if n := roundload.Listings() - listed; n != 2 {
		t.Errorf("the build of round 4 listed %d round directories; want 2 (rounds 3 and 4)", n)
	}
	sameTree(t, "next round", opt.Out, buildCold(t, opt))
}

// TestSiteStampRounds: the site stamp holds a site whose report has
// rounds when nothing changed, and gives way to a full build (the same
// bytes as a build without a cache) when a round or an older round's
// file is added, removed or edited, or a round's record changes; a round
// with a subdirectory is never stamped (walked).
func TestSiteStampRounds(t *testing.T) {
	older := func(res string) string { return filepath.Join(res, schema.RoundsDir, "r002") }
	cases := []struct {
		name   string
		setup  func(t *testing.T, res string)
		change func(t *testing.T, res string)
		fast   bool
	}{
		{name: "unchanged", fast: true},
		{name: "new round", change: func(t *testing.T, res string) {
			writeRounds(t, filepath.Dir(filepath.Dir(res)), 1, 5, 5)
		}},
		{name: "older round's result edited", change: func(t *testing.T, res string) {
			editSameSize(t, filepath.Join(older(res), "e0-a--sharegpt.json"))
		}},
		{name: "older round's result removed", change: func(t *testing.T, res string) {
			remove(t, filepath.Join(older(res), "e0-b--sharegpt.json"))
		}},
		{name: "result added to an older round", setup: func(t *testing.T, res string) {
			rename(t, filepath.Join(older(res), "e0-b--sharegpt.json"), filepath.Join(res, "..", "spare.json"))
		}, change: func(t *testing.T, res string) {
			rename(t, filepath.Join(res, "..", "spare.json"), filepath.Join(older(res), "e0-b--sharegpt.json"))
		}},
		{name: "round record edited", change: func(t *testing.T, res string) {
			f := filepath.Join(older(res), schema.RoundFile)
			writeFile(t, f, strings.Replace(readFile(t, f), "2026-01-01T00:02:00Z", "2026-01-01T00:02:30Z", 1))
		}},
		{name: "latest round removed", change: func(t *testing.T, res string) {
			if err := os.RemoveAll(filepath.Join(res, schema.RoundsDir, "r004")); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "subdirectory in a round", setup: func(t *testing.T, res string) {
			if err := os.MkdirAll(filepath.Join(older(res), "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
		}}, // walked: never stamped
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opt, res := roundsSite(t)
			if c.setup != nil {
				c.setup(t, res)
			}
			for i := 0; i < 2; i++ {
				settle()
				st, err := BuildStats(context.Background(), opt)
				if err != nil {
					t.Fatal(err)
				}
				if st.Unchanged {
					t.Fatalf("build %d took the stamp's fast path", i+1)
				}
			}
			if c.change != nil {
				c.change(t, res)
			}
			settle()
			st, err := BuildStats(context.Background(), opt)
			if err != nil {
				t.Fatal(err)
			}
			if st.Unchanged != c.fast {
				t.Fatalf("fast path taken: %v, want %v", st.Unchanged, c.fast)
			}
			sameTree(t, c.name, opt.Out, buildCold(t, opt))
		})
	}
}
