package collect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/engine"
	"github.com/perflab/perflab/collect/engine/enginetest"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/telemetry"
)

func TestMain(m *testing.M) {
	enginetest.MaybeRun() // the test binary doubles as a fake engine
	os.Exit(m.Run())
}

// fakeCampaign writes a campaign whose experiments launch the test binary
// as a fake vLLM (modes: enginetest.Main) and returns it loaded.
func fakeCampaign(t *testing.T, pidDir string, modes ...string) *File {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var exps strings.Builder
	for i, mode := range modes {
		port, err := engine.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&exps, `
      - id: e%d
        name: Engine %d
        engine: vllm
        command: %s serve fake/model --port %d --api-key sk-live-0123456789abcdefXYZ
        env:
          FAKE_ENGINE: %s
          FAKE_ENGINE_PID_DIR: %s
          FAKE_API_KEY: supersecret-abc
`, i, i, exe, port, mode, pidDir)
	}
	y := `id: fake
model:
  id: fake/model
hardware:
  gpu: H100
  count: 1
profiles:
  - {id: short, name: Short, dataset: random, input_len: 16, output_len: 4, num_prompts: 3}
  - {id: long, name: Long, dataset: random, input_len: 64, output_len: 8, num_prompts: 2}
steps:
  - id: engine
    title: Choosing the engine
    experiments:` + exps.String() + `
baseline: e0
optimized: e0
`
	f, err := Parse("fake.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	return f
}

// probeRunner checks the engine answers, then reports a result whose
// numbers come from the profile, so tests can tell runs apart.
func probeRunner(ctx context.Context, tg Target) (*schema.Result, error) {
	defer tg.Measure()()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, tg.BaseURL+"/v1/models", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	n := tg.Run.Profile.NumPrompts
	return &schema.Result{Status: schema.StatusOK, Tool: schema.Tool{Name: ToolPerflab},
		Summary: &schema.Summary{Completed: n, DurationS: 1, TotalOutputTokens: n * tg.Run.Profile.OutputLen,
			TotalTokenThroughput: float64(n * (tg.Run.Profile.InputLen + tg.Run.Profile.OutputLen))},
		RawOutput: "model " + tg.Model}, nil
}

// gpuSim is a one-GPU node whose memory is held while a fake engine of
// pidDir runs (so the collector's wait for released memory is real) and
// whose energy counter advances 1.5 J per reading.
type gpuSim struct {
	pidDir string
	count  int

	mu    sync.Mutex
	reads int
}

func fakeGPU(pidDir string) *gpuSim { return &gpuSim{pidDir: pidDir, count: 1} }

func (g *gpuSim) Inventory() (*schema.Hardware, error) {
	h := &schema.Hardware{GPUName: "NVIDIA H100 80GB HBM3", GPUCount: g.count, DriverVersion: "570.1", CUDAVersion: "12.8"}
	for i := 0; i < g.count; i++ {
		h.GPUs = append(h.GPUs, schema.GPU{Index: i, Name: h.GPUName, MemoryMiB: 81559})
	}
	return h, nil
}

func (g *gpuSim) Read() ([]telemetry.Reading, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.reads++
	mem := 500.0
	if len(enginetest.Alive(g.pidDir)) > 0 {
		mem = 70000
	}
	var out []telemetry.Reading
	for i := 0; i < g.count; i++ {
		out = append(out, telemetry.Reading{GPU: i, MemUsedMiB: mem, PowerW: 400, EnergyMJ: uint64(g.reads) * 1500, HasEnergy: true})
	}
	return out, nil
}

func (g *gpuSim) Close() error { return nil }

