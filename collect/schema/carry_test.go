package schema

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// carryByJoin is Carry's search of a round as it was first written: each
// run still missing joined with the round's directory and looked up in
// its files. Carry must read the same files in the same order (a page
// records each file it reads) and carry the same runs.
func carryByJoin(c *Campaign, rounds []RoundDir, shown int, own []*Result, list func(RoundDir) ([]string, error), read func(file string) (*Result, error)) ([]CarriedRun, error) {
	have := map[RunKey]bool{}
	for _, r := range own {
		if r.Status.Finished() {
			have[KeyOf(r)] = true
		}
	}
	missing := map[RunKey]bool{}
	for _, k := range c.PlannedRuns() {
		if !have[k] {
			missing[k] = true
		}
	}
	var out []CarriedRun
	for i := shown - 1; i >= 0 && len(missing) > 0; i-- {
		rd := rounds[i]
		files, err := list(rd)
		if err != nil {
			return nil, err
		}
		var found []string
		for k := range missing {
			f := filepath.ToSlash(filepath.Join(rd.Dir, RunName(k.Experiment, k.Profile, k.Point, k.Repeat)+".json"))
			if j := sort.SearchStrings(files, f); j < len(files) && files[j] == f {
				found = append(found, f)
			}
		}
		sort.Strings(found)
		for _, f := range found {
			res, err := read(f)
			if err != nil {
				return nil, err
			}
			k := KeyOf(res)
			if !missing[k] || !res.Status.Finished() {
				continue
			}
			delete(missing, k)
			out = append(out, CarriedRun{Round: rd, File: f, Result: res})
		}
	}
	return out, nil
}

// TestCarrySame: Carry reads the files carryByJoin reads, in the same
// order, and carries the same runs, over random rounds that measured
// random parts of a campaign (some results interrupted, some files
// holding another run, some in a subdirectory), with round directories
// written unclean and experiment ids a join would clean.
func TestCarrySame(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 300; trial++ {
		exps := []string{"e0", "e1", "e2"}
		if trial%5 == 0 {
			exps = append(exps, "x/../e0", "sub/e1") // names the join cleans, or puts in a subdirectory
		}
		c := &Campaign{Profiles: []Profile{{ID: "p0"}, {ID: "p1"}}}
		var st Step
		for _, e := range exps {
			st.Experiments = append(st.Experiments, Experiment{ID: e})
		}
		c.Steps = []Step{st}
		planned := c.PlannedRuns()
		base := "/res/lab"
		if trial%3 == 0 {
			base = "res/./lab/"
		}
		n := 2 + rng.IntN(6)
		rounds := make([]RoundDir, n)
		files := map[string][]string{}
		results := map[string]*Result{}
		for i := range rounds {
			rounds[i] = RoundDir{ID: fmt.Sprintf("r%d", i), Dir: base + "/rounds/r" + fmt.Sprint(i)}
			if i == 0 {
				rounds[i].Dir = base
			}
			var fs []string
			for _, k := range planned {
				if rng.IntN(3) == 0 {
					continue
				}
				f := filepath.ToSlash(filepath.Join(rounds[i].Dir, RunName(k.Experiment, k.Profile, k.Point, k.Repeat)+".json"))
				r := &Result{Experiment: k.Experiment, Profile: k.Profile, Status: StatusOK}
				switch rng.IntN(6) {
				case 0:
					r.Status = StatusInterrupted
				case 1:
					r.Experiment = exps[rng.IntN(len(exps))] // another run under this name
				}
				fs = append(fs, f)
				results[f] = r
			}
			fs = append(fs, filepath.ToSlash(filepath.Join(rounds[i].Dir, "other.json")))
			sort.Strings(fs)
			files[rounds[i].ID] = slices.Compact(fs) // a listing names a file once
		}
		shown := n - 1
		var own []*Result
		for _, f := range files[rounds[shown].ID] {
			if r := results[f]; r != nil {
				own = append(own, r)
			}
		}
		list := func(rd RoundDir) ([]string, error) { return files[rd.ID], nil }
		run := func(carry func(*Campaign, []RoundDir, int, []*Result, func(RoundDir) ([]string, error), func(string) (*Result, error)) ([]CarriedRun, error)) ([]CarriedRun, []string) {
			var reads []string
			out, err := carry(c, rounds, shown, own, list, func(f string) (*Result, error) {
				reads = append(reads, f)
				if r := results[f]; r != nil {
					return r, nil
				}
				return &Result{Experiment: "none", Status: StatusOK}, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return out, reads
		}
		got, gotReads := run(Carry)
		want, wantReads := run(carryByJoin)
		if !slices.Equal(gotReads, wantReads) {
			t.Fatalf("trial %d: read\n%s\nwant\n%s", trial, strings.Join(gotReads, "\n"), strings.Join(wantReads, "\n"))
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d: carried %d runs, want %d", trial, len(got), len(want))
		}
	}
}
