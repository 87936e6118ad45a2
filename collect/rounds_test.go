package collect

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/schema"
)

// snapshot reads every file below dir (relative path → bytes).
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCollectRounds: a campaign collected before rounds is round 1 and
// stays byte for byte as it was when a new round starts; plain collect
// resumes the latest round; the record says what the round ran with.
func TestCollectRounds(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve", "serve")
	camp := filepath.Join(dir, "fake")
	if _, err := Collect(context.Background(), f, opts(t, dir, pids)); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, camp)
	if len(before) != 6 { // 4 results, 2 engine logs
		t.Fatalf("round 1 files: %d", len(before))
	}

	day := time.Date(2026, 11, 27, 22, 0, 0, 0, time.UTC)
	o := opts(t, dir, pids)
	o.NewRound, o.Now = true, func() time.Time { return day }
	rep, err := Collect(context.Background(), f, o)
	if err != nil || rep.Ran != 4 || rep.Round != "2026-11-27" {
		t.Fatalf("new round: %+v %v", rep, err)
	}
	after := snapshot(t, camp)
	for name, b := range before {
		if !bytes.Equal(after[name], b) {
			t.Errorf("round 1's %s changed", name)
		}
	}
	r2 := filepath.Join(camp, "rounds", "2026-11-27")
	rec, err := schema.ReadRound(r2)
	if err != nil || rec == nil {
		t.Fatalf("round record: %v %v", rec, err)
	}
	if rec.Start != "2026-11-27T22:00:00Z" || rec.Campaign != "fake" || len(rec.Engines) != 2 || rec.Engines[1].Experiment != "e1" || rec.Engines[1].Engine != "vllm" {
		t.Fatalf("record: %+v", rec)
	}
	if got := readResults(t, r2); len(got) != 4 || got["e0--short"] == nil {
		t.Fatalf("round 2 results: %v", got)
	}

	// Plain collect resumes round 2 (nothing to do); a second new round on
	// the same day gets .2.
	if rep, err := Collect(context.Background(), f, opts(t, dir, pids)); err != nil || rep.Skipped != 4 || rep.Round != "2026-11-27" {
		t.Fatalf("resume: %+v %v", rep, err)
	}
	if id, _, err := RoundID(&f.Campaign, camp, o, day); err != nil || id != "2026-11-27.2" {
		t.Fatalf("second new round the same day: %q %v", id, err)
	}
	rs, err := schema.Rounds(camp)
	if err != nil || len(rs) != 2 || rs[0].ID != "1" || rs[1].ID != "2026-11-27" {
		t.Fatalf("rounds: %+v %v", rs, err)
	}
	if l, ok, _ := schema.Shown(camp); !ok || l.ID != "2026-11-27" {
		t.Fatalf("shown: %+v", l)
	}
	if l, ok, _ := schema.Resumed(camp); !ok || l.ID != "2026-11-27" {
		t.Fatalf("resumed: %+v", l)
	}
	res, err := schema.ReadShown(camp)
	if err != nil || len(res) != 4 {
		t.Fatalf("latest results: %d %v", len(res), err)
	}
}

// TestCollectRoundShards: shards given one round id (as a scheduler's job
// id) fill one round between them, each running its own runs; the first
// shard's record is the round's.
func TestCollectRoundShards(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve", "serve")
	for i := 0; i < 2; i++ {
		o := opts(t, dir, pids)
		o.Round, o.Shard, o.Shards = "slurm-81234", i, 2
		at := time.Date(2026, 11, 27, 22, i, 0, 0, time.UTC)
		o.Now = func() time.Time { return at }
		rep, err := Collect(context.Background(), f, o)
		if err != nil || rep.Ran != 2 || rep.Round != "slurm-81234" {
			t.Fatalf("shard %d: %+v %v", i, rep, err)
		}
	}
	camp := filepath.Join(dir, "fake")
	rs, err := schema.Rounds(camp)
	if err != nil || len(rs) != 1 || rs[0].ID != "slurm-81234" || rs[0].Record.Start != "2026-11-27T22:00:00Z" {
		t.Fatalf("rounds: %+v %v", rs, err)
	}
	if got := readResults(t, rs[0].Dir); len(got) != 4 {
		t.Fatalf("round results: %v", got)
	}
	if _, err := os.Stat(filepath.Join(camp, "e0--short.json")); !os.IsNotExist(err) {
		t.Fatalf("a result outside the round: %v", err)
	}
}