func opts(t *testing.T, dir, pidDir string) Options {
	return Options{Results: dir, Runner: probeRunner, Sampler: fakeGPU(pidDir), HealthTimeout: 20 * time.Second,
		StopGrace: 2 * time.Second, ReleaseTimeout: 10 * time.Second, SampleInterval: time.Hour, Log: testLog{t}}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

func readResults(t *testing.T, dir string) map[string]*schema.Result {
	t.Helper()
	rs, err := schema.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*schema.Result{}
	for _, r := range rs {
		out[r.Experiment+"--"+r.Profile] = r
	}
	return out
}

func TestCollectRunsResumesAndForces(t *testing.T) {
	// A token in the collector's own environment, which the fake engine
	// prints: it must not reach the log either.
	t.Setenv("HF_TOKEN", "hf-from-the-environment-123")
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve", "serve")
	rep, err := Collect(context.Background(), f, opts(t, dir, pids))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Ran != 4 || rep.Status[schema.StatusOK] != 4 {
		t.Fatalf("report %+v", rep)
	}
	if n := enginetest.Started(pids); n != 2 {
		t.Fatalf("%d engine launches, want 2 (one per experiment)", n)
	}
	if alive := enginetest.Alive(pids); len(alive) > 0 {
		t.Fatalf("engines left running: %v", alive)
	}
	res := readResults(t, filepath.Join(dir, "fake"))
	r := res["e1--long"]
	if r == nil {
		t.Fatalf("results: %v", res)
	}
	plan := NewPlan(&f.Campaign, dir)
	if r.ID != plan.Runs[3].Key || r.Campaign != "fake" || r.Label != "Engine 1 / Long" {
		t.Fatalf("identity: %+v", r)
	}
	if r.Engine.Version != "fake-1.0" || r.Engine.Name != "vllm" || !strings.HasPrefix(r.Engine.BaseURL, "http://127.0.0.1:") {
		t.Fatalf("engine: %+v", r.Engine)
	}
	if r.Hardware == nil || r.Hardware.GPUName != "NVIDIA H100 80GB HBM3" || r.Hardware.GPUCount != 1 || r.Hardware.CUDAVersion != "12.8" {
		t.Fatalf("hardware: %+v", r.Hardware)
	}
	if r.Telemetry == nil || !r.Telemetry.Available || r.Telemetry.TotalEnergyJ <= 0 {
		t.Fatalf("telemetry: %+v", r.Telemetry)
	}
	if r.Summary.Completed != 2 || r.RawOutput != "model fake/model" {
		t.Fatalf("runner's numbers lost: %+v %q", r.Summary, r.RawOutput)
	}
	if len(r.Artifacts) != 1 || r.Artifacts[0].Path != "e1.engine.log" {
		t.Fatalf("artifacts: %+v", r.Artifacts)
	}
	// Secrets: not in the results, not in the engine logs.
	for _, p := range []string{"e1--long.json", "e0.engine.log"} {
		b, err := os.ReadFile(filepath.Join(dir, "fake", p))
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{"supersecret-abc", "sk-live-0123456789abcdefXYZ", "hf-from-the-environment-123"} {
			if strings.Contains(string(b), secret) {
				t.Errorf("%s holds the secret %s", p, secret)
			}
		}
	}
	if !strings.Contains(r.Engine.Command, "--api-key <redacted>") || r.Engine.Env["FAKE_API_KEY"] != "<redacted>" || r.Engine.Env["FAKE_ENGINE"] != "serve" {
		t.Fatalf("redaction: %q %v", r.Engine.Command, r.Engine.Env)
	}

	// A second collect finds everything done: no engine starts.
	rep, err = Collect(context.Background(), f, opts(t, dir, pids))
	if err != nil || rep.Skipped != 4 || rep.Ran != 0 {
		t.Fatalf("resume: %+v %v", rep, err)
	}
	if n := enginetest.Started(pids); n != 2 {
		t.Fatalf("resume launched engines: %d", n)
	}
	// --force repeats; a changed definition repeats only the changed runs.
	o := opts(t, dir, pids)
	o.Force = true
	if rep, err = Collect(context.Background(), f, o); err != nil || rep.Ran != 4 {
		t.Fatalf("force: %+v %v", rep, err)
	}
	f.Campaign.Profiles[1].NumPrompts = 5
	if rep, err = Collect(context.Background(), f, opts(t, dir, pids)); err != nil || rep.Ran != 2 || rep.Skipped != 2 {
		t.Fatalf("changed profile: %+v %v", rep, err)
	}
}

// TestCollectNeverHealthy: an engine that runs but never answers its
// health route is a crash with the deadline, its log tail and the way to
// give a slow-loading model more time.
func TestCollectNeverHealthy(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "unhealthy")
	o := opts(t, dir, pids)
	o.HealthTimeout = 300 * time.Millisecond
	if _, err := Collect(context.Background(), f, o); err != nil {
		t.Fatal(err)
	}
	for name, r := range readResults(t, filepath.Join(dir, "fake")) {
		if r.Status != schema.StatusCrashed || !strings.Contains(r.Error, "not healthy before the deadline") ||
			!strings.Contains(r.Error, "raise --health-timeout and collect again with --retry") || !strings.Contains(r.LogTail, "fake engine") {
			t.Errorf("%s: %s %q\n%s", name, r.Status, r.Error, r.LogTail)
		}
	}
	if alive := enginetest.Alive(pids); len(alive) > 0 {
		t.Fatalf("engines left running: %v", alive)
	}
}

func TestCollectCrashes(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	// e0 runs out of memory while loading; e1 dies during its first
	// profile and is relaunched for the second.
	f := fakeCampaign(t, pids, "oom", "serve")
	var mu sync.Mutex
	killed := false
	o := opts(t, dir, pids)
	o.Runner = func(ctx context.Context, tg Target) (*schema.Result, error) {
		mu.Lock()
		first := !killed
		killed = true
		mu.Unlock()
		if tg.Run.Experiment.ID == "e1" && first {
			http.Get(tg.BaseURL + "/die")
			<-ctx.Done() // the collector cancels the run when the engine exits
			return nil, ctx.Err()
		}
		return probeRunner(ctx, tg)
	}
	rep, err := Collect(context.Background(), f, o)
	if err != nil {
		t.Fatal(err)
	}
	res := readResults(t, filepath.Join(dir, "fake"))
	for _, name := range []string{"e0--short", "e0--long"} {
		r := res[name]
		if r == nil || r.Status != schema.StatusCrashed || !strings.Contains(r.LogTail, "CUDA out of memory") || !strings.Contains(r.Error, "engine failed to start (out of GPU memory)") {
			t.Fatalf("%s: %+v", name, r)
		}
	}
	r := res["e1--short"]
	if r.Status != schema.StatusCrashed || !strings.Contains(r.LogTail, "illegal memory access") || !strings.Contains(r.Error, "crashed during the benchmark (CUDA illegal memory access)") {
		t.Fatalf("e1--short: %s %q %q", r.Status, r.Error, r.LogTail)
	}
	if r := res["e1--long"]; r.Status != schema.StatusOK {
		t.Fatalf("e1--long after relaunch: %+v", r)
	}
	if rep.Status[schema.StatusCrashed] != 3 || rep.Status[schema.StatusOK] != 1 {
		t.Fatalf("report %+v", rep)
	}
	if alive := enginetest.Alive(pids); len(alive) > 0 {
		t.Fatalf("engines left running: %v", alive)
	}
}

