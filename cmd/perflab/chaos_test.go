package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/perflab/perflab/collect"
	"github.com/perflab/perflab/collect/schema"
)

// The chaos drill runs campaigns of mock engines through `perflab collect`
// while everything that goes wrong on a shared GPU node goes wrong at
// random (from a printed seed): engines that fail to start, crash mid-run,
// hang, stream garbage, stall, answer health checks slowly, or find their
// port taken; the collector killed with SIGKILL and started again; the
// results directory refusing writes (ENOSPC, EIO); two shards writing into
// one directory at once. After every cycle it checks the results
// directory (see drill.check); at the end of a campaign, that the results
// are the plan.
//
// By default (make test) it runs one campaign of 40 runs. PERFLAB_CHAOS=10m
// (make chaos) runs campaigns for that long and prints the figures;
// PERFLAB_CHAOS_SEED=N repeats a drill.

// engineFault is what an experiment's mock engine does wrong.
type engineFault string

const (
	faultNone       engineFault = "none"
	faultFailStart  engineFault = "fail-to-start"
	faultCrash      engineFault = "crash-mid-run"
	faultHang       engineFault = "hang"
	faultGarbage    engineFault = "garbage-stream"
	faultStall      engineFault = "stalled-stream"
	faultSlowHealth engineFault = "slow-health"
	faultPortTaken  engineFault = "port-taken"
)

var engineFaults = []engineFault{faultNone, faultFailStart, faultCrash, faultHang, faultGarbage, faultStall, faultSlowHealth, faultPortTaken}

// drill holds one chaos drill's state and figures.
type drill struct {
	t    *testing.T
	bin  string
	rng  *rand.Rand
	root string // results root of the current campaign
	plan *collect.Plan
	path string // campaign file

	// finished holds each finished result seen, by file: it must stay
	// exactly as first seen (a run recorded twice would change it).
	finished map[string]string
	expFault map[string]engineFault // experiment id → its engine's fault
	port     net.Listener           // the taken port, until released

	// figures
	campaigns, cycles, killCycles, kills, shardCycles, diskCycles, cleanCycles, portCycles int
	diskFaults                                                                             map[string]int
	engineFaultCount                                                                       map[engineFault]int
	checked, lost, rewritten, broken, tempsAfterKill, tempsLeft, orphans                   int
	planted                                                                                int // temporary files left as a killed write leaves them
	statuses                                                                               map[schema.Status]int
}

func TestChaosCollect(t *testing.T) {
	if testing.Short() {
		t.Skip("chaos drill: builds perflab and collects mock campaigns")
	}
	long, _ := time.ParseDuration(os.Getenv("PERFLAB_CHAOS"))
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("PERFLAB_CHAOS_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("PERFLAB_CHAOS_SEED=%q: %v", s, err)
		}
		seed = n
	}
	t.Logf("chaos seed %d (PERFLAB_CHAOS_SEED=%d repeats this drill)", seed, seed)
	d := &drill{t: t, bin: buildPerflab(t), rng: rand.New(rand.NewPCG(seed, 0x5eed)),
		diskFaults: map[string]int{}, engineFaultCount: map[engineFault]int{}, statuses: map[schema.Status]int{}}
	start := time.Now()
	for {
		chaotic := 5 // cycles of a campaign with faults, then plain collects finish it
		if long > 0 {
			chaotic = 12
		}
		d.campaign(40+4*d.rng.IntN(3), chaotic)
		if long <= 0 || time.Since(start) > long {
			break
		}
	}
	t.Logf("chaos drill, seed %d, %v: %d campaigns, %d cycles (%d with a SIGKILL, %d kills; %d two-shard; %d with disk faults; %d clean; %d with a port taken)",
		seed, time.Since(start).Round(time.Second), d.campaigns, d.cycles, d.killCycles, d.kills, d.shardCycles, d.diskCycles, d.cleanCycles, d.portCycles)
	t.Logf("  engine faults (experiments): %s", figures(d.engineFaultCount))
	t.Logf("  disk faults injected: %s", figures(d.diskFaults))
	t.Logf("  results checked %d; final statuses %s", d.checked, figures(d.statuses))
	t.Logf("  lost %d, recorded twice %d, broken files %d, temporary files left %d (%d seen after kills, %d of them half-written files planted as a killed write leaves them, all removed by the next collect), engines outliving their collect %d",
		d.lost, d.rewritten, d.broken, d.tempsLeft, d.tempsAfterKill, d.planted, d.orphans)
}