// TestRoundIDPolicy: the campaign's rounds: policy names the round by the
// UTC date, so a nightly job and all its shards agree.
func TestRoundIDPolicy(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 12, 31, 23, 30, 0, 0, time.FixedZone("x", -2*3600)) // 2027-01-01 01:30 UTC
	for _, tc := range []struct{ policy, want string }{
		{"daily", "2027-01-01"},
		{"weekly", "2026-w53"},
		{"monthly", "2027-01"},
		{"", "1"},
		{"manual", "1"},
	} {
		c := &schema.Campaign{Rounds: tc.policy}
		got, _, err := RoundID(c, dir, Options{LookupEnv: env(nil)}, at)
		if err != nil || got != tc.want {
			t.Errorf("rounds: %q → %q %v, want %q", tc.policy, got, err, tc.want)
		}
	}
	if _, _, err := RoundID(&schema.Campaign{}, dir, Options{Round: "Bad/ID"}, at); err == nil {
		t.Error("a round id with a slash was taken")
	}
	// Shards cannot each start a new round: they would not agree.
	if _, _, err := RoundID(&schema.Campaign{}, dir, Options{NewRound: true, Shard: 1, Shards: 4}, at); err == nil || !strings.Contains(err.Error(), "--round ID") {
		t.Errorf("--new-round with --shard: %v", err)
	}
}

// env is an environment holding vars only.
func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

// TestRoundIDSchedulerRun: the shards of one scheduler run started on
// both sides of UTC midnight (of the week's, the month's end) agree on
// one round under rounds: daily, weekly or monthly, named by the
// scheduler's run id, which each reads from its own environment; the
// next run of the scheduler starts the next round.
func TestRoundIDSchedulerRun(t *testing.T) {
	dir := t.TempDir()
	before := time.Date(2026, 5, 31, 23, 59, 58, 0, time.UTC) // Sunday 31 May
	after := before.Add(3 * time.Second)                      // Monday 1 June: a new day, week and month
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"SLURM_ARRAY_JOB_ID": "81234", "SLURM_JOB_ID": "81236", "SLURM_ARRAY_TASK_ID": "2"}, "slurm-81234"},
		{map[string]string{"SLURM_JOB_ID": "81240"}, "slurm-81240"},
		{map[string]string{"GITHUB_RUN_ID": "12345678", "GITHUB_RUN_ATTEMPT": "2"}, "gh-12345678"},
		// A runner inside a long Slurm allocation: the workflow run.
		{map[string]string{"GITHUB_RUN_ID": "12345678", "SLURM_JOB_ID": "7"}, "gh-12345678"},
		{map[string]string{"CI_PIPELINE_ID": "991"}, "gitlab-991"},
		// A Kubernetes Job's name, passed by the manifest.
		{map[string]string{"PERFLAB_SCHEDULER_RUN": "perflab-nightly-29412345", "SLURM_JOB_ID": "7"}, "perflab-nightly-29412345"},
		{map[string]string{"GITHUB_RUN_ID": " "}, ""}, // blank: not a scheduler run
	} {
		for _, policy := range []string{"daily", "weekly", "monthly"} {
			c := &schema.Campaign{Rounds: policy}
			var ids []string
			for _, at := range []time.Time{before, after} {
				id, create, err := RoundID(c, dir, Options{LookupEnv: env(tc.vars)}, at)
				if err != nil || !create {
					t.Fatalf("%s %v: %q %v %v", policy, tc.vars, id, create, err)
				}
				ids = append(ids, id)
			}
			if tc.want == "" {
				if ids[0] == ids[1] {
					t.Errorf("%s without a scheduler run: %v, want the dates' rounds", policy, ids)
				}
				continue
			}
			if ids[0] != tc.want || ids[1] != tc.want {
				t.Errorf("%s %v: shards at %s and %s: %v, want both %s", policy, tc.vars, before.Format(time.TimeOnly), after.Format(time.TimeOnly), ids, tc.want)
			}
		}
	}
	// --round and --new-round are the lab's own choice: no scheduler id.
	if id, _, err := RoundID(&schema.Campaign{Rounds: "daily"}, dir, Options{Round: "r7", LookupEnv: env(map[string]string{"GITHUB_RUN_ID": "1"})}, after); err != nil || id != "r7" {
		t.Errorf("--round under a scheduler: %q %v", id, err)
	}
	// Without a rounds: policy a plain collect resumes, as before.
	if id, _, err := RoundID(&schema.Campaign{}, dir, Options{LookupEnv: env(map[string]string{"GITHUB_RUN_ID": "1"})}, after); err != nil || id != "1" {
		t.Errorf("no policy under a scheduler: %q %v", id, err)
	}
	// A value that cannot be a round id is an error naming the variable.
	_, _, err := RoundID(&schema.Campaign{Rounds: "daily"}, dir, Options{LookupEnv: env(map[string]string{"PERFLAB_SCHEDULER_RUN": "job/7"})}, after)
	if err == nil || !strings.Contains(err.Error(), "PERFLAB_SCHEDULER_RUN") {
		t.Errorf("bad scheduler run id: %v", err)
	}
}