// TestCollectCrashKeepsSweepPoint: a sweep point whose engine dies
// mid-run keeps what the benchmark measured and its place in the sweep
// (load.sweep), so that the page puts it at its point, not at a load of 0.
func TestCollectCrashKeepsSweepPoint(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve")
	f.Campaign.Profiles = f.Campaign.Profiles[:1]
	f.Campaign.Profiles[0].Concurrencies = []int{2, 4}
	var mu sync.Mutex
	killed := false
	o := opts(t, dir, pids)
	o.Runner = func(ctx context.Context, tg Target) (*schema.Result, error) {
		mu.Lock()
		first := !killed
		killed = true
		mu.Unlock()
		if !first {
			return probeRunner(ctx, tg)
		}
		http.Get(tg.BaseURL + "/die")
		<-ctx.Done()
		// What perflab bench returns when the server goes away: the
		// load it ran (without the collector's sweep) and failed requests.
		return &schema.Result{Status: schema.StatusOK, Load: loadOf(tg.Campaign, tg.Run.Profile),
			Summary: &schema.Summary{Completed: 1, Failed: 2}}, nil
	}
	if _, err := Collect(context.Background(), f, o); err != nil {
		t.Fatal(err)
	}
	read := func(name string) *schema.Result {
		r, err := schema.ReadFile(filepath.Join(dir, "fake", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r := read("e0--short--c2")
	if r == nil || r.Status != schema.StatusCrashed || r.Summary == nil || r.Summary.Failed != 2 {
		t.Fatalf("crashed point: %+v", r)
	}
	if r.Load.Sweep != schema.SweepConcurrency || r.Load.MaxConcurrency != 2 {
		t.Errorf("crashed point's load: %+v, want sweep %s at 2", r.Load, schema.SweepConcurrency)
	}
	if r := read("e0--short--c4"); r == nil || r.Status != schema.StatusOK || r.Load.Sweep != schema.SweepConcurrency {
		t.Errorf("next point: %+v", r)
	}
}

func TestCollectInterruptAndResume(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve", "serve")
	ctx, cancel := context.WithCancel(context.Background())
	o := opts(t, dir, pids)
	o.Runner = func(rctx context.Context, tg Target) (*schema.Result, error) {
		if tg.Run.Name == "e0--long" { // Ctrl-C in the middle of the second run
			cancel()
			<-rctx.Done()
			return nil, rctx.Err()
		}
		return probeRunner(rctx, tg)
	}
	_, err := Collect(ctx, f, o)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v, want interrupted", err)
	}
	if alive := enginetest.Alive(pids); len(alive) > 0 {
		t.Fatalf("engines left running after the interrupt: %v", alive)
	}
	res := readResults(t, filepath.Join(dir, "fake")) // every file parses: none half-written
	if len(res) != 2 || res["e0--short"].Status != schema.StatusOK || res["e0--long"].Status != schema.StatusInterrupted {
		t.Fatalf("after interrupt: %v", res)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "fake"))
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	rep, err := Collect(context.Background(), f, opts(t, dir, pids))
	if err != nil || rep.Skipped != 1 || rep.Ran != 3 {
		t.Fatalf("resume: %+v %v", rep, err)
	}
	for name, r := range readResults(t, filepath.Join(dir, "fake")) {
		if r.Status != schema.StatusOK {
			t.Errorf("%s: %s", name, r.Status)
		}
	}
}

// TestCollectNeedsVisibleGPUs: a node with 4 GPUs whose
// CUDA_VISIBLE_DEVICES (a Slurm allocation, the experiment's env) leaves
// an experiment 2 cannot run its 4-GPU engine: say so before launching.
func TestCollectNeedsVisibleGPUs(t *testing.T) {
	for _, tc := range []struct {
		name, collectorEnv, expEnv string
		ok                         bool
	}{
		{"experiment env", "", "0,1", false},
		{"collector env", "2,3", "", false},
		{"empty hides all", "", "", false},
		{"all visible", "0,1,2,3", "", true},
		// MIG instances are not in NVML's GPU list: no verdict, no refusal.
		{"MIG instances", "", "MIG-4f7e2a9c-0000-0000-0000-000000000000,MIG-5a1b", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pids := t.TempDir()
			f := fakeCampaign(t, pids, "serve")
			e := &f.Campaign.Steps[0].Experiments[0]
			e.GPUs = 4
			f.Campaign.Hardware.Count = 4
			if tc.expEnv != "" {
				e.Env["CUDA_VISIBLE_DEVICES"] = tc.expEnv
			} else {
				t.Setenv("CUDA_VISIBLE_DEVICES", tc.collectorEnv)
			}
			o := opts(t, t.TempDir(), pids)
			gpu := fakeGPU(pids)
			gpu.count = 4
			o.Sampler = gpu
			_, err := Collect(context.Background(), f, o)
			if tc.ok {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "experiment e0 needs 4 GPUs but CUDA_VISIBLE_DEVICES=") || !strings.HasPrefix(err.Error(), "fake.yaml:") {
				t.Fatalf("err = %v", err)
			}
			if n := enginetest.Started(pids); n != 0 {
				t.Fatalf("%d engines started", n)
			}
		})
	}
}

