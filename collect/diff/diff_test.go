package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// result is one run of experiment exp at concurrency c with the given
// throughput and TPOT (TTFT, ITL and E2EL follow from them).
func result(exp string, c, repeat int, tput, tpot float64) *schema.Result {
	st := func(v float64) *schema.Stats { return &schema.Stats{MedianMs: schema.F(v)} }
	return &schema.Result{SchemaVersion: schema.Version, Campaign: "demo", Experiment: exp, Profile: "chat", Repeat: repeat, Status: schema.StatusOK,
		Load: schema.Load{Sweep: schema.SweepConcurrency, MaxConcurrency: c},
		Summary: &schema.Summary{Completed: 100, OutputThroughput: tput, TotalTokenThroughput: tput * 10,
			TTFT: st(50), TPOT: st(tpot), ITL: st(tpot), E2EL: st(50 + 15*tpot)}}
}

// side draws n repeats of each (experiment, concurrency) with noise cv;
// scale multiplies a's TPOT (a slower decode step) and divides its
// throughput.
func side(rng *rand.Rand, name string, n int, cv, scale float64, exps ...string) Side {
	var rs []*schema.Result
	for _, e := range exps {
		for _, c := range []int{4, 16} {
			for r := 0; r < n; r++ {
				noise := 1 + cv*rng.NormFloat64()
				s := 1.0
				if e == "a" {
					s = scale
				}
				rs = append(rs, result(e, c, r, 1000*float64(c)/s*noise, 10*s*noise))
			}
		}
	}
	return NewSide(name, rs)
}

func TestCompareFindsRegression(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	old := side(rng, "round 3", 6, 0.01, 1, "a", "b")
	nw := side(rng, "round 4", 6, 0.01, 1.12, "a", "b", "c")
	tab := Compare(old, nw, 0)
	if tab.Tests != 2*2*6 || len(tab.OnlyNew) != 2 || tab.OnlyNew[0] != "c/chat c=4" || len(tab.OnlyOld) != 0 {
		t.Fatalf("tests %d, only new %v, only old %v", tab.Tests, tab.OnlyNew, tab.OnlyOld)
	}
	regs := tab.Regressions()
	// a at both concurrencies: both throughputs, TPOT, ITL, E2EL (TTFT
	// did not change).
	if len(regs) != 10 {
		t.Fatalf("%d regressions: %+v", len(regs), regs)
	}
	for _, r := range regs {
		if !strings.HasPrefix(r.Run, "a/") || r.Metric.Key == "ttft_p50_ms" {
			t.Errorf("false regression %s %s %+.1f%%", r.Run, r.Metric.Key, r.Pct)
		}
	}
	// A margin above the change: a regression no more.
	if n := len(Compare(old, nw, 15).Regressions()); n != 0 {
		t.Errorf("margin 15%%: %d regressions", n)
	}
	var text, md, js bytes.Buffer
	if err := tab.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"old: round 3\nnew: round 4\n", "median TPOT (ms, lower is better)", "a/chat c=4", "REGRESSION", "~ (p=", "Benjamini-Hochberg over the 24 tested comparisons", "only in round 4: c/chat c=4, c/chat c=16", "10 significant regression(s)."} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	if err := tab.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| a/chat c=4 |") || !strings.Contains(md.String(), ":warning:") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if err := tab.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Correction  string `json:"correction"`
		Regressions int    `json:"regressions"`
		Rows        []struct {
			Run, Metric string
			Regression  bool
		} `json:"rows"`
	}
	if err := json.Unmarshal(js.Bytes(), &got); err != nil || got.Correction != "benjamini-hochberg" || got.Regressions != 10 || len(got.Rows) != 24 {
		t.Fatalf("json: %+v %v", got, err)
	}
}