// TestCollectSchedulerRunShards: two shards of one Slurm array, the
// second started past midnight, fill one round under rounds: daily.
func TestCollectSchedulerRunShards(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve", "serve")
	f.Campaign.Rounds = "daily"
	for i := 0; i < 2; i++ {
		o := opts(t, dir, pids)
		o.Shard, o.Shards = i, 2
		at := time.Date(2026, 11, 27, 23, 59, 0, 0, time.UTC).Add(time.Duration(i) * 2 * time.Minute)
		o.Now = func() time.Time { return at }
		o.LookupEnv = env(map[string]string{"SLURM_ARRAY_JOB_ID": "81234", "SLURM_ARRAY_TASK_ID": fmt.Sprint(i)})
		if rep, err := Collect(context.Background(), f, o); err != nil || rep.Ran != 2 || rep.Round != "slurm-81234" {
			t.Fatalf("shard %d: %+v %v", i, rep, err)
		}
	}
	rs, err := schema.Rounds(filepath.Join(dir, "fake"))
	if err != nil || len(rs) != 1 || rs[0].ID != "slurm-81234" {
		t.Fatalf("rounds: %+v %v", rs, err)
	}
	if got := readResults(t, rs[0].Dir); len(got) != 4 {
		t.Fatalf("round results: %v", got)
	}
}

// TestRoundRecordVersion: a round's record does not say which engine
// version ran: the campaign's declared version (0.13.0 here) is not what
// the engine runs (it reports fake-1.0), and the record is written before
// any engine answered. The version is each result's, as reported.
func TestRoundRecordVersion(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve")
	f.Campaign.Engines = append(f.Campaign.Engines, schema.EngineSpec{Name: "vllm", Version: "0.13.0"})
	o := opts(t, dir, pids)
	o.Round = "r2"
	if rep, err := Collect(context.Background(), f, o); err != nil || rep.Ran != 2 {
		t.Fatalf("collect: %+v %v", rep, err)
	}
	rd := filepath.Join(dir, "fake", "rounds", "r2")
	data, err := os.ReadFile(filepath.Join(rd, schema.RoundFile))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("0.13.0")) || bytes.Contains(data, []byte(`"version"`)) {
		t.Errorf("round.json names a version no engine reported:\n%s", data)
	}
	for k, r := range readResults(t, rd) {
		if r.Engine.Version != "fake-1.0" {
			t.Errorf("%s: engine version %q, want the reported fake-1.0", k, r.Engine.Version)
		}
	}
}

func TestContainerImage(t *testing.T) {
	for cmd, want := range map[string]string{
		"docker run --gpus all -p 8000:8000 --ipc=host -e HF_TOKEN=x vllm/vllm-openai:v0.13.0 --model Qwen/Qwen3-32B": "vllm/vllm-openai:v0.13.0",
		"sudo podman run --rm -v /data:/data lmsysorg/sglang:v0.5.6 python3 -m sglang.launch_server":                  "lmsysorg/sglang:v0.5.6",
		"vllm serve Qwen/Qwen3-32B": "",
	} {
		if got := ContainerImage(cmd); got != want {
			t.Errorf("%s: %q, want %q", cmd, got, want)
		}
	}
}