func TestCollectNeedsGPUs(t *testing.T) {
	pids := t.TempDir()
	f := fakeCampaign(t, pids, "serve")
	f.Campaign.Steps[0].Experiments[0].GPUs = 1
	o := opts(t, t.TempDir(), pids)
	gpu := fakeGPU(pids)
	gpu.count = 0
	o.Sampler = gpu
	_, err := Collect(context.Background(), f, o)
	if err == nil || !strings.Contains(err.Error(), "experiment e0 needs 1 GPUs but this node has 0") || !strings.HasPrefix(err.Error(), "fake.yaml:") {
		t.Fatalf("err = %v", err)
	}
}

func TestCollectWithoutTelemetryWarns(t *testing.T) {
	dir, pids := t.TempDir(), t.TempDir()
	// A GPU engine (vllm) on one GPU: without telemetry the GPU count
	// cannot be checked, and every result says why it has no power data.
	f := fakeCampaign(t, pids, "serve")
	o := opts(t, dir, pids)
	o.Sampler = nil // telemetry.Open: no NVIDIA driver on this machine
	if _, err := telemetry.Open(); err == nil {
		t.Skip("this machine has GPUs")
	}
	if _, err := Collect(context.Background(), f, o); err != nil {
		t.Fatal(err)
	}
	r := readResults(t, filepath.Join(dir, "fake"))["e0--short"]
	if r.Status != schema.StatusOK || r.Telemetry == nil || r.Telemetry.Available || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "no GPU telemetry") {
		b, _ := json.Marshal(r)
		t.Fatalf("%s", b)
	}
}

func TestCollectInterruptWhileStarting(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "unhealthy")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err := Collect(ctx, f, opts(t, dir, pids))
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v", err)
	}
	if alive := enginetest.Alive(pids); len(alive) > 0 {
		t.Fatalf("engine left running: %v", alive)
	}
	res := readResults(t, filepath.Join(dir, "fake"))
	if len(res) != 1 || res["e0--short"].Status != schema.StatusInterrupted {
		t.Fatalf("results: %v", res)
	}
}

// TestCollectExternalEndpoint benchmarks an engine someone else runs: no
// process is launched or stopped, the campaign's version stands.
func TestCollectExternalEndpoint(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			fmt.Fprint(w, `{"data":[{"id":"fake/model"}]}`)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	y := `id: ext
model: {id: fake/model}
hardware: {gpu: H100, count: 1}
profiles: [{id: p, name: P, dataset: random, input_len: 8, output_len: 2, num_prompts: 2}]
steps:
  - id: s
    title: S
    experiments:
      - {id: gpustack, name: GPUStack deployment, engine: external, version: v0.11.0, base_url: ` + srv.URL + `/}
baseline: gpustack
optimized: gpustack
`
	f, err := Parse("ext.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	o := opts(t, dir, t.TempDir())
	if _, err := Collect(context.Background(), f, o); err != nil {
		t.Fatal(err)
	}
	r := readResults(t, filepath.Join(dir, "ext"))["gpustack--p"]
	if r.Status != schema.StatusOK || r.Engine.BaseURL != srv.URL || r.Engine.Version != "v0.11.0" || len(r.Artifacts) != 0 {
		t.Fatalf("%+v", r)
	}
}

func TestHFTokenizer(t *testing.T) {
	hub := t.TempDir()
	t.Setenv("HF_HUB_CACHE", hub)
	t.Setenv("HF_HOME", "")
	old := filepath.Join(hub, "models--Qwen--Qwen3-32B", "snapshots", "aaa", "tokenizer.json")
	newer := filepath.Join(hub, "models--Qwen--Qwen3-32B", "snapshots", "bbb", "tokenizer.json")
	for i, p := range []string{old, newer} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("{}"), 0o644)
		ts := time.Now().Add(time.Duration(i-2) * time.Hour)
		os.Chtimes(p, ts, ts)
	}
	if p, ok := HFTokenizer("Qwen/Qwen3-32B"); !ok || p != newer {
		t.Fatalf("HFTokenizer = %q %v, want the newest snapshot %q", p, ok, newer)
	}
	if _, ok := HFTokenizer("Qwen/Qwen3-8B"); ok {
		t.Fatal("found a model that is not in the cache")
	}
	// A local model directory holding tokenizer.json is used as it is.
	dir := filepath.Dir(old)
	if p, ok := HFTokenizer(dir); !ok || p != old {
		t.Fatalf("local dir: %q %v", p, ok)
	}
}

// TestCollectHurryKillsAStubbornEngine: an engine that ignores SIGINT and
// SIGTERM would hold the campaign for the whole grace period after a
// Ctrl-C; a second Ctrl-C (Options.Hurry) kills it at once.
func TestCollectHurryKillsAStubbornEngine(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "stubborn")
	ctx, cancel := context.WithCancel(context.Background())
	hurry := make(chan struct{})
	var log syncBuf
	o := opts(t, dir, pids)
	o.StopGrace, o.Hurry, o.Log = time.Minute, hurry, &log
	o.Runner = func(rctx context.Context, tg Target) (*schema.Result, error) {
		cancel()
		<-rctx.Done()
		go func() { time.Sleep(100 * time.Millisecond); close(hurry) }()
		return nil, rctx.Err()
	}
	start := time.Now()
	_, err := Collect(ctx, f, o)
	if !errors.Is(err, ErrInterrupted) {
		t.Fatalf("err = %v", err)
	}
	// Not a speed target: without Hurry this waits out the one-minute grace.
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("Collect took %v: the engine was not killed at once", d)
	}
	if !strings.Contains(log.String(), "killing the engine now") {
		t.Fatalf("log:\n%s", log.String())
	}
	if alive := enginetest.Alive(pids); len(alive) > 0 {
		t.Fatalf("engine left running: %v", alive)
	}
}