// figures formats counts as "a 1, b 2" in key order.
func figures[K ~string](m map[K]int) string {
	var keys []string
	for k := range m {
		keys = append(keys, string(k))
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[K(k)]))
	}
	return strings.Join(parts, ", ")
}

// campaign writes a campaign of about runs runs (four profiles per
// experiment, each engine fault at least once) and collects it through
// chaotic cycles (the first chaotic ones) until a plain collect
// finishes it.
func (d *drill) campaign(runs, chaotic int) {
	t := d.t
	d.campaigns++
	dir := t.TempDir()
	d.root = filepath.Join(dir, "results")
	d.finished = map[string]string{}
	d.expFault = map[string]engineFault{}
	var err error
	if d.port, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	takenPort := d.port.Addr().(*net.TCPAddr).Port
	exps := runs / 4
	kinds := append([]engineFault(nil), engineFaults...)
	d.rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	var y strings.Builder
	fmt.Fprintf(&y, `id: chaos
model: {id: chaos/model}
hardware: {gpu: H100 (simulated), count: 1}
bench: {backend: openai, endpoint: /v1/completions, tokenizer: server}
profiles:
  - {id: p1, dataset: random, input_len: 16, output_len: 4, num_prompts: 4, max_concurrency: 1, seed: 1, args: [--ignore-eos]}
  - {id: p2, dataset: random, input_len: 24, output_len: 3, num_prompts: 3, max_concurrency: 1, seed: 2, args: [--ignore-eos]}
  - {id: p3, dataset: random, input_len: 8, output_len: 5, num_prompts: 4, max_concurrency: 2, seed: 3, args: [--ignore-eos]}
  - {id: p4, dataset: random, input_len: 32, output_len: 2, num_prompts: 2, max_concurrency: 1, seed: 4, args: [--ignore-eos]}
steps:
  - id: engine
    title: Engines
    experiments:
`)
	for i := range exps {
		kind := faultNone
		if i < len(kinds) {
			kind = kinds[i]
		} else {
			kind = engineFaults[d.rng.IntN(len(engineFaults))]
		}
		if kind == faultPortTaken && i >= len(kinds) {
			kind = faultNone // one taken port per campaign
		}
		id := fmt.Sprintf("e%02d", i)
		d.expFault[id] = kind
		d.engineFaultCount[kind]++
		// About a quarter of a second a run: a kill lands mid-campaign.
		cmd := "perflab mock --model chaos/model --ttft 20ms --itl 10ms"
		switch kind {
		case faultFailStart:
			cmd += " --no-such-flag"
		case faultCrash:
			cmd += " --crash-after " + strconv.Itoa(2+d.rng.IntN(10))
		case faultHang:
			cmd += " --startup-delay 1h"
		case faultGarbage:
			cmd += " --garbage-rate 0.5"
		case faultStall:
			cmd += " --stall-rate 0.5 --stall 200ms"
		case faultSlowHealth:
			cmd += " --startup-delay 1s"
		case faultPortTaken:
			cmd += " --port " + strconv.Itoa(takenPort)
		}
		// An engine that never starts (or never gets healthy) crashes
		// every run: the campaign says it expects that, so collect's exit
		// status stays 0 for it (collectClean).
		expect := ""
		if kind == faultFailStart || kind == faultHang {
			expect = ", expect: crashed"
		}
		fmt.Fprintf(&y, "      - {id: %s, engine: mock, command: %s%s}\n", id, cmd, expect)
	}
	y.WriteString("baseline: e00\noptimized: e01\n")
	d.path = filepath.Join(dir, "campaign.yaml")
	if err := os.WriteFile(d.path, []byte(y.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := collect.Load(d.path)
	if err != nil {
		t.Fatal(err)
	}
	d.plan = collect.NewPlan(&f.Campaign, d.root)
	if n := len(d.plan.Runs); n < 40 {
		t.Fatalf("the drill's campaign has %d runs", n)
	}
	release := 1 + d.rng.IntN(3) // the taken port is freed after this many cycles
	// The first cycles once the port is free are one of each kind of
	// chaos, in random order and with the shards killed, so that even the
	// short drill has them all; the others come at random.
	first := []float64{0.2, 0.5, 0.75}
	d.rng.Shuffle(len(first), func(i, j int) { first[i], first[j] = first[j], first[i] })
	for cycle := 0; ; cycle++ {
		if cycle == release {
			d.port.Close()
			d.port = nil
		}
		if d.port != nil {
			d.portCycles++
		}
		d.cycles++
		forced := cycle >= release && cycle-release < len(first)
		chaos := cycle < chaotic || forced
		var killed, done bool
		kind := "clean"
		before := len(d.finished)
		r := d.rng.Float64()
		if forced {
			r = first[cycle-release]
		}
		switch {
		case chaos && r < 0.4:
			kind = "kill"
			killed = d.collectProcs(1, true)
		case chaos && r < 0.65:
			kind = "two shards"
			d.shardCycles++
			killed = d.collectProcs(2, forced || d.rng.IntN(2) == 0)
		case chaos && r < 0.85:
			kind = "disk faults"
			d.diskCycles++
			d.collectFaultyDisk()
		default:
			d.cleanCycles++
			done = d.collectClean()
		}
		if killed {
			d.killCycles++
			// A SIGKILL seldom lands inside a result's write; when it
			// does, the write's temporary file is left, half-written.
			// Leave one as it would, for a run not yet finished: the
			// next collect of its shard must remove it.
			if d.rng.IntN(2) == 0 {
				d.plantLeftover()
			}
		}
		d.check(killed)
		t.Logf("campaign %d cycle %d (%s, port taken %v, killed %v): %d finished runs, %d new", d.campaigns, cycle, kind, d.port != nil, killed, len(d.finished), len(d.finished)-before)
		if done {
			break
		}
		if cycle > 40 {
			t.Fatalf("campaign not done after %d cycles", cycle)
		}
	}
	if d.port != nil {
		d.port.Close()
	}
	d.final()
}

// plantLeftover writes the half-written temporary file of a run that has
// no finished result, as a collect killed while writing it leaves.
func (d *drill) plantLeftover() {
	var open []collect.Run
	for _, r := range d.plan.Runs {
		if _, ok := d.finished[r.Path]; !ok {
			open = append(open, r)
		}
	}
	if len(open) == 0 {
		return
	}
	r := open[d.rng.IntN(len(open))]
	if err := os.MkdirAll(filepath.Dir(r.Path), 0o755); err != nil {
		d.t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(r.Path), strings.Replace(schema.TempPattern(r.Path), "*", strconv.Itoa(d.rng.IntN(1e9)), 1))
	if err := os.WriteFile(tmp, []byte(`{"schema_version": 2, "id": "`+r.Key+`", "status": "o`), 0o600); err != nil {
		d.t.Fatal(err)
	}
	d.planted++
}

// collectProcs runs n `perflab collect` processes (n = 2: the two shards
// of the campaign) into the same results directory and, if kill, kills
// each with SIGKILL at a random moment. It reports whether one was killed.
func (d *drill) collectProcs(n int, kill bool) bool {
	by := []string{"experiment", "run"}[d.rng.IntN(2)]
	var wg sync.WaitGroup
	killed := false
	var mu sync.Mutex
	for i := range n {
		args := d.args()
		if n > 1 {
			args = append(args, "--shard", fmt.Sprintf("%d/%d", i, n), "--shard-by", by)
		}
		cmd := exec.Command(d.bin, args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			d.t.Fatal(err)
		}
		after := time.Duration(200+d.rng.IntN(4000)) * time.Millisecond
		wg.Add(1)
		go func() {
			defer wg.Done()
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			var timer <-chan time.Time
			if kill {
				timer = time.After(after)
			}
			select {
			case <-exited:
			case <-timer:
				if cmd.Process.Signal(syscall.SIGKILL) == nil {
					mu.Lock()
					killed = true
					d.kills++
					mu.Unlock()
				}
				<-exited
			case <-time.After(3 * time.Minute):
				cmd.Process.Kill()
				<-exited
				d.t.Errorf("collect still running after 3 minutes:\n%s", out.String())
			}
		}()
	}
	wg.Wait()
	return killed
}

func (d *drill) args() []string {
	return []string{"collect", d.path, "--results", d.root, "--health-timeout", "5s", "--stop-grace", "1s"}
}

// collectClean runs one plain collect to its end; it reports whether the
// campaign is done (the collect exits 0).
func (d *drill) collectClean() bool {
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.bin, d.args()...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil && d.unexpectedOnly(out.String()) {
		// Exit status 1 for runs that crashed or failed where the campaign
		// does not expect it: only engines whose fault may or may not end a
		// run (a crash after N requests, a garbage or stalled stream) may be
		// listed; the campaign is done.
		return true
	}
	if err != nil && d.port == nil {
		d.t.Errorf("a plain collect with nothing in its way: %v\n%s", err, out.String())
	}
	return err == nil
}

// unexpectedOnly reports whether out is a collect that finished and exited
// 1 only for runs it did not expect to crash or fail, every one of them of
// an experiment whose engine fault can end a run that way; a run of
// another listed there is a test error.
func (d *drill) unexpectedOnly(out string) bool {
	const head = "that the campaign does not expect"
	i := strings.Index(out, head)
	if i < 0 {
		return false
	}
	lines := strings.Split(out[i:], "\n")[1:]
	n := 0
	for _, l := range lines {
		if !strings.HasPrefix(l, "  ") {
			break
		}
		run, _, _ := strings.Cut(strings.TrimSpace(l), ":")
		exp, _, _ := strings.Cut(run, "--")
		switch d.expFault[exp] {
		case faultCrash, faultGarbage, faultStall:
			n++
		default:
			d.t.Errorf("collect calls %s unexpected, but its engine's fault is %q", run, d.expFault[exp])
		}
	}
	return n > 0
}

// collectFaultyDisk runs the collect in this process with a results
// directory that refuses some writes: each temporary file may fail on
// creation, part-way through its write, or on its sync, with ENOSPC or EIO.
func (d *drill) collectFaultyDisk() {
	f, err := collect.Load(d.path)
	if err != nil {
		d.t.Fatal(err)
	}
	var mu sync.Mutex
	p := 0.3 + 0.4*d.rng.Float64()
	frng := rand.New(rand.NewPCG(d.rng.Uint64(), 1))
	storage := func(dir, pattern string) (schema.TempFile, error) {
		mu.Lock()
		defer mu.Unlock()
		if frng.Float64() >= p {
			return os.CreateTemp(dir, pattern)
		}
		errno := []syscall.Errno{syscall.ENOSPC, syscall.EIO}[frng.IntN(2)]
		where := []string{"create", "write", "sync"}[frng.IntN(3)]
		d.diskFaults[errno.Error()+" on "+where]++
		if where == "create" {
			return nil, &os.PathError{Op: "open", Path: filepath.Join(dir, pattern), Err: errno}
		}
		fl, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		return &faultyTemp{File: fl, where: where, errno: errno, at: frng.IntN(200)}, nil
	}
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	_, err = collect.Collect(ctx, f, collect.Options{Results: d.root, Self: d.bin, HealthTimeout: 5 * time.Second,
		StopGrace: time.Second, Storage: storage, Log: &log})
	if err != nil && !errors.Is(err, syscall.ENOSPC) && !errors.Is(err, syscall.EIO) && !errors.Is(err, collect.ErrPortInUse) {
		d.t.Errorf("collect on a failing disk: %v\n%s", err, log.String())
	}
}

// faultyTemp fails its write after at bytes, or its sync, with errno.
type faultyTemp struct {
	*os.File
	where string
	errno syscall.Errno
	at    int
}

func (f *faultyTemp) Write(b []byte) (int, error) {
	if f.where == "write" && len(b) > f.at {
		n, _ := f.File.Write(b[:f.at])
		return n, &os.PathError{Op: "write", Path: f.Name(), Err: f.errno}
	}
	return f.File.Write(b)
}

func (f *faultyTemp) Sync() error {
	if f.where == "sync" {
		return &os.PathError{Op: "sync", Path: f.Name(), Err: f.errno}
	}
	return f.File.Sync()
}

// check looks at the results directory after a cycle: every result file
// parses, is the result of the run its name says, and is complete; a
// finished result stays as it was first seen (never lost, never recorded
// twice); a finished run that is not ok says why; no temporary file is
// left unless a collect was killed; no engine outlives its collect.
func (d *drill) check(killed bool) {
	t := d.t
	byPath := map[string]collect.Run{}
	for _, r := range d.plan.Runs {
		byPath[r.Path] = r
	}
	ents, err := os.ReadDir(d.plan.Dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	present := map[string]bool{}
	temps := 0
	for _, e := range ents {
		name := e.Name()
		p := filepath.Join(d.plan.Dir, name)
		switch {
		case strings.Contains(name, ".tmp-"):
			temps++
			continue
		case strings.HasSuffix(name, ".engine.log"):
			continue
		case !strings.HasSuffix(name, ".json"):
			t.Errorf("unexpected file %s", name)
			continue
		}
		d.checked++
		run, ok := byPath[p]
		if !ok {
			t.Errorf("%s: a result no run of the plan writes", name)
			continue
		}
		res, err := schema.ReadFile(p)
		if err != nil {
			d.broken++
			t.Errorf("result does not parse: %v", err)
			continue
		}
		if msg := incomplete(res, run); msg != "" {
			d.broken++
			t.Errorf("%s: %s", name, msg)
			continue
		}
		present[p] = true
		fp := fmt.Sprintf("%s %s %s %s %s", res.ID, res.Status, res.Start, res.End, res.Error)
		if prev, ok := d.finished[p]; ok && prev != fp {
			d.rewritten++
			t.Errorf("%s: a finished result was recorded again:\n  was %s\n  now %s", name, prev, fp)
		}
		switch res.Status {
		case schema.StatusOK, schema.StatusFailed, schema.StatusCrashed:
			if _, ok := d.finished[p]; !ok {
				d.finished[p] = fp
			}
		}
	}
	for p := range d.finished {
		if !present[p] {
			d.lost++
			t.Errorf("%s: a finished result is gone", filepath.Base(p))
		}
	}
	if killed {
		d.tempsAfterKill += temps
	} else if temps > 0 {
		d.tempsLeft += temps
		t.Errorf("%d temporary files left after a cycle no collect was killed in", temps)
	}
	// Engines die with their collect (SIGKILL included: Pdeathsig); the
	// kernel may take a moment to deliver it.
	deadline := time.Now().Add(5 * time.Second)
	for {
		var engines []string
		for _, c := range children(d.bin) {
			if strings.Contains(c, " mock ") {
				engines = append(engines, c)
			}
		}
		if len(engines) == 0 {
			break
		}
		if time.Now().After(deadline) {
			d.orphans += len(engines)
			t.Errorf("engines outlived their collect: %q", engines)
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// incomplete says what a result lacks, "" when it is complete: its
// identity, its status, times, a reason when it is not ok, and for an ok
// run a summary of every request.
func incomplete(res *schema.Result, run collect.Run) string {
	switch {
	case res.ID != run.Key:
		return fmt.Sprintf("id %s, the run's key is %s", res.ID, run.Key)
	case res.Experiment != run.Experiment.ID || res.Profile != run.Profile.ID || res.Campaign != "chaos":
		return fmt.Sprintf("names %s/%s/%s", res.Campaign, res.Experiment, res.Profile)
	case res.Start == "" || res.End == "":
		return "no start or end time"
	}
	switch res.Status {
	case schema.StatusOK:
		if res.Summary == nil || res.Summary.Completed+res.Summary.Failed != run.Profile.NumPrompts {
			return fmt.Sprintf("ok without a summary of its %d requests", run.Profile.NumPrompts)
		}
	case schema.StatusFailed, schema.StatusCrashed, schema.StatusInterrupted:
		if strings.TrimSpace(res.Error) == "" {
			return fmt.Sprintf("%s without a reason", res.Status)
		}
	default:
		return fmt.Sprintf("status %q", res.Status)
	}
	return ""
}

// final checks a finished campaign: its results are its plan, each
// finished with its reason, as its engine's fault allows, and another
// collect finds nothing to do.
func (d *drill) final() {
	t := d.t
	for _, r := range d.plan.Runs {
		res, err := schema.ReadFile(r.Path)
		if err != nil {
			d.lost++
			t.Errorf("run %s: %v", r.Name, err)
			continue
		}
		d.statuses[res.Status]++
		fault := d.expFault[r.Experiment.ID]
		switch {
		case res.Status != schema.StatusOK && res.Status != schema.StatusFailed && res.Status != schema.StatusCrashed:
			t.Errorf("run %s ends %s", r.Name, res.Status)
		case (fault == faultNone || fault == faultSlowHealth || fault == faultPortTaken) && res.Status != schema.StatusOK:
			t.Errorf("run %s (engine fault %s) ends %s: %s", r.Name, fault, res.Status, res.Error)
		case fault == faultFailStart && (res.Status != schema.StatusCrashed || !strings.Contains(res.Error, "exited")):
			t.Errorf("run %s (engine fails to start) ends %s: %s", r.Name, res.Status, res.Error)
		case fault == faultHang && (res.Status != schema.StatusCrashed || !strings.Contains(res.Error, "healthy")):
			t.Errorf("run %s (engine hangs) ends %s: %s", r.Name, res.Status, res.Error)
		}
	}
	out, err := exec.Command(d.bin, d.args()...).CombinedOutput()
	want := fmt.Sprintf("%d runs: %d done before, 0 run now", len(d.plan.Runs), len(d.plan.Runs))
	if err != nil || !strings.Contains(string(out), want) {
		t.Errorf("collect after the campaign is done: %v, want %q in\n%s", err, want, out)
	}
}