// TestCollectResumeNamesRound: a collect interrupted in a round that a
// plain collect would not find again (one --new-round started: run again,
// it starts another; one the rounds: policy picked from the scheduler's
// run: the resubmitted job has a run id of its own) says to resume with
// --round ID, in its error and in the interrupted run's record; and that
// does resume it: the finished run is kept, the interrupted one runs, no
// other round starts.
func TestCollectResumeNamesRound(t *testing.T) {
	at := time.Date(2026, 11, 27, 22, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, round string
		set         func(f *File, o *Options, run int)
	}{
		{"new-round", "2026-11-27", func(f *File, o *Options, run int) { o.NewRound = run == 0 }},
		{"scheduler", "slurm-81234", func(f *File, o *Options, run int) {
			f.Campaign.Rounds = "daily"
			o.LookupEnv = env(map[string]string{"SLURM_ARRAY_JOB_ID": fmt.Sprint(81234 + run)}) // a resubmission is another job
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pids, dir := t.TempDir(), t.TempDir()
			f := fakeCampaign(t, pids, "serve")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			o := opts(t, dir, pids)
			o.Now = func() time.Time { return at }
			tc.set(f, &o, 0)
			o.Runner = func(rctx context.Context, tg Target) (*schema.Result, error) {
				if tg.Run.Name == "e0--long" { // Ctrl-C in the second run
					cancel()
					<-rctx.Done()
					return nil, rctx.Err()
				}
				return probeRunner(rctx, tg)
			}
			_, err := Collect(ctx, f, o)
			hint := "--round " + tc.round
			if !errors.Is(err, ErrInterrupted) || !strings.Contains(err.Error(), hint) {
				t.Fatalf("err = %v; want interrupted, saying %q", err, hint)
			}
			rd := filepath.Join(dir, "fake", "rounds", tc.round)
			if r := readResults(t, rd)["e0--long"]; r == nil || r.Status != schema.StatusInterrupted || !strings.Contains(r.Error, hint) {
				t.Fatalf("interrupted run's record: %+v; want it to say %q", r, hint)
			}

			o = opts(t, dir, pids) // as the hint says
			o.Now = func() time.Time { return at.Add(4 * time.Hour) }
			tc.set(f, &o, 1)
			o.NewRound, o.Round = false, tc.round
			rep, err := Collect(context.Background(), f, o)
			if err != nil || rep.Round != tc.round || rep.Skipped != 1 || rep.Ran != 1 {
				t.Fatalf("resumed: %+v %v", rep, err)
			}
			if rs, err := schema.Rounds(filepath.Join(dir, "fake")); err != nil || len(rs) != 1 {
				t.Fatalf("rounds after resuming: %+v %v", rs, err)
			}
		})
	}
}

// TestPlainCollectResumesInterruptedRound: Ctrl-C early in collect
// --new-round leaves a round holding only an interrupted result. The
// pages show the round before (schema.Shown), but a plain collect still
// resumes the interrupted round (schema.Resumed), not the one shown.
func TestPlainCollectResumesInterruptedRound(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve")
	camp := filepath.Join(dir, "fake")
	if _, err := Collect(context.Background(), f, opts(t, dir, pids)); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 28, 5, 0, 0, 0, time.UTC)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o := opts(t, dir, pids)
	o.NewRound, o.Now = true, func() time.Time { return at }
	o.Runner = func(rctx context.Context, tg Target) (*schema.Result, error) {
		cancel() // Ctrl-C in the round's first run
		<-rctx.Done()
		return nil, rctx.Err()
	}
	if _, err := Collect(ctx, f, o); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v; want interrupted", err)
	}
	got := readResults(t, filepath.Join(camp, "rounds", "2026-11-28"))
	if len(got) != 1 {
		t.Fatalf("the stopped round holds %d results, want 1 interrupted", len(got))
	}
	if l, ok, err := schema.Shown(camp); err != nil || !ok || l.ID != schema.FirstRound {
		t.Errorf("shown: %q %v %v; want round 1", l.ID, ok, err)
	}
	if l, ok, err := schema.Resumed(camp); err != nil || !ok || l.ID != "2026-11-28" {
		t.Errorf("resumed: %q %v %v; want 2026-11-28", l.ID, ok, err)
	}
	o = opts(t, dir, pids)
	o.Now = func() time.Time { return at.Add(time.Hour) }
	rep, err := Collect(context.Background(), f, o)
	if err != nil || rep.Round != "2026-11-28" || rep.Ran != 2 {
		t.Fatalf("plain collect: %+v %v; want round 2026-11-28 resumed, 2 runs", rep, err)
	}
	if l, _, _ := schema.Shown(camp); l.ID != "2026-11-28" {
		t.Errorf("shown after the resume: %q", l.ID)
	}
}