// TestCollectShardsMergeByFile runs two shards of one campaign at the same
// time into one results directory, as two nodes of a job array on shared
// storage would: together they write every run once, each experiment's
// engine is launched once, and a third collect finds nothing to do.
func TestCollectShardsMergeByFile(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve", "serve", "serve", "serve")
	var wg sync.WaitGroup
	reps := make([]*Report, 2)
	errs := make([]error, 2)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			o := opts(t, dir, pids)
			o.Shard, o.Shards = i, 2
			reps[i], errs[i] = Collect(context.Background(), f, o)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shard %d: %v", i, err)
		}
	}
	if reps[0].Ran+reps[1].Ran != 8 || reps[0].Planned+reps[1].Planned != 8 {
		t.Fatalf("shards ran %d + %d of 8 runs", reps[0].Ran, reps[1].Ran)
	}
	if n := enginetest.Started(pids); n != 4 {
		t.Fatalf("%d engine launches for 4 experiments", n)
	}
	if res := readResults(t, filepath.Join(dir, "fake")); len(res) != 8 {
		t.Fatalf("%d results", len(res))
	}
	rep, err := Collect(context.Background(), f, opts(t, dir, pids))
	if err != nil || rep.Ran != 0 || rep.Skipped != 8 {
		t.Fatalf("after the shards: %+v %v", rep, err)
	}
}

// BenchmarkExisting measures the resume check of one run whose result
// holds 1000 requests of 200 tokens (about 4 MB of JSON).
func BenchmarkExisting(b *testing.B) {
	dir := b.TempDir()
	res := &schema.Result{ID: "k", Status: schema.StatusOK, Tool: schema.Tool{Name: ToolPerflab}}
	for i := 0; i < 1000; i++ {
		q := schema.Request{Index: i, Success: true, OutputTokens: 200}
		for j := 0; j < 200; j++ {
			q.EventS = append(q.EventS, float64(i)+float64(j)*0.0123456789)
		}
		res.Requests = append(res.Requests, q)
	}
	path := filepath.Join(dir, "e--p.json")
	if err := schema.WriteFile(path, res); err != nil {
		b.Fatal(err)
	}
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	r := Run{Key: "k", Path: path}
	for i := 0; i < b.N; i++ {
		if _, ok, err := Existing(r); !ok {
			b.Fatal("not found", err)
		}
	}
}

func TestEngineGPUs(t *testing.T) {
	k := &collector{hw: &schema.Hardware{GPUs: []schema.GPU{{Index: 0, UUID: "GPU-aaa"}, {Index: 1, UUID: "GPU-bbb"}, {Index: 2, UUID: "GPU-ccc"}, {Index: 3, UUID: "GPU-ddd"}}}}
	t.Setenv("CUDA_VISIBLE_DEVICES", "")
	os.Unsetenv("CUDA_VISIBLE_DEVICES")
	for _, tc := range []struct {
		env  map[string]string
		gpus int
		want []int
	}{
		{nil, 2, []int{0, 1}},       // the first GPUs, as engines pick them
		{nil, 0, []int{0, 1, 2, 3}}, // no count: every GPU
		{map[string]string{"CUDA_VISIBLE_DEVICES": "2,3"}, 2, []int{2, 3}},
		{map[string]string{"CUDA_VISIBLE_DEVICES": "GPU-ccc,GPU-a"}, 2, []int{2, 0}}, // UUIDs and prefixes
		{map[string]string{"CUDA_VISIBLE_DEVICES": "1,2,3"}, 1, []int{1}},
		// Like CUDA: "" and -1 hide every GPU (not "every UUID has the
		// empty prefix"), and the list ends at the first entry naming no GPU.
		{map[string]string{"CUDA_VISIBLE_DEVICES": ""}, 2, nil},
		{map[string]string{"CUDA_VISIBLE_DEVICES": "-1"}, 1, nil},
		{map[string]string{"CUDA_VISIBLE_DEVICES": "3,9,1"}, 0, []int{3}},
		{map[string]string{"CUDA_VISIBLE_DEVICES": "1,GPU-zzz,2"}, 0, []int{1}},
	} {
		got := k.engineGPUs(&Launch{Env: tc.env, GPUs: tc.gpus})
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("env %v gpus %d: %v, want %v", tc.env, tc.gpus, got, tc.want)
		}
	}
}

