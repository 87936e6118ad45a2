package roundload

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/inputs"
)

func result(id string, tput float64) *schema.Result {
	return &schema.Result{
		ID: id, Status: schema.StatusOK, Experiment: "e", Profile: "p" + id,
		Engine:    schema.Engine{Name: "vllm", Version: "0.13"},
		Load:      schema.Load{Dataset: "random", NumPrompts: 2},
		Summary:   &schema.Summary{Completed: 2, TotalTokenThroughput: tput, TTFT: &schema.Stats{MeanMs: schema.F(20), Percentiles: []schema.Percentile{{P: 99, ValueMs: 21}}}},
		Requests:  []schema.Request{{Index: 0, Success: true}},
		RawOutput: "raw text",
	}
}

// writeRounds writes round 1 (two results), round r2 (two results) and
// r3 (a record and no result: just started) into dir.
func writeRounds(t *testing.T, dir string) {
	t.Helper()
	for i, id := range []string{"a", "b"} {
		if err := schema.WriteFile(filepath.Join(dir, id+".json"), result(id, float64(100+i))); err != nil {
			t.Fatal(err)
		}
	}
	for k, id := range []string{"r2", "r3"} {
		rd, err := schema.CreateRound(dir, &schema.Round{ID: id, Start: fmt.Sprintf("2026-01-0%dT00:00:00Z", k+2)})
		if err != nil {
			t.Fatal(err)
		}
		if id == "r3" {
			continue
		}
		for i, rid := range []string{"a", "b"} {
			if err := schema.WriteFile(filepath.Join(rd.Dir, rid+".json"), result(rid, float64(200+i))); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestScan: Scan's rounds, latest round and listings are schema's
// (Rounds, Latest, RoundFiles), for flat rounds and a round with a
// subdirectory, which is recorded as a Tree (never stamped).
func TestScan(t *testing.T) {
	dir := t.TempDir()
	writeRounds(t, dir)
	check := func(wantTree bool) {
		t.Helper()
		in := inputs.NewReader(nil)
		d, err := Scan(in, dir)
		if err != nil {
			t.Fatal(err)
		}
		rds, err := schema.Rounds(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(d.Rounds, rds) {
			t.Errorf("rounds %+v, schema's %+v", d.Rounds, rds)
		}
		for _, rd := range rds {
			want, err := schema.RoundFiles(rd)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				want[i] = filepath.ToSlash(want[i])
			}
			if got := d.Files(rd); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
				t.Errorf("round %s: files %q, schema's %q", rd.ID, got, want)
			}
		}
		tree := false
		for _, rec := range in.Records() {
			tree = tree || rec.Kind == inputs.Tree
		}
		if tree != wantTree {
			t.Errorf("a Tree recorded: %v, want %v", tree, wantTree)
		}
	}
	check(false)
	sub := filepath.Join(dir, schema.RoundsDir, "r2", "more")
	if err := schema.WriteFile(filepath.Join(sub, "c.json"), result("c", 300)); err != nil {
		t.Fatal(err)
	}
	check(true)
}

// TestResults: an older round read through a Reader, then taken from
// the cache by the next build (its files neither read nor prepared again,
// the same results and records), then read again after one of its files
// was edited.
func TestResults(t *testing.T) {
	dir, cdir := t.TempDir(), t.TempDir()
	writeRounds(t, dir)
	files := []string{filepath.ToSlash(filepath.Join(dir, "a.json")), filepath.ToSlash(filepath.Join(dir, "b.json"))}
	build := func(during func(*Round)) ([]*schema.Result, [32]byte, int) {
		time.Sleep(30 * time.Millisecond) // the files are older than the build (the racy rule)
		st := inputs.OpenStats(cdir, "test")
		if st == nil {
			t.Skip("no input stat cache on this platform")
		}
		c := Open(cdir)
		in := inputs.NewReader(st)
		prepared := 0
		r, err := c.Results(in, files, "salt", func(res *schema.Result) { prepared++; res.Engine.Version = "redacted" })
		if err != nil {
			t.Fatal(err)
		}
		atResults := prepared // the files read by Results
		if during != nil {
			during(r)
		}
		results := load(t, r) // read again when known, before the build ends
		c.Finish(true)
		st.Save()
		return results, in.Key(0), atResults
	}
	r1, k1, p1 := build(nil)
	if p1 != 2 {
		t.Fatalf("first build prepared %d results, want 2", p1)
	}
	res1 := r1
	for _, res := range res1 {
		if res.Requests != nil || res.RawOutput != "" || res.Engine.Version != "redacted" {
			t.Fatalf("result %s kept requests or raw output, or was not prepared", res.ID)
		}
	}
	r2, k2, p2 := build(func(r *Round) { r.SetMemo("x", []byte("memo")) })
	if p2 != 0 {
		t.Errorf("second build read %d results, want 0 (their sums known)", p2)
	}
	if k1 != k2 {
		t.Error("the round's records differ between a read and a cached round")
	}
	// The files' identities are the round cache's, not the input stat
	// cache's (which would decode and rewrite them all in every build).
	if st := inputs.OpenStats(cdir, "test"); st.Len() != 0 {
		t.Errorf("the input stat cache holds %d entries; want none (the round's files are the round cache's)", st.Len())
	} else {
		st.Abandon()
	}
	if res2 := r2; !reflect.DeepEqual(res1, res2) {
		t.Errorf("cached results differ:\n%+v\n%+v", res1[0], res2[0])
	}
	build(func(r *Round) {
		if got := r.Memo("x"); string(got) != "memo" {
			t.Errorf("memo %q, want the last build's", got)
		}
	})
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"total_token_throughput_tok_per_s": 100`, `"total_token_throughput_tok_per_s": 900`, 1)
	if edited == string(data) {
		t.Fatal("no throughput to edit")
	}
	if err := os.WriteFile(files[0], []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	r3, k3, p3 := build(func(r *Round) {
		if r.Memo("x") != nil {
			t.Error("a memo of the round before the edit was given for the edited round")
		}
	})
	if res3 := r3; p3 != 2 || k3 == k2 || res3[0].Summary.TotalTokenThroughput != 900 {
		t.Errorf("after an edit: prepared %d, same key %v, throughput %v", p3, k3 == k2, res3[0].Summary.TotalTokenThroughput)
	}
}

// TestLoadShared: a round known by its sums is decoded once while its
// results are in use (the history and the round's data files of one
// page both load it): a second Load gives the same results; once no
// one holds them, they are collected and Load reads the files again.
func TestLoadShared(t *testing.T) {
	dir, cdir := t.TempDir(), t.TempDir()
	writeRounds(t, dir)
	files := []string{filepath.ToSlash(filepath.Join(dir, "a.json")), filepath.ToSlash(filepath.Join(dir, "b.json"))}
	var r *Round
	for i := 0; i < 2; i++ { // the second build knows the files by their sums
		time.Sleep(30 * time.Millisecond) // the files are older than the build (the racy rule)
		st := inputs.OpenStats(cdir, "test")
		if st == nil {
			t.Skip("no input stat cache on this platform")
		}
		c := Open(cdir)
		var err error
		if r, err = c.Results(inputs.NewReader(st), files, "salt", func(*schema.Result) {}); err != nil {
			t.Fatal(err)
		}
		c.Finish(true)
		st.Save()
	}
	if r.kept != nil {
		t.Fatal("the second build read the round's files; want them known by their sums")
	}
	before := Loads()
	first := load(t, r)
	second := load(t, r)
	if n := Loads() - before; n != 1 {
		t.Errorf("two Loads while the first's results are held decoded %d times; want 1", n)
	}
	if len(first) != 2 || len(second) != 2 || first[0] != second[0] || first[1] != second[1] {
		t.Errorf("the second Load gave other results than the first's, held: %p %p", first, second)
	}
	ids := []string{first[0].ID, first[1].ID}
	first, second = nil, nil
	runtime.GC()
	runtime.GC()
	before = Loads()
	again := load(t, r)
	if n := Loads() - before; n != 1 {
		t.Errorf("a Load after the results were dropped decoded %d times; want 1 (read again)", n)
	}
	if len(again) != 2 || again[0].ID != ids[0] || again[1].ID != ids[1] {
		t.Errorf("read again: %d results", len(again))
	}
}

func load(t *testing.T, r *Round) []*schema.Result {
	t.Helper()
	res, err := r.Load()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestDecode: decode gives schema.Unmarshal's result less its requests
// and raw output, on the demo's rounds (results with requests), and
// schema's error for a file it declines.
func TestDecode(t *testing.T) {
	files, err := filepath.Glob("../../results/demo-mock-rounds/rounds/*/*.json")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if filepath.Base(f) == schema.RoundFile {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := schema.Unmarshal(f, data)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Requests) == 0 {
			t.Fatalf("%s: no requests to pass over", f)
		}
		want.Requests, want.RawOutput = nil, ""
		got, err := decode(f, data)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: decoded\n%+v\nwant\n%+v", f, got, want)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("%d files compared", n)
	}
	_, err = decode("bad.json", []byte(`{"schema_version": 2, "status": 7}`))
	_, want := schema.Unmarshal("bad.json", []byte(`{"schema_version": 2, "status": 7}`))
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("error %v, schema's %v", err, want)
	}
}

// TestPrefix: a prefix's entry is found by a later build whose rounds
// begin with the same rounds (the longest such prefix), and by no build
// whose input or any of whose rounds in it differ.
func TestPrefix(t *testing.T) {
	cdir := t.TempDir()
	rounds := func(c *Cache, keys ...string) []*Round {
		var out []*Round
		for _, k := range keys {
			out = append(out, &Round{c: c, key: []byte(k)})
		}
		return out
	}
	c := Open(cdir)
	p := NewPrefix("h", []byte("in"), rounds(c, "k1", "k2"))
	if n, b := p.Longest(); n != 0 || b != nil {
		t.Fatalf("empty cache: prefix of %d rounds", n)
	}
	NewPrefix("h", []byte("in"), rounds(c, "k1")).Set(1, []byte("a"))
	p.Set(2, []byte("ab"))
	c.Finish(true)

	for _, tc := range []struct {
		name  string
		input string
		keys  []string
		n     int
		want  string
	}{
		{"next round", "in", []string{"k1", "k2", "k3"}, 2, "ab"},
		{"same rounds", "in", []string{"k1", "k2"}, 2, "ab"},
		{"second round changed", "in", []string{"k1", "x2", "k3"}, 1, "a"},
		{"first round changed", "in", []string{"x1", "k2", "k3"}, 0, ""},
		{"other input", "other", []string{"k1", "k2", "k3"}, 0, ""},
	} {
		c := Open(cdir)
		n, b := NewPrefix("h", []byte(tc.input), rounds(c, tc.keys...)).Longest()
		if n != tc.n || string(b) != tc.want {
			t.Errorf("%s: prefix of %d rounds %q, want %d %q", tc.name, n, b, tc.n, tc.want)
		}
		c.Finish(false)
	}
	if p := NewPrefix("h", []byte("in"), rounds(nil, "k1")); p.Len() != 0 {
		t.Error("a round without a cache has a prefix")
	}
}