// TestCompareSingleRuns: one run a side is shown, never called a
// regression; two single files under different names are paired.
func TestCompareSingleRuns(t *testing.T) {
	a := result("", 0, 0, 1000, 10)
	a.Label, a.Load, a.Profile = "vllm 0.13", schema.Load{}, ""
	b := result("", 0, 0, 800, 13)
	b.Label, b.Load, b.Profile = "vllm 0.15", schema.Load{}, ""
	oldF, newF := NewSide("old.json", []*schema.Result{a}), NewSide("new.json", []*schema.Result{b})
	oldF.File, newF.File = true, true
	tab := Compare(oldF, newF, 0)
	if len(tab.Rows) != 6 || tab.Rows[0].Run != "vllm 0.13 → vllm 0.15" || tab.Tests != 0 || len(tab.Regressions()) != 0 {
		t.Fatalf("%+v", tab)
	}
	if d, note := tab.Rows[0].DeltaText(); d != "-20.00%" || note != "1 run each" {
		t.Errorf("delta %q %q", d, note)
	}
}

// TestGateFalseAlarms: diffs of two rounds of unchanged configurations
// (8 runs × 6 metrics, 5 repeats a side, the metrics of a run moving
// together) fail a regression gate in at most 5 % of tries: the
// Benjamini-Hochberg adjustment's promise when nothing changed. Without
// it (any raw p ≤ 0.05) about a quarter of the tries fail (97 of 400).
func TestGateFalseAlarms(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	tries, fails, rawFails := 400, 0, 0
	for i := 0; i < tries; i++ {
		old := side(rng, "old", 5, 0.03, 1, "a", "b", "c", "d")
		nw := side(rng, "new", 5, 0.03, 1, "a", "b", "c", "d")
		tab := Compare(old, nw, 0)
		if len(tab.Regressions()) > 0 {
			fails++
		}
		for _, r := range tab.Rows {
			if r.Tested && r.P <= 0.05 {
				rawFails++
				break
			}
		}
	}
	rate := float64(fails) / float64(tries)
	t.Logf("unchanged configurations: gate failed %d of %d tries (%.1f%%); uncorrected, %d (%.0f%%)", fails, tries, rate*100, rawFails, float64(rawFails)/float64(tries)*100)
	if rate > 0.05 {
		t.Errorf("gate failed %.1f%% of unchanged tries, want ≤ 5%%", rate*100)
	}
	if rawFails < tries/10 {
		t.Errorf("uncorrected tests failed only %d tries: the check has no power to show the correction matters", rawFails)
	}
}

func TestChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	// Six rounds of repeats: a's decode step 12 % slower from round 4
	// (index 3).
	var rounds []Side
	for i := 0; i < 6; i++ {
		scale := 1.0
		if i >= 3 {
			scale = 1.12
		}
		rounds = append(rounds, side(rng, "r", 6, 0.01, scale, "a", "b"))
	}
	tput, _ := MetricByKey("total_tok_per_s")
	cs := Changes(rounds, []Metric{tput})
	if len(cs) != 2 {
		t.Fatalf("changes %+v", cs)
	}
	for _, c := range cs {
		if c.Round != 3 || !strings.HasPrefix(c.Run, "a/") || c.Method != "u-test" || c.Better || c.Pct > -8 {
			t.Errorf("change %+v", c)
		}
	}
	// Single runs per round: the change-point method, 20 rounds.
	rounds = rounds[:0]
	for i := 0; i < 20; i++ {
		scale := 1.0
		if i >= 9 {
			scale = 1.12
		}
		rounds = append(rounds, side(rng, "r", 1, 0.01, scale, "a", "b"))
	}
	cs = Changes(rounds, []Metric{tput})
	if len(cs) != 2 || cs[0].Round != 9 || cs[0].Method != "max-t" {
		t.Fatalf("single-run changes %+v", cs)
	}
}