func TestNeedsGPUs(t *testing.T) {
	for _, tc := range []struct {
		engine string
		gpus   int
		want   bool
	}{
		{"vllm", 1, true},
		{"vllm", 0, false},
		{"llamacpp", 1, true}, // offloads to the GPU: telemetry and energy recorded
		{"llamacpp", 0, false},
		{"mock", 1, false},
		{"external", 8, false},
	} {
		a, _ := engine.Lookup(tc.engine)
		if got := needsGPUs(&Launch{Adapter: a, GPUs: tc.gpus}); got != tc.want {
			t.Errorf("%s with %d GPUs: %v, want %v", tc.engine, tc.gpus, got, tc.want)
		}
	}
	// A mock is sampled only when its experiment names gpus: (make
	// gpu-check), not for the campaign's hardware count (the demo runs
	// on any machine).
	c := &schema.Campaign{Model: schema.CampaignModel{ID: "perflab/mock-8b"}, Hardware: schema.HardwareSpec{GPU: "H100", Count: 1}}
	for _, tc := range []struct {
		gpus int
		want bool
	}{{0, false}, {1, true}} {
		l, err := NewLaunch(c, &schema.Experiment{ID: "m", Engine: "mock", GPUs: tc.gpus})
		if err != nil {
			t.Fatal(err)
		}
		if got := needsGPUs(l); got != tc.want {
			t.Errorf("mock with experiment gpus %d: %v, want %v", tc.gpus, got, tc.want)
		}
	}
}

func TestSameVersion(t *testing.T) {
	for _, tc := range []struct {
		declared, got string
		same          bool
	}{
		{"v0.11.0", "0.11.0", true},
		{"0.11.0", "0.11.0+cu128", true},
		{"v0.5.5.post1", "0.5.5.post1", true},
		{"v0.11.0", "0.11.1", false},
		{"v0.11", "0.11.0", false}, // a page's "v0.11" is not proof of 0.11.0
	} {
		if got := sameVersion(tc.declared, tc.got); got != tc.same {
			t.Errorf("sameVersion(%q, %q) = %v", tc.declared, tc.got, got)
		}
	}
}

func TestCollectWarnsOnVersionMismatch(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve")
	f.Campaign.Steps[0].Experiments[0].Version = "v0.11.0"
	if _, err := Collect(context.Background(), f, opts(t, dir, pids)); err != nil {
		t.Fatal(err)
	}
	r := readResults(t, filepath.Join(dir, "fake"))["e0--short"]
	if r.Engine.Version != "fake-1.0" || len(r.Warnings) != 1 || r.Warnings[0] != "the engine reports version fake-1.0, the campaign expects v0.11.0" {
		t.Fatalf("version %q, warnings %q", r.Engine.Version, r.Warnings)
	}
}

func TestCollectRetryAndOnly(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "oom", "serve")
	if _, err := Collect(context.Background(), f, opts(t, dir, pids)); err != nil {
		t.Fatal(err)
	}
	// --retry repeats the crashed runs only.
	o := opts(t, dir, pids)
	o.Retry = true
	rep, err := Collect(context.Background(), f, o)
	if err != nil || rep.Ran != 2 || rep.Skipped != 2 || rep.Status[schema.StatusCrashed] != 2 {
		t.Fatalf("retry: %+v %v", rep, err)
	}
	// --only with --force: one run of one experiment, and a whole step.
	for _, tc := range []struct {
		only []string
		ran  int
	}{{[]string{"e1--short"}, 1}, {[]string{"e1"}, 2}, {[]string{"engine"}, 4}} {
		o = opts(t, dir, pids)
		o.Force, o.Only = true, tc.only
		rep, err = Collect(context.Background(), f, o)
		if err != nil || rep.Ran != tc.ran || rep.Planned != tc.ran {
			t.Fatalf("only %v: %+v %v", tc.only, rep, err)
		}
	}
	o.Only = []string{"e2"}
	if _, err := Collect(context.Background(), f, o); err == nil || !strings.Contains(err.Error(), "--only e2: no experiment, step or run") {
		t.Fatalf("unknown id: %v", err)
	}
}

// TestCollectAPIKey: an endpoint that wants a key (a GPUStack deployment,
// vLLM --api-key) gets it on the collector's probes and in the runner's
// target, and the key is written nowhere.
func TestCollectAPIKey(t *testing.T) {
	const key = "ext-key-0123456789"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"data":[{"id":"fake/model-served"}]}`)
	}))
	defer srv.Close()
	y := `id: ext
model: {id: fake/model}
hardware: {gpu: H100, count: 1}
profiles: [{id: p, name: P, dataset: random, input_len: 8, output_len: 2, num_prompts: 2}]
steps:
  - id: s
    title: S
    experiments:
      - {id: gpustack, name: GPUStack, engine: external, base_url: ` + srv.URL + `, env: {OPENAI_API_KEY: ` + key + `}}