// TestRoundIDImportedRound: a plain collect does not resume a round that
// holds only outputs perflab import placed there (a lab's older outputs
// as a dated round, the latest when the lab has collected nothing since):
// it would have added today's measurements to a round dated months ago.
// It says how to start a round or to join that one on purpose; once
// collect has written to the round, or for round 1 (imported seeds, the
// README's way), plain collect resumes it as before.
func TestRoundIDImportedRound(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)
	rd, err := schema.CreateRound(dir, &schema.Round{ID: "v0.10", Start: "2025-06-01T00:00:00Z", Note: "imported with perflab import"})
	if err != nil {
		t.Fatal(err)
	}
	write := func(d, name, tool string) {
		t.Helper()
		r := &schema.Result{ID: name, Experiment: "e", Profile: name, Status: schema.StatusOK, Start: "2025-06-01T10:00:00Z", Tool: schema.Tool{Name: tool}}
		if err := schema.WriteFile(filepath.Join(d, "e--"+name+".json"), r); err != nil {
			t.Fatal(err)
		}
	}
	write(rd.Dir, "short", "vllm bench serve")
	c := &schema.Campaign{}
	_, _, err = RoundID(c, dir, Options{LookupEnv: env(nil)}, at)
	if err == nil || !strings.Contains(err.Error(), "v0.10") || !strings.Contains(err.Error(), "--new-round") || !strings.Contains(err.Error(), "--round v0.10") {
		t.Fatalf("plain collect on an imported latest round: %v", err)
	}
	if id, _, err := RoundID(c, dir, Options{Round: "v0.10"}, at); err != nil || id != "v0.10" {
		t.Errorf("--round v0.10: %q %v", id, err)
	}
	if id, _, err := RoundID(c, dir, Options{NewRound: true}, at); err != nil || id != "2026-11-28" {
		t.Errorf("--new-round: %q %v", id, err)
	}
	write(rd.Dir, "long", ToolPerflab) // collect joined it on purpose
	if id, _, err := RoundID(c, dir, Options{LookupEnv: env(nil)}, at); err != nil || id != "v0.10" {
		t.Errorf("a round collect wrote to: %q %v", id, err)
	}
	one := t.TempDir()
	write(one, "short", "vllm bench serve")
	if id, _, err := RoundID(c, one, Options{LookupEnv: env(nil)}, at); err != nil || id != schema.FirstRound {
		t.Errorf("round 1 of imported results: %q %v", id, err)
	}
}