// TestOpenFiles: a perflab result and a vLLM --save-result JSON each open
// as one side; anything else is an error naming the file.
func TestOpenFiles(t *testing.T) {
	dir := t.TempDir()
	r := result("vllm", 4, 0, 1000, 10)
	res := filepath.Join(dir, "r.json")
	if err := schema.WriteFile(res, r); err != nil {
		t.Fatal(err)
	}
	vllm := filepath.Join(dir, "vllm.json")
	if err := os.WriteFile(vllm, []byte(`{"backend": "vllm", "model_id": "m", "completed": 10, "duration": 2.0, "total_input_tokens": 100, "total_output_tokens": 200, "request_throughput": 5.0, "output_throughput": 100.0, "total_token_throughput": 150.0, "mean_ttft_ms": 20, "median_ttft_ms": 19, "mean_tpot_ms": 5, "median_tpot_ms": 5, "mean_itl_ms": 5, "median_itl_ms": 5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{res, vllm} {
		s, err := Open(p)
		if err != nil || s.Runs() != 1 {
			t.Errorf("%s: %d runs, %v", p, s.Runs(), err)
		}
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"hello": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("bad file: %v", err)
	}
	if _, err := Open(filepath.Join(dir, "nope")); err == nil {
		t.Error("a missing side opened")
	}
}

// TestOpenDamagedFile: a damaged side is an error naming its file, line
// and field, whichever kind of file it is: a vLLM JSON with a bad value
// gets import's error (not "neither a perflab result nor …", which named
// no field), a perflab result with a bad value or cut short the schema's.
func TestOpenDamagedFile(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "r.json")
	if err := schema.WriteFile(res, result("vllm", 4, 0, 1000, 10)); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	badType := bytes.Replace(good, []byte(`"output_throughput_tok_per_s": 1000`), []byte(`"output_throughput_tok_per_s": "fast"`), 1)
	if bytes.Equal(badType, good) {
		t.Fatalf("no output throughput in %s", good)
	}
	for _, c := range []struct {
		name string
		data []byte
		says []string
	}{
		{"vllm-bad.json", []byte(`{"backend": "vllm", "model_id": "m", "completed": 10, "duration": 2.0, "total_input_tokens": 100, "total_output_tokens": 200, "request_throughput": 5.0, "output_throughput": "fast", "total_token_throughput": 150.0, "mean_ttft_ms": 20, "median_ttft_ms": 19, "mean_tpot_ms": 5, "median_tpot_ms": 5, "mean_itl_ms": 5, "median_itl_ms": 5}`),
			[]string{"vllm-bad.json:1", `"output_throughput"`, "fast"}},
		{"result-bad.json", badType, []string{"result-bad.json:", "summary.output_throughput_tok_per_s"}},
		{"result-cut.json", good[:len(good)/2], []string{"result-cut.json:", "malformed JSON"}},
	} {
		p := filepath.Join(dir, c.name)
		if err := os.WriteFile(p, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Open(p)
		for _, want := range c.says {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %v, want it to say %q", c.name, err, want)
			}
		}
	}
}

// TestOpenOutputRepeats: the records of a vLLM --append-result file at
// one load are repeats of one run and pool into one sample, tested, as a
// round's repeats are: two such files, the new one 10 % slower, give one
// row per metric with n=6+6 and a regression. They were six runs of one
// value each (run--run, run--run--r1, …), never tested, so the gate
// passed whatever the change.
func TestOpenOutputRepeats(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	write := func(name string, scale float64) string {
		var b strings.Builder
		for i := 0; i < 6; i++ {
			tput := 100 * scale * (1 + 0.005*rng.NormFloat64())
			fmt.Fprintf(&b, `{"backend": "vllm", "model_id": "m", "max_concurrency": 8, "completed": 10, "duration": 2.0, "total_input_tokens": 100, "total_output_tokens": 200, "request_throughput": 5.0, "output_throughput": %g, "total_token_throughput": %g, "mean_ttft_ms": 20, "median_ttft_ms": 19, "mean_tpot_ms": 5, "median_tpot_ms": 5, "mean_itl_ms": 5, "median_itl_ms": 5}`+"\n", tput, 1.5*tput)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old, err := Open(write("old.jsonl", 1))
	if err != nil {
		t.Fatal(err)
	}
	new, err := Open(write("new.jsonl", 0.9))
	if err != nil {
		t.Fatal(err)
	}
	if old.Runs() != 1 || new.Runs() != 1 {
		t.Fatalf("runs %d and %d, want the six records of each file as one run", old.Runs(), new.Runs())
	}
	tab := Compare(old, new, 5)
	found := false
	for _, r := range tab.Rows {
		if r.Metric.Key != "output_tok_per_s" {
			continue
		}
		found = true
		if r.Old.N != 6 || r.New.N != 6 || !r.Tested || !r.Regression {
			t.Errorf("output throughput row %+v: want n=6+6, tested, a regression", r)
		}
	}
	if !found || len(tab.Gate()) == 0 {
		t.Errorf("no output throughput row or no gate failure: %+v", tab)
	}
}

// TestFindRoundSkipsEmptyRound: a round just started (its record, no
// result yet) is not "latest" — as for a results directory and on the
// pages — and named by its id it is an error, not an empty side that a
// gate would pass.
func TestFindRoundSkipsEmptyRound(t *testing.T) {
	dir := t.TempDir()
	if err := schema.WriteFile(filepath.Join(dir, "a--chat--c4.json"), result("a", 4, 0, 1000, 10)); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"2026-11-20", "2026-11-27"} {
		rd, err := schema.CreateRound(dir, &schema.Round{ID: id, Start: id + "T00:00:00Z"})
		if err != nil {
			t.Fatal(err)
		}
		if id == "2026-11-20" {
			if err := schema.WriteFile(filepath.Join(rd.Dir, "a--chat--c4.json"), result("a", 4, 0, 1000, 10)); err != nil {
				t.Fatal(err)
			}
		}
	}
	for want, id := range map[string]string{"latest": "2026-11-20", "previous": "1", "2": "2026-11-20"} {
		rd, err := FindRound(dir, want)
		if err != nil || rd.ID != id {
			t.Errorf("round %s: %q, %v; want %s", want, rd.ID, err, id)
		}
	}
	latest, err := Open(dir)
	if err != nil || !strings.Contains(latest.Name, "2026-11-20") {
		t.Errorf("the directory: %q, %v", latest.Name, err)
	}
	if _, err := FindRound(dir, "3"); err == nil {
		t.Error("round 3 of 2 rounds holding results found")
	}
	if _, err := Open(dir + "@2026-11-27"); err == nil || !strings.Contains(err.Error(), "holds no results") {
		t.Errorf("the empty round by id: %v", err)
	}
}

// TestFindRoundSkipsInterruptedRound: a round whose collect was stopped
// before any run finished (Ctrl-C early in collect --new-round: only an
// interrupted result) is not "latest", neither for DIR@latest nor for
// the directory: they are the round the pages show (schema.Shown);
// previous is the round holding a finished result before it. A round
// measuring part of the campaign (collect --new-round --only) is latest,
// its own results alone (the runs a page carries over are not in it).
func TestFindRoundSkipsInterruptedRound(t *testing.T) {
	dir := t.TempDir()
	for _, exp := range []string{"a", "b"} {
		if err := schema.WriteFile(filepath.Join(dir, exp+"--chat--c4.json"), result(exp, 4, 0, 1000, 10)); err != nil {
			t.Fatal(err)
		}
	}
	round := func(id string, rs ...*schema.Result) {
		t.Helper()
		rd, err := schema.CreateRound(dir, &schema.Round{ID: id, Start: id + "T00:00:00Z"})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rs {
			if err := schema.WriteFile(filepath.Join(rd.Dir, r.Experiment+"--chat--c4.json"), r); err != nil {
				t.Fatal(err)
			}
		}
	}
	stopped := result("a", 4, 0, 0, 0)
	stopped.Status, stopped.Summary, stopped.Error = schema.StatusInterrupted, nil, "interrupted"
	round("2026-11-27", stopped)
	check := func(want map[string]string, dirRound string) {
		t.Helper()
		for sel, id := range want {
			rd, err := FindRound(dir, sel)
			if err != nil || rd.ID != id {
				t.Errorf("round %s: %q, %v; want %s", sel, rd.ID, err, id)
			}
		}
		s, err := Open(dir)
		if err != nil || !strings.Contains(s.Name, "round "+dirRound) {
			t.Errorf("the directory: %q, %v; want round %s", s.Name, err, dirRound)
		}
	}
	check(map[string]string{"latest": "1", "id:2026-11-27": "2026-11-27"}, "1")
	if _, err := FindRound(dir, "previous"); err == nil {
		t.Error("previous of the only round with a finished result found")
	}

	round("2026-11-28", result("a", 4, 0, 900, 11)) // --only a
	check(map[string]string{"latest": "2026-11-28", "previous": "1"}, "2026-11-28")
	s, err := Open(dir + "@latest")
	if err != nil || len(s.runs) != 1 {
		t.Errorf("latest side: %v runs (%v), %v; want round 2026-11-28's one run", len(s.runs), s.keys, err)
	}
}

// TestCompareCrashedInNew: an upgrade whose engine crashes on a run that
// finished before is not "only in old": it fails the gate.
func TestCompareCrashedInNew(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	old := side(rng, "old", 5, 0.02, 1, "a", "b")
	var rs []*schema.Result
	for _, c := range []int{4, 16} {
		for r := 0; r < 5; r++ {
			rs = append(rs, result("b", c, r, 1000*float64(c), 10))
			crashed := result("a", c, r, 0, 0)
			crashed.Status, crashed.Summary = schema.StatusCrashed, nil
			rs = append(rs, crashed)
		}
	}
	tab := Compare(old, NewSide("new", rs), 5)
	if len(tab.FailedNew) != 2 || tab.FailedNew[0] != "a/chat c=4 (crashed)" || len(tab.OnlyOld) != 0 {
		t.Fatalf("failed in new %v, only old %v", tab.FailedNew, tab.OnlyOld)
	}
	if g := tab.Gate(); len(g) != 2 || !strings.Contains(g[1], "a/chat c=16 (crashed)") {
		t.Errorf("gate %v", g)
	}
	var buf bytes.Buffer
	if err := tab.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var js struct {
		FailedNew []string `json:"failed_new"`
	}
	if err := json.Unmarshal(buf.Bytes(), &js); err != nil || len(js.FailedNew) != 2 {
		t.Errorf("json failed_new %v, %v", js.FailedNew, err)
	}
	buf.Reset()
	if err := tab.WriteText(&buf); err != nil || !strings.Contains(buf.String(), "no ok result in new: a/chat c=4 (crashed)") {
		t.Errorf("text: %v\n%s", err, buf.String())
	}
	// Some repeats finished: compared on those, not failed.
	rs[1].Status, rs[1].Summary = schema.StatusOK, result("a", 4, 0, 4000, 10).Summary
	if tab := Compare(old, NewSide("new", rs), 5); len(tab.FailedNew) != 1 {
		t.Errorf("failed in new %v, want c=16 only", tab.FailedNew)
	}
}

// TestCompareDirsMatchByRun: two results directories (or rounds) holding
// one run each, of different configurations, are not compared with each
// other: only two files are paired whatever their names.
func TestCompareDirsMatchByRun(t *testing.T) {
	dirs := [2]string{t.TempDir(), t.TempDir()}
	if err := schema.WriteFile(filepath.Join(dirs[0], "a--chat--c4.json"), result("a", 4, 0, 1000, 10)); err != nil {
		t.Fatal(err)
	}
	if err := schema.WriteFile(filepath.Join(dirs[1], "b--chat--c16.json"), result("b", 16, 0, 800, 13)); err != nil {
		t.Fatal(err)
	}
	var sides [2]Side
	for i, d := range dirs {
		s, err := Open(d)
		if err != nil {
			t.Fatal(err)
		}
		sides[i] = s
	}
	tab := Compare(sides[0], sides[1], 0)
	if len(tab.Rows) != 0 || len(tab.OnlyOld) != 1 || len(tab.OnlyNew) != 1 {
		t.Errorf("rows %d, only old %v, only new %v: want nothing compared", len(tab.Rows), tab.OnlyOld, tab.OnlyNew)
	}
	files := [2]Side{}
	for i, p := range []string{filepath.Join(dirs[0], "a--chat--c4.json"), filepath.Join(dirs[1], "b--chat--c16.json")} {
		s, err := Open(p)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = s
	}
	if tab := Compare(files[0], files[1], 0); len(tab.Rows) != 6 {
		t.Errorf("two files: %d rows, want them paired", len(tab.Rows))
	}
}

// TestFindRoundNumericID: a round whose id is a number (--round 3) and a
// round number are two readings of DIR@3. A bare number that reads as
// two different rounds is an error naming both and how to say each; id:
// and n: name one reading; a number whose readings agree (the demo's
// rounds 2…6 are the 2nd…6th) or that has one reading works as before.
func TestFindRoundNumericID(t *testing.T) {
	dir := t.TempDir()
	write := func(d string) {
		t.Helper()
		if err := schema.WriteFile(filepath.Join(d, "a--chat--c4.json"), result("a", 4, 0, 1000, 10)); err != nil {
			t.Fatal(err)
		}
	}
	write(dir)
	// In order: 1, 2026-11-01, 2, 2026-11-15, 3 (the 5th round).
	for i, id := range []string{"2026-11-01", "2", "2026-11-15", "3"} {
		rd, err := schema.CreateRound(dir, &schema.Round{ID: id, Start: fmt.Sprintf("2026-11-%02dT00:00:00Z", 1+7*i)})
		if err != nil {
			t.Fatal(err)
		}
		write(rd.Dir)
	}
	for _, c := range []struct{ want, id string }{
		{"id:3", "3"},
		{"n:3", "2"},
		{"n:5", "3"},
		{"5", "3"},    // no round has id 5: the 5th round
		{"1", "1"},    // id 1 is the 1st round: both readings agree
		{"id:1", "1"}, // round 1 by its id
		{"n:1", "1"},  // and by its number
		{"2026-11-15", "2026-11-15"},
		{"latest", "3"},
		{"previous", "2026-11-15"},
	} {
		rd, err := FindRound(dir, c.want)
		if err != nil || rd.ID != c.id {
			t.Errorf("round %s: %q, %v; want %s", c.want, rd.ID, err, c.id)
		}
	}
	// id 3 is the 5th round, the 3rd round is id 2; id 2 is the 3rd
	// round, the 2nd is 2026-11-01.
	for _, c := range []struct{ want, first, second string }{
		{"3", filepath.Join(dir, "rounds", "3"), "round 2 "},
		{"2", filepath.Join(dir, "rounds", "2"), "round 2026-11-01"},
	} {
		_, err := FindRound(dir, c.want)
		if err == nil {
			t.Errorf("round %s: found, want an error (ambiguous)", c.want)
			continue
		}
		for _, s := range []string{"ambiguous", c.first, c.second, "id:" + c.want, "n:" + c.want} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("round %s: error %q does not say %q", c.want, err, s)
			}
		}
	}
	for _, want := range []string{"n:6", "n:0", "n:x", "id:4", "id:", "n:03"} {
		if rd, err := FindRound(dir, want); err == nil {
			t.Errorf("round %s: found %s, want an error", want, rd.ID)
		}
	}
	if _, err := Open(dir + "@3"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("DIR@3: %v, want ambiguous", err)
	}
	// A typo in DIR, or a result file before the @, is said as such, not
	// as a campaign without results.
	for ref, says := range map[string]string{
		dir + "x@latest":                 "no such file or directory",
		dir + "/a--chat--c4.json@latest": "is a file, not a results directory",
		dir + "@latest@latest":           "no such file or directory",
	} {
		if _, err := Open(ref); err == nil || !strings.Contains(err.Error(), says) || strings.Contains(err.Error(), "no results") {
			t.Errorf("%s: %v; want an error saying %q", ref, err, says)
		}
	}
}

// TestCompareEngines: a diff says which engine versions each side ran,
// as the results report them, in every format.
func TestCompareEngines(t *testing.T) {
	mk := func(name, version string) Side {
		var rs []*schema.Result
		for r := 0; r < 3; r++ {
			x := result("a", 4, r, 1000, 10)
			x.Engine = schema.Engine{Name: "vllm", Version: version}
			rs = append(rs, x)
		}
		return NewSide(name, rs)
	}
	tab := Compare(mk("old", "0.13.0"), mk("new", "0.15.1"), 0)
	var text, md, js bytes.Buffer
	if err := tab.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := tab.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := tab.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for f, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		if !strings.Contains(out, "engines: vllm 0.13.0 → vllm 0.15.1\n") {
			t.Errorf("%s: no engines line:\n%s", f, out)
		}
	}
	var got struct{ OldEngines, NewEngines []string }
	if err := json.Unmarshal(js.Bytes(), &struct {
		O *[]string `json:"old_engines"`
		N *[]string `json:"new_engines"`
	}{&got.OldEngines, &got.NewEngines}); err != nil || len(got.OldEngines) != 1 || got.OldEngines[0] != "vllm 0.13.0" || len(got.NewEngines) != 1 || got.NewEngines[0] != "vllm 0.15.1" {
		t.Errorf("json engines: %+v %v\n%s", got, err, js.String())
	}
	// The same engine on both sides: named once.
	text.Reset()
	if err := Compare(mk("old", "0.15.1"), mk("new", "0.15.1"), 0).WriteText(&text); err != nil || !strings.Contains(text.String(), "engines: vllm 0.15.1\n") {
		t.Errorf("same engine: %v\n%s", err, text.String())
	}
}

// TestCompareFailedRequests: requests failing in NEW that did not in OLD
// fail the gate, though the requests that finished are as fast as before;
// a run whose every request failed has no latency to compare (vLLM's
// 0 ms are not an improvement): it no longer finishes.
func TestCompareFailedRequests(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	old := side(rng, "old", 5, 0.01, 1, "a", "b")
	var rs []*schema.Result
	for _, c := range []int{4, 16} {
		for r := 0; r < 5; r++ {
			a := result("a", c, r, 1000*float64(c), 10)
			a.Summary.Completed, a.Summary.Failed = 97, 3 // a: some requests fail
			b := result("b", c, r, 0, 0)                  // b: all fail, zeros
			b.Summary.Completed, b.Summary.Failed = 0, 100
			b.Summary.TTFT, b.Summary.TPOT, b.Summary.ITL, b.Summary.E2EL = nil, nil, nil, nil
			b.Summary.TTFT = &schema.Stats{MedianMs: schema.F(0)}
			rs = append(rs, a, b)
		}
	}
	tab := Compare(old, NewSide("new", rs), 5)
	for _, r := range tab.Rows {
		if strings.HasPrefix(r.Run, "b/") {
			t.Errorf("b, whose requests all failed, compared: %s %s %+.1f%%", r.Run, r.Metric.Key, r.Pct)
		}
	}
	if len(tab.FailedNew) != 2 || tab.FailedNew[0] != "b/chat c=4 (all 100 requests failed)" {
		t.Errorf("failed in new %v", tab.FailedNew)
	}
	if len(tab.NewFailures) != 2 || tab.NewFailures[0] != "a/chat c=4: none → 15 of 500" {
		t.Errorf("new failures %v", tab.NewFailures)
	}
	if g := tab.Gate(); len(g) != 4 {
		t.Errorf("gate %v, want b's two runs and a's two", g)
	}
	var buf bytes.Buffer
	if err := tab.WriteText(&buf); err != nil || !strings.Contains(buf.String(), "failed requests (old → new): a/chat c=4: none → 15 of 500") {
		t.Errorf("text: %v\n%s", err, buf.String())
	}
	// One request failed in 6,000 against none is an occasional drop
	// (Fisher's p = 0.5), listed but not a gate's failure; many more in
	// NEW than in OLD fail it though OLD had some.
	few, many := side(rng, "few", 5, 0.01, 1, "a"), side(rng, "many", 5, 0.01, 1, "a")
	few.runs["a/chat c=4"][0].Summary.Failed = 1
	for _, r := range many.runs["a/chat c=4"] {
		r.Summary.Failed = 40
	}
	if tab := Compare(old, few, 5); len(tab.FailedRequests) != 1 || len(tab.NewFailures) != 0 || len(tab.Gate()) != 0 {
		t.Errorf("one failed request: listed %v, gate %v", tab.FailedRequests, tab.Gate())
	}
	if tab := Compare(few, many, 5); len(tab.NewFailures) != 1 || len(tab.Gate()) != 1 {
		t.Errorf("1 → 200 failed requests: listed %v, gate %v", tab.FailedRequests, tab.Gate())
	}
	// Failures on both sides are listed, not a gate's failure.
	if tab := Compare(NewSide("new", rs), NewSide("new2", rs), 5); len(tab.FailedRequests) != 2 || len(tab.NewFailures) != 0 || len(tab.Gate()) != 0 {
		t.Errorf("failures on both sides: listed %v, gate %v", tab.FailedRequests, tab.Gate())
	}
}

// TestCompareOtherLoad: two outputs of one run each are paired whatever
// their load, so a pair at different loads (16 streams before, 64 after)
// says so instead of passing a load change off as an engine's.
func TestCompareOtherLoad(t *testing.T) {
	a, b := result("", 16, 0, 1000, 10), result("", 64, 0, 2500, 20)
	for _, r := range []*schema.Result{a, b} {
		r.Experiment, r.Profile, r.Load.Sweep = "run", "run", ""
	}
	oldF, newF := NewSide("old.json", []*schema.Result{a}), NewSide("new.json", []*schema.Result{b})
	oldF.File, newF.File = true, true
	tab := Compare(oldF, newF, 0)
	if len(tab.Rows) == 0 || len(tab.OtherLoad) != 1 || tab.OtherLoad[0] != "run/run: max_concurrency 16 → 64" {
		t.Fatalf("rows %d, other load %q", len(tab.Rows), tab.OtherLoad)
	}
	var buf bytes.Buffer
	if err := tab.WriteMarkdown(&buf); err != nil || !strings.Contains(buf.String(), "compared at another load: run/run: max_concurrency 16 → 64") {
		t.Errorf("markdown: %v\n%s", err, buf.String())
	}
	b.Load.MaxConcurrency = 16
	if tab := Compare(oldF, NewSide("new.json", []*schema.Result{b}), 0); len(tab.OtherLoad) != 0 {
		t.Errorf("same load: %q", tab.OtherLoad)
	}
}

// TestCompareOneSidedMetric: a metric one side did not record (vllm
// bench serve run with other --percentile-metrics) is named as not
// compared, not dropped silently.
func TestCompareOneSidedMetric(t *testing.T) {
	a, b := result("x", 4, 0, 1000, 10), result("x", 4, 0, 1000, 10)
	b.Summary.TPOT = nil
	tab := Compare(NewSide("old", []*schema.Result{a}), NewSide("new", []*schema.Result{b}), 0)
	if len(tab.OneSided) != 1 || tab.OneSided[0] != "x/chat c=4 median TPOT (old only)" {
		t.Fatalf("one-sided %q", tab.OneSided)
	}
	var buf bytes.Buffer
	if err := tab.WriteText(&buf); err != nil || !strings.Contains(buf.String(), "recorded on one side only, not compared: x/chat c=4 median TPOT (old only)") {
		t.Errorf("text: %v\n%s", err, buf.String())
	}
}

// TestDiffOtherWorkload: a run the campaign re-defined between the two
// sides (its profile's input_len went from 128 to 512) is compared, and
// its delta is the workload's, not the engine's: the footer and the JSON
// say which runs and how their workloads differ. An engine's change
// alone (command, version) is what a diff is for, and says nothing; nor
// do runs another tool measured (their load is what the output showed).
func TestDiffOtherWorkload(t *testing.T) {
	res := func(inputLen int, tool, cmd string) *schema.Result {
		return &schema.Result{ID: "r", Campaign: "c", Experiment: "vllm", Profile: "short", Status: schema.StatusOK,
			Tool:    schema.Tool{Name: tool},
			Engine:  schema.Engine{Name: "vllm", Command: cmd},
			Load:    schema.Load{Dataset: "random", InputLen: inputLen, OutputLen: 32, NumPrompts: 64, Seed: 42, Command: "perflab bench --port " + cmd},
			Summary: &schema.Summary{OutputThroughput: 100, TotalTokenThroughput: float64(10 * inputLen)}}
	}
	tbl := Compare(NewSide("old", []*schema.Result{res(128, "perflab bench", "1")}), NewSide("new", []*schema.Result{res(512, "perflab bench", "2")}), 0)
	if len(tbl.OtherWorkload) != 1 || tbl.OtherWorkload[0] != "vllm/short: input_len 128 → 512" {
		t.Fatalf("other workload: %q", tbl.OtherWorkload)
	}
	var out bytes.Buffer
	if err := tbl.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "measured on another workload in new than in old (the campaign changed the profile; their changes are not the engines'): vllm/short: input_len 128 → 512") {
		t.Errorf("footer:\n%s", out.String())
	}
	out.Reset()
	if err := tbl.WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"other_workload": [`) || !strings.Contains(out.String(), "input_len 128 → 512") {
		t.Errorf("json: %s", out.String())
	}
	for name, pair := range map[string][2]*schema.Result{
		"engine change only": {res(128, "perflab bench", "1"), res(128, "perflab bench", "2")},
		"an import":          {res(128, "vllm bench serve", "1"), res(512, "perflab bench", "2")},
	} {
		if tb := Compare(NewSide("old", []*schema.Result{pair[0]}), NewSide("new", []*schema.Result{pair[1]}), 0); len(tb.OtherWorkload) != 0 {
			t.Errorf("%s: other workload %q", name, tb.OtherWorkload)
		}
	}
}