baseline: gpustack
optimized: gpustack
`
	f, err := Parse("ext.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	o := opts(t, dir, t.TempDir())
	o.Runner = func(ctx context.Context, tg Target) (*schema.Result, error) {
		if tg.APIKey != key {
			return nil, fmt.Errorf("target key %q", tg.APIKey)
		}
		return probeRunner(ctx, tg)
	}
	if _, err := Collect(context.Background(), f, o); err != nil {
		t.Fatal(err)
	}
	r := readResults(t, filepath.Join(dir, "ext"))["gpustack--p"]
	if r.Status != schema.StatusOK || r.Model.Served != "fake/model-served" {
		t.Fatalf("status %s %q, served %q: the probes did not carry the key", r.Status, r.Error, r.Model.Served)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "ext", "gpustack--p.json"))
	if strings.Contains(string(b), key) {
		t.Fatal("the result holds the key")
	}
}

func TestLaunchAPIKey(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "from-env")
	for _, tc := range []struct {
		argv []string
		env  map[string]string
		want string
	}{
		{[]string{"vllm", "serve", "m", "--api-key", "flag-key"}, map[string]string{"OPENAI_API_KEY": "x"}, "flag-key"},
		{[]string{"vllm", "serve", "m"}, map[string]string{"VLLM_API_KEY": "vllm-env"}, "vllm-env"},
		{[]string{"vllm", "serve", "m"}, nil, "from-env"}, // as vllm bench serve reads it
	} {
		if got := (&Launch{Argv: tc.argv, Env: tc.env}).APIKey(); got != tc.want {
			t.Errorf("%q %v: %q, want %q", tc.argv, tc.env, got, tc.want)
		}
	}
}

// TestCollectRefusesATakenPort: a server already on the engine's port
// would answer the health check for it; the campaign stops instead.
func TestCollectRefusesATakenPort(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve")
	port, _ := engine.FlagValue(strings.Fields(f.Campaign.Steps[0].Experiments[0].Command), "--port")
	l, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		t.Skip("port taken meanwhile:", err)
	}
	defer l.Close()
	_, err = Collect(context.Background(), f, opts(t, dir, pids))
	if !errors.Is(err, ErrPortInUse) || !strings.Contains(err.Error(), "127.0.0.1:"+port+" already answers") {
		t.Fatalf("err = %v", err)
	}
	if n := enginetest.Started(pids); n != 0 {
		t.Fatalf("%d engines started", n)
	}
}

// TestCollectRedactsArgvSecretsInEngineLog: an engine echoes its own
// arguments at start-up (the fake, like vLLM, prints them quoted), so the
// log must hide the value of --api-key even when it has no token shape
// (vLLM's documentation uses "token-abc123").
func TestCollectRedactsArgvSecretsInEngineLog(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve")
	e := &f.Campaign.Steps[0].Experiments[0]
	e.Command = strings.Replace(e.Command, "sk-live-0123456789abcdefXYZ", "token-abc123", 1)
	if _, err := Collect(context.Background(), f, opts(t, dir, pids)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "fake", "e0.engine.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "non-default args:") {
		t.Fatalf("the fake engine did not echo its arguments:\n%s", b)
	}
	if strings.Contains(string(b), "token-abc123") {
		t.Fatalf("the engine log holds the --api-key value:\n%s", b)
	}
}

// TestCollectExternalURLSecrets: an external endpoint reached with a
// password in its base_url (basic auth, as a gateway may ask) works, and
// the password is in no result, log line or plan.
func TestCollectExternalURLSecrets(t *testing.T) {
	const pw = "hunter2-gateway-pw"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "admin" || p != pw {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"data":[{"id":"fake/model"}]}`)
	}))
	defer srv.Close()
	base := strings.Replace(srv.URL, "http://", "http://admin:"+pw+"@", 1)
	y := `id: ext
model: {id: fake/model}
hardware: {gpu: H100, count: 1}
profiles: [{id: p, name: P, dataset: random, input_len: 8, output_len: 2, num_prompts: 2}]
steps:
  - id: s
    title: S
    experiments:
      - {id: gw, name: Gateway, engine: external, base_url: "` + base + `"}
baseline: gw
optimized: gw
`
	f, err := Parse("ext.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var log strings.Builder
	o := opts(t, dir, t.TempDir())
	o.Log = &log
	if _, err := Collect(context.Background(), f, o); err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	if err := PrintPlan(&plan, f, o); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "ext", "gw--p.json"))
	r := readResults(t, filepath.Join(dir, "ext"))["gw--p"]
	if r.Status != schema.StatusOK {
		t.Fatalf("status %s %q: the password was not used", r.Status, r.Error)
	}
	for what, s := range map[string]string{"result": string(b), "log": log.String(), "plan": plan.String()} {
		if strings.Contains(s, pw) {
			t.Errorf("the %s holds the password:\n%s", what, s)
		}
	}
	if !strings.Contains(r.Engine.BaseURL, "admin:<redacted>@") {
		t.Errorf("base_url %q", r.Engine.BaseURL)
	}
}

// TestCollectGivesTheEngineAPort: a llama.cpp command without --port
// listens where its build chooses (a Debian llama-server on 9931, not
// the 8080 collect assumed), and collect waited silently for ten
// minutes. Now collect gives the engine a free port, and says what it
// waits for.
func TestCollectGivesTheEngineAPort(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The fake engine without --port listens on a port of its own choosing.
	y := `id: noport
model: {id: fake/model}
hardware: {gpu: CPU, count: 1}
profiles:
  - {id: short, name: Short, dataset: random, input_len: 16, output_len: 4, num_prompts: 3}
steps:
  - id: s
    title: S
    experiments:
      - id: llama
        engine: llamacpp
        command: ` + exe + ` serve fake/model
        env: {FAKE_ENGINE: serve, FAKE_ENGINE_PID_DIR: ` + pids + `}
baseline: llama
optimized: llama
`
	f, err := Parse("noport.yaml", []byte(y))
	if err != nil {
		t.Fatal(err)
	}
	var log syncBuf
	o := opts(t, dir, pids)
	o.HealthTimeout = 5 * time.Second
	o.Log = &log
	if _, err := Collect(context.Background(), f, o); err != nil {
		t.Fatal(err)
	}
	res := readResults(t, filepath.Join(dir, "noport"))["llama--short"]
	if res == nil || res.Status != schema.StatusOK {
		t.Fatalf("result %+v\nlog:\n%s", res, log.String())
	}
	if !regexp.MustCompile(`llama: waiting for http://127\.0\.0\.1:\d+/health to answer \(up to 5s\)`).MatchString(log.String()) {
		t.Errorf("the log does not say what collect waits for:\n%s", log.String())
	}
	if alive := enginetest.Alive(pids); len(alive) > 0 {
		t.Fatalf("engines left running: %v", alive)
	}
}