// TestRoundIDPolicyNotBack: under rounds: daily, a plain collect joins
// today's round to resume it, but not once a newer round started the
// same day (collect --new-round names its rounds by the date too:
// 2026-11-28, then 2026-11-28.2): it would have gone back to the older
// round and, the campaign edited since, re-run there the runs it changed,
// replacing a finished result of a round the pages no longer show. It
// says how to start a round or to resume that one on purpose.
func TestRoundIDPolicyNotBack(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	c := &schema.Campaign{Rounds: "daily"}
	for _, rec := range []*schema.Round{
		{ID: "2026-11-28", Start: "2026-11-28T06:00:00Z"},
		{ID: "2026-11-28.2", Start: "2026-11-28T07:00:00Z"},
	} {
		rd, err := schema.CreateRound(dir, rec)
		if err != nil {
			t.Fatal(err)
		}
		r := &schema.Result{ID: rec.ID, Experiment: "e", Profile: "p", Status: schema.StatusOK, Start: rec.Start, Tool: schema.Tool{Name: ToolPerflab}}
		if err := schema.WriteFile(filepath.Join(rd.Dir, "e--p.json"), r); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := RoundID(c, dir, Options{LookupEnv: env(nil)}, at)
	if err == nil || !strings.Contains(err.Error(), "2026-11-28.2 started since") || !strings.Contains(err.Error(), "--round 2026-11-28") || !strings.Contains(err.Error(), "--new-round") {
		t.Fatalf("rounds: daily going back to an older round of today: %v", err)
	}
	if id, _, err := RoundID(c, dir, Options{Round: "2026-11-28"}, at); err != nil || id != "2026-11-28" {
		t.Errorf("--round 2026-11-28: %q %v", id, err)
	}
	// Tomorrow's round: started. Today's, the latest: resumed.
	if id, create, err := RoundID(c, dir, Options{LookupEnv: env(nil)}, at.AddDate(0, 0, 1)); err != nil || id != "2026-11-29" || !create {
		t.Errorf("tomorrow: %q %v %v", id, create, err)
	}
	latest := t.TempDir()
	if _, err := schema.CreateRound(latest, &schema.Round{ID: "2026-11-28", Start: "2026-11-28T06:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	if _, err := schema.CreateRound(latest, &schema.Round{ID: "2026-11-27", Start: "2026-11-27T06:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	if id, _, err := RoundID(c, latest, Options{LookupEnv: env(nil)}, at); err != nil || id != "2026-11-28" {
		t.Errorf("today's round, the latest: %q %v", id, err)
	}
}

// TestCollectWarnsRedefinedRuns: a plain collect after the campaign
// changed a run (its key) runs it again in the resumed round, replacing
// the round's finished result of the older definition, as before rounds;
// it now says which runs and that --new-round keeps the round as it ran
// (the round's history value changed without a word).
func TestCollectWarnsRedefinedRuns(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve")
	if _, err := Collect(context.Background(), f, opts(t, dir, pids)); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	o := opts(t, dir, pids)
	o.Log = &log
	if _, err := Collect(context.Background(), f, o); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(log.String(), "older definition") {
		t.Fatalf("nothing changed, yet:\n%s", log.String())
	}
	f.Campaign.Profiles[0].NumPrompts++ // e0--short is another run now
	log.Reset()
	rep, err := Collect(context.Background(), f, o)
	if err != nil || rep.Ran != 1 {
		t.Fatalf("%+v %v", rep, err)
	}
	if w := log.String(); !strings.Contains(w, "warning: round 1: 1 finished result(s) of an older definition of their run (the campaign changed since) are run again and replaced: e0--short (collect --new-round") {
		t.Errorf("log:\n%s", w)
	}
}

// TestNewRoundStoppedBeforeRunsLeavesNone: collect --new-round that stops
// at its checks (a missing tokenizer or dataset, found before any engine
// starts) leaves no round behind: it left an empty round (a record, no
// result), so the fixed campaign's --new-round made .2 beside it and
// perflab diff's n: numbers counted it.
func TestNewRoundStoppedBeforeRunsLeavesNone(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve")
	day := time.Date(2026, 11, 27, 22, 0, 0, 0, time.UTC)
	o := opts(t, dir, pids)
	o.NewRound, o.Now = true, func() time.Time { return day }
	f.Campaign.Bench.Tokenizer = filepath.Join(t.TempDir(), "missing", "tokenizer.json")
	if _, err := Collect(context.Background(), f, o); err == nil || !strings.Contains(err.Error(), "bench.tokenizer") {
		t.Fatalf("a missing tokenizer: %v", err)
	}
	camp := filepath.Join(dir, "fake")
	if rs, err := schema.Rounds(camp); err != nil || len(rs) != 0 {
		t.Fatalf("rounds after a collect stopped at its checks: %v %v", rs, err)
	}
	f.Campaign.Bench.Tokenizer = ""
	rep, err := Collect(context.Background(), f, o)
	if err != nil || rep.Round != "2026-11-27" || rep.Ran != 2 {
		t.Fatalf("the fixed campaign's new round: %+v %v", rep, err)
	}
}