func TestLaunchFreePortEveryEngine(t *testing.T) {
	c := &schema.Campaign{Model: schema.CampaignModel{ID: "m"}}
	for _, tc := range []struct{ engine, command, base string }{
		{"llamacpp", "llama-server -m m.gguf", "http://127.0.0.1:<free port>"},
		{"vllm", "vllm serve m", "http://127.0.0.1:<free port>"},
		{"sglang", "python3 -m sglang.launch_server --model-path m --host 10.0.0.2", "http://10.0.0.2:<free port>"},
		// A command with its --port keeps it.
		{"llamacpp", "llama-server -m m.gguf --port 9931", "http://127.0.0.1:9931"},
	} {
		l, err := NewLaunch(c, &schema.Experiment{ID: "e", Engine: tc.engine, Command: tc.command})
		if err != nil {
			t.Fatal(err)
		}
		if l.BaseURL != tc.base || l.FreePort != strings.Contains(tc.base, "<free port>") {
			t.Errorf("%s: base %q free %v, want %q", tc.command, l.BaseURL, l.FreePort, tc.base)
		}
		if l.FreePort {
			args, base := l.PortArgs(4321)
			if !strings.HasSuffix(base, ":4321") || args[len(args)-1] != "4321" {
				t.Errorf("%s: port args %q base %q", tc.command, args, base)
			}
			if _, host := engine.FlagValue(l.Argv, "--host"); host == (args[0] == "--host") {
				t.Errorf("%s: port args %q (a --host only where the command has none)", tc.command, args)
			}
		}
	}
}

// TestCollectRerunsATruncatedResult: a result cut short after its run (a
// full disk, a killed copy) made perflab build fail, while collect, its
// dry run and --retry listed it as done: the done-check read only the
// head of the file. It is not done: the plan and collect say so, and
// collect runs it again.
func TestCollectRerunsATruncatedResult(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve")
	if _, err := Collect(context.Background(), f, opts(t, dir, pids)); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "fake", "e0--long.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)*2/3], 0o644); err != nil {
		t.Fatal(err)
	}
	var plan bytes.Buffer
	if err := PrintPlan(&plan, f, Options{Results: dir}); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`e0--long .* todo \(not a complete result: .*e0--long\.json:[0-9:]*:? (truncated|malformed) JSON`).MatchString(plan.String()) ||
		!strings.Contains(plan.String(), "1 runs to collect, 1 already done") {
		t.Errorf("plan:\n%s", plan.String())
	}
	for _, retry := range []bool{true, false} {
		if err := os.WriteFile(path, data[:len(data)*2/3], 0o644); err != nil {
			t.Fatal(err)
		}
		var log syncBuf
		o := opts(t, dir, pids)
		o.Log, o.Retry = &log, retry
		rep, err := Collect(context.Background(), f, o)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Ran != 1 || rep.Skipped != 1 {
			t.Errorf("retry %v: report %+v, want the truncated run run again", retry, rep)
		}
		if !strings.Contains(log.String(), "warning: e0--long: "+path+":") || !strings.Contains(log.String(), "JSON: unexpected end of JSON input; not a complete result: it runs again") {
			t.Errorf("retry %v: log does not say why the run is repeated:\n%s", retry, log.String())
		}
		if _, err := schema.ReadFile(path); err != nil {
			t.Errorf("retry %v: %v", retry, err)
		}
	}
}

// TestCollectCrashSaysWhy: a crashed run showed "exited with status 1" on
// the terminal while the reason was only in the engine log, which the
// message did not name. The log's last lines and its path follow.
func TestCollectCrashSaysWhy(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "oom")
	var log syncBuf
	o := opts(t, dir, pids)
	o.Log = &log
	rep, err := Collect(context.Background(), f, o)
	if err != nil {
		t.Fatal(err)
	}
	out := log.String()
	for _, want := range []string{
		"e0--short: crashed: ",
		"  engine log, last lines:\n    ",
		"    torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n",
		"  engine log: " + filepath.Join(dir, "fake", "e0.engine.log") + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if len(rep.Unexpected) != 2 {
		t.Errorf("unexpected crashes: %q", rep.Unexpected)
	}
}

// TestCollectCPUCampaignNoTelemetryCaveat: on a CPU-only machine every
// run carried "no GPU telemetry: libnvidia-ml.so.1 not found". A campaign
// whose hardware is a CPU does not open NVML, and its runs carry no such
// caveat.
func TestCollectCPUCampaignNoTelemetryCaveat(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve")
	f.Campaign.Hardware = schema.HardwareSpec{GPU: "2-core VM", Accelerator: "cpu", Count: 1}
	o := opts(t, dir, pids)
	o.Sampler = nil // what the node has: on a CPU campaign, not asked
	if _, err := Collect(context.Background(), f, o); err != nil {
		t.Fatal(err)
	}
	for name, r := range readResults(t, filepath.Join(dir, "fake")) {
		for _, w := range r.Warnings {
			if strings.Contains(w, "telemetry") || strings.Contains(w, "GPU inventory") {
				t.Errorf("%s: warning %q", name, w)
			}
		}
	}
}
