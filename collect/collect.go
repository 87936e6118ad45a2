package collect

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/perflab/perflab/collect/bench"
	"github.com/perflab/perflab/collect/benchrun"
	"github.com/perflab/perflab/collect/engine"
	"github.com/perflab/perflab/collect/redact"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/telemetry"
)

// Target is what a Runner benchmarks: one run against a healthy engine.
type Target struct {
	Run      Run
	Campaign *schema.Campaign
	// BaseURL is the engine's root URL; Model the served model name to
	// request (from /v1/models, else the campaign's model id).
	BaseURL string
	Model   string
	// TokenizeRoute is the engine's tokenizer route, "" when it has none.
	TokenizeRoute string
	// DatasetPath is the profile's dataset file, found (see Preflight).
	DatasetPath string
	// APIKey is sent as "Authorization: Bearer KEY" ("" : none).
	APIKey string
	// Measure starts the GPU telemetry of the run and returns the function
	// that stops it: a runner calls it around the benchmark itself, so
	// that samples and energy leave out the preparation. A runner that
	// never calls it gets no telemetry. Never nil.
	Measure func() (stop func())
	// Progress receives live progress lines (nil: quiet).
	Progress io.Writer
}

// Runner benchmarks one run (BenchRunner by default; tests pass their own). It returns the result with at least Status,
// Summary, Requests, Load and Tool; the collector fills in the campaign,
// engine, model, hardware and telemetry. An error means no result could
// be measured; requests that fail are data in the result.
type Runner func(ctx context.Context, t Target) (*schema.Result, error)

// Options configure Collect. The zero value runs every run of the
// campaign with perflab bench, writes below results/ and is quiet.
type Options struct {
	// Results is the results root (default "results"); the campaign's
	// files go to Results/<campaign.results or id>/.
	Results string
	// Force repeats runs that already have a finished result.
	Force bool
	// Retry repeats runs whose result says crashed or failed (after a
	// fix: more memory, a new engine build), keeping the ok ones.
	Retry bool
	// Only restricts the runs to these experiment ids, step ids or run
	// names (experiment--profile); empty means every run.
	Only []string
	// Shard and Shards select shard Shard (0-based) of Shards; Shards ≤ 1
	// runs everything. ShardByRun spreads single runs instead of whole
	// experiments (see Plan.Shard).
	Shard, Shards int
	ShardByRun    bool
	// Runner measures a run (default: BenchRunner, perflab bench).
	Runner Runner
	// Sampler reads the GPUs (nil: telemetry.Open; unavailable GPUs are a
	// warning in every result).
	Sampler telemetry.Sampler
	// SampleInterval is the GPU sampling period (default 1 s).
	SampleInterval time.Duration
	// Self is the perflab binary that `engine: mock` experiments launch
	// (default: this executable).
	Self string
	// HealthTimeout bounds an engine's start (default 10 min); StopGrace
	// is how long it gets to exit after SIGINT before SIGKILL (default
	// 30 s); ReleaseTimeout bounds the wait for its GPU memory to be
	// released (default 2 min).
	HealthTimeout  time.Duration
	StopGrace      time.Duration
	ReleaseTimeout time.Duration
	// Log receives one line per run and engine event (nil: discarded).
	Log io.Writer
	// Live receives the live progress view, redrawn in place (nil: none;
	// set it only when stderr is a terminal).
	Live io.Writer
	// Hurry, when closed, kills the running engine at once instead of
	// waiting for its graceful stop (the CLI closes it on a second Ctrl-C).
	Hurry <-chan struct{}
	// NoEarlyStop runs every point of a sweep, and the points an earlier
	// collect skipped (see EarlyStop).
	NoEarlyStop bool
	// Round is the round to run in, joined when it exists and started
	// when not (every shard of one scheduled run passes the same id);
	// NewRound starts a new round named by the date. Neither: the
	// campaign's rounds: policy, else the latest round (see RoundID).
	Round    string
	NewRound bool
	// Now is the clock (default time.Now), for tests.
	Now func() time.Time
	// LookupEnv reads the environment (default os.LookupEnv), for tests:
	// the rounds: policy names the round by the scheduler run that
	// started the collect when there is one (SchedulerRound).
	LookupEnv func(string) (string, bool)
	// Storage creates the temporary files results are written through
	// (nil: the operating system's); the chaos drill injects a full or
	// failing disk (ENOSPC, EIO) through it.
	Storage schema.Storage
}

// Report says what a Collect did.
type Report struct {
	// Planned is the number of runs in this shard; Skipped those that
	// already had a finished result; Ran those run now.
	Planned, Skipped, Ran int
	// Status counts the runs run now by their status.
	Status map[schema.Status]int
	// Unexpected lists the runs run now that crashed or failed although
	// their experiment does not expect it (schema.Experiment.Expect), one
	// line each: what perflab collect's exit status reports.
	Unexpected []string
	// Round is the round the runs went to (schema.FirstRound: the
	// campaign's results directory itself).
	Round string
	// Elapsed is the wall time of Collect.
	Elapsed time.Duration
}

// ErrPortInUse stops a campaign whose engine's port is taken before the
// engine starts.
var ErrPortInUse = errors.New("port in use")

// ErrInterrupted is returned (wrapped) when ctx ended before every run
// finished; what finished is kept, the run in flight is recorded as
// interrupted, and the next Collect resumes.
var ErrInterrupted = errors.New("interrupted")

// finished reports whether a result need not be run again.
func finished(s schema.Status) bool {
	switch s {
	case schema.StatusOK, schema.StatusFailed, schema.StatusCrashed, schema.StatusUnsupported, schema.StatusSkipped:
		return true
	}
	return false
}

// Existing reads the result at r.Path and says whether it counts as
// done: a finished run of the same definition (same key), or a finished
// run imported from another tool (perflab import: the seeds' published
// numbers), which only --force measures again. The whole file is parsed,
// as perflab build parses it: a result cut short after its run (a full
// disk, a killed copy) is not done, and err says why (no file: nil).
// Reading only the head of the file listed such a result as done, and
// build then failed on it.
func Existing(r Run) (res *schema.Result, done bool, err error) {
	if _, err := os.Stat(r.Path); errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	data, err := os.ReadFile(r.Path)
	if err != nil {
		return nil, false, err
	}
	// The syntax of the whole file is checked, not decoded (BenchmarkExisting,
	// 4 MB of requests: 35–70 ms against 130 ms for schema.ReadFile on a
	// loaded 2-core machine): a cut-short file fails here, and
	// schema.Unmarshal says where.
	if !jsontext.Value(data).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
		if _, err := schema.Unmarshal(r.Path, data); err != nil {
			return nil, false, err
		}
		return nil, false, fmt.Errorf("%s: malformed JSON", r.Path)
	}
	res, err = readHead(r.Path, data)
	if err != nil {
		return nil, false, err
	}
	return res, finished(res.Status) && (res.ID == r.Key || Imported(res)), nil
}

// readHead reads the identity of a result (schema version, id, status,
// tool) from the head of its file's data: the fields come first
// (schema.Marshal keeps declaration order), so the per-request records,
// which hold every token's time and can run to megabytes, are never
// decoded (Existing only checks that they are well-formed).
func readHead(path string, data []byte) (*schema.Result, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("%s: not a JSON object", path)
	}
	res := &schema.Result{}
	seen := 0
	for seen < 4 && dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var dst any
		switch t {
		case "schema_version":
			dst = &res.SchemaVersion
		case "id":
			dst = &res.ID
		case "status":
			dst = &res.Status
		case "tool":
			dst = &res.Tool
		case "summary", "requests":
			seen = 4 // past the head: what is missing stays empty
			continue
		default:
			var skip json.RawMessage
			dst = &skip
			seen-- // not one of the four
		}
		if err := dec.Decode(dst); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		seen++
	}
	if res.SchemaVersion < 1 || res.SchemaVersion > schema.Version {
		return nil, fmt.Errorf("%s: schema version %d", path, res.SchemaVersion)
	}
	return res, nil
}

// removeLeftovers deletes the temporary files a collect killed while
// writing (SIGKILL, a lost node) left beside these runs' results. Each
// run belongs to one shard, so shards sharing the directory never remove
// each other's files in flight.
func removeLeftovers(runs []Run) {
	byDir := map[string]map[string]bool{} // directory → temporary-name prefixes
	for _, r := range runs {
		dir := filepath.Dir(r.Path)
		if byDir[dir] == nil {
			byDir[dir] = map[string]bool{}
		}
		byDir[dir][strings.TrimSuffix(schema.TempPattern(r.Path), "*")] = true
	}
	for dir, prefixes := range byDir {
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range ents {
			name := e.Name()
			if i := strings.Index(name, ".tmp-"); i > 0 && prefixes[name[:i+len(".tmp-")]] {
				os.Remove(filepath.Join(dir, name))
			}
		}
	}
}

// Imported reports whether a result came from perflab import rather than
// from a collect run.
func Imported(res *schema.Result) bool {
	return res.Tool.Name != "" && res.Tool.Name != ToolPerflab
}

// collector is one Collect call's state.
type collector struct {
	f          *File
	c          *schema.Campaign
	plan       *Plan
	opt        Options
	sampler    telemetry.Sampler
	ownSampler bool
	hw         *schema.Hardware
	telWarn    string
	client     *http.Client
	report     *Report
	progress   *progress
	datasets   map[string]string // profile id → dataset file (Preflight)
}

// Collect runs the campaign's runs (this shard's, minus the finished
// ones unless Force) and writes one result file per run. It returns an
// error wrapping ErrInterrupted when ctx ends first.
func Collect(ctx context.Context, f *File, opt Options) (*Report, error) {
	start := time.Now()
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if err := f.CheckEnv(nil); err != nil {
		return nil, err
	}
	if opt.Results == "" {
		opt.Results = "results"
	}
	if opt.Runner == nil {
		opt.Runner = (&BenchRunner{}).Run
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if opt.Self == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("collect: find perflab for mock engines: %w", err)
		}
		opt.Self = exe
	}
	// The collector's own requests (health, version, model) must not hold
	// idle keep-alive connections: servers with a small pool of HTTP
	// threads (llama-server) would spend them on us instead of the
	// benchmark.
	probe := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	k := &collector{f: f, c: &f.Campaign, opt: opt, client: probe,
		report: &Report{Status: map[schema.Status]int{}}}
	k.plan = NewPlan(k.c, opt.Results)

	runs, err := selectRuns(k.plan, opt)
	if err != nil {
		return nil, err
	}
	startRound, err := planRound(ctx, f, k.plan, opt, opt.Now())
	if err != nil {
		return nil, err
	}
	runs, _ = selectRuns(k.plan, opt) // the same runs, in the round's directory
	k.report.Round = k.plan.Round
	k.report.Planned = len(runs)
	removeLeftovers(runs)
	var todo []Run
	var unreadable, redefined []string
	for _, r := range runs {
		if !opt.Force {
			res, ok, err := Existing(r)
			if err != nil {
				unreadable = append(unreadable, fmt.Sprintf("%s: %v", r.Name, err))
			}
			if ok && !(opt.Retry && (res.Status == schema.StatusCrashed || res.Status == schema.StatusFailed)) &&
				!(opt.NoEarlyStop && res.Status == schema.StatusSkipped) {
				k.report.Skipped++
				continue
			}
			if !ok && res != nil && finished(res.Status) && res.ID != r.Key {
				redefined = append(redefined, r.Name)
			}
		}
		todo = append(todo, r)
	}
	for _, w := range f.Warnings() {
		fmt.Fprintln(opt.Log, "warning:", w)
	}
	for _, u := range unreadable {
		fmt.Fprintf(opt.Log, "warning: %s; not a complete result: it runs again\n", u)
	}
	if len(redefined) > 0 {
		// A round that finished these runs is changed by the campaign's
		// edit: say so, and how to keep it (a new round).
		fmt.Fprintf(opt.Log, "warning: round %s: %d finished result(s) of an older definition of their run (the campaign changed since) are run again and replaced: %s (collect --new-round keeps a round as it ran and measures the new definitions in a round of their own)\n",
			k.plan.Round, len(redefined), strings.Join(redefined, ", "))
	}
	fmt.Fprintf(opt.Log, "collect %s: %d runs in this shard, %d finished before, %d to run\n", k.c.ID, len(runs), k.report.Skipped, len(todo))
	if len(todo) == 0 {
		k.report.Elapsed = time.Since(start)
		return k.report, nil
	}

	datasets, err := Preflight(f, todo)
	if err != nil {
		return nil, err
	}

	k.datasets = datasets
	defer k.closeTelemetry()
	if err := k.openTelemetry(todo); err != nil {
		return nil, err
	}
	if err := startRound(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(k.plan.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	k.progress = newProgress(opt.Live, len(todo))
	defer k.progress.close()
	k.opt.Log = k.progress.logWriter(k.opt.Log)

	// Group consecutive runs by experiment: one engine launch serves them.
	for i := 0; i < len(todo); {
		j := i
		for j < len(todo) && todo[j].Experiment == todo[i].Experiment {
			j++
		}
		if err := k.experiment(ctx, todo[i:j]); err != nil {
			k.report.Elapsed = time.Since(start)
			return k.report, err
		}
		i = j
	}
	k.report.Elapsed = time.Since(start)
	return k.report, nil
}

// openTelemetry opens the sampler and checks that the node has the GPUs
// the runs need.
func (k *collector) openTelemetry(runs []Run) error {
	gpuRuns := false // does any run use the node's GPUs?
	for _, r := range runs {
		if l, err := NewLaunch(k.c, r.Experiment); err == nil && needsGPUs(l) {
			gpuRuns = true
		}
	}
	s := k.opt.Sampler
	if s == nil && !k.c.Hardware.NVML() {
		// A CPU, NPU or AMD campaign: NVML has nothing to read, and its
		// absence is no caveat of every run.
		return nil
	}
	if s == nil {
		var err error
		s, err = telemetry.Open()
		if err != nil {
			k.telWarn = "no GPU telemetry: " + err.Error()
			if gpuRuns { // a mock or CPU campaign does not need to hear it
				fmt.Fprintln(k.opt.Log, "warning:", k.telWarn)
			}
		} else {
			k.ownSampler = true
		}
	}
	if s == nil {
		return nil
	}
	hw, err := s.Inventory()
	if err != nil {
		k.telWarn = "no GPU inventory: " + err.Error()
		fmt.Fprintln(k.opt.Log, "warning:", k.telWarn)
		if k.ownSampler {
			s.Close()
			k.ownSampler = false
		}
		return nil
	}
	k.sampler, k.hw = s, hw
	if host, err := os.Hostname(); err == nil && hw.Host == "" {
		hw.Host = host
	}
	for _, r := range runs {
		l, err := NewLaunch(k.c, r.Experiment)
		if err != nil {
			return err
		}
		if !needsGPUs(l) {
			continue
		}
		if l.GPUs > hw.GPUCount {
			return fmt.Errorf("%s:%d: steps: experiment %s needs %d GPUs but this node has %d", k.f.Path,
				k.f.Line(expPath(k.c, r.Experiment.ID)...), r.Experiment.ID, l.GPUs, hw.GPUCount)
		}
		if visible, vis, known := k.visibleGPUs(l); known && l.GPUs > len(visible) {
			return fmt.Errorf("%s:%d: steps: experiment %s needs %d GPUs but CUDA_VISIBLE_DEVICES=%q leaves it %d of this node's %d", k.f.Path,
				k.f.Line(expPath(k.c, r.Experiment.ID)...), r.Experiment.ID, l.GPUs, vis, len(visible), hw.GPUCount)
		}
	}
	return nil
}

// closeTelemetry closes the sampler Collect opened itself (a caller's
// sampler is the caller's to close).
func (k *collector) closeTelemetry() {
	if k.ownSampler && k.sampler != nil {
		k.sampler.Close()
	}
}

// needsGPUs says whether an experiment's engine runs on the node's GPUs:
// a GPU engine given GPUs (llama.cpp too, which offloads to them; a CPU
// llama.cpp campaign says hardware count 0), never an external endpoint,
// and a mock only when its experiment names gpus: (Launch.MockOnGPUs).
func needsGPUs(l *Launch) bool {
	switch l.Adapter.Name {
	case "vllm", "sglang", "trtllm", "llamacpp":
		return l.GPUs > 0
	case "mock":
		return l.MockOnGPUs
	}
	return false
}

// expPath returns the YAML path of an experiment.
func expPath(c *schema.Campaign, id string) []any {
	for si := range c.Steps {
		for ei := range c.Steps[si].Experiments {
			if c.Steps[si].Experiments[ei].ID == id {
				return at("steps", si, "experiments", ei, "id")
			}
		}
	}
	return nil
}

// engineRun is one launch of an experiment's engine.
type engineRun struct {
	launch  *Launch
	argv    []string // what runs (mock: this binary, with a port)
	baseURL string
	proc    *engine.Process // nil for external endpoints
	version string
	model   string
	logRel  string            // the log, relative to the results directory
	before  map[int]float64   // the engine's GPUs' memory before it started
	gpus    telemetry.Sampler // reads the engine's GPUs; nil: no GPU engine or no telemetry
	// warnings go into every result of this launch.
	warnings []string
	// client probes the engine (health, version, model), with its API key.
	client *http.Client
	red    *redact.Redactor
}

// experiment runs one experiment's runs: launch, every profile, stop. It
// returns an error only when ctx ended (the campaign stops) or a result
// cannot be written.
func (k *collector) experiment(ctx context.Context, runs []Run) error {
	e := runs[0].Experiment
	l, err := NewLaunch(k.c, e)
	if err != nil {
		return err
	}
	var er *engineRun
	defer func() {
		if er != nil {
			k.stop(ctx, er)
		}
	}()
	stops := map[string]string{} // early-stop verdicts by point
	for _, r := range runs {
		if ctx.Err() != nil {
			return k.interrupted(ctx)
		}
		if !k.opt.NoEarlyStop {
			// Decided once per point: its repeats share the verdict.
			why, seen := stops[r.pointName()]
			if !seen {
				why = EarlyStop(k.plan, r)
				stops[r.pointName()] = why
			}
			if why != "" {
				skip := er
				if skip == nil {
					skip = &engineRun{launch: l, baseURL: l.BaseURL, red: redact.New()}
				}
				if err := k.write(r, k.base(r, skip, schema.StatusSkipped, why, k.opt.Now()), skip.red); err != nil {
					return err
				}
				continue
			}
		}
		if er == nil || er.proc != nil && er.proc.ExitError() != nil {
			if er != nil {
				k.stop(ctx, er)
				er = nil
			}
			var lerr error
			er, lerr = k.start(ctx, l, r)
			if lerr != nil {
				if ctx.Err() != nil {
					// Interrupted while the engine started: the run in
					// flight is marked, and repeated on resume.
					res := k.base(r, er, schema.StatusInterrupted, "interrupted by the user while the engine started; collect"+k.roundArg()+" again to resume", k.opt.Now())
					if err := k.write(r, res, er.red); err != nil {
						return err
					}
					return k.interrupted(ctx)
				}
				if errors.Is(lerr, ErrPortInUse) {
					return lerr // the node's problem, not the experiment's
				}
				// Never healthy: every remaining run of the experiment is a crash.
				for _, rr := range runs[indexOf(runs, r):] {
					if err := k.write(rr, k.crashed(rr, l, er, lerr), er.red); err != nil {
						return err
					}
				}
				return nil
			}
		}
		if err := k.run(ctx, r, er); err != nil {
			return err
		}
	}
	return nil
}

func indexOf(runs []Run, r Run) int {
	for i := range runs {
		if runs[i].Index == r.Index {
			return i
		}
	}
	return 0
}

// start launches the experiment's engine and waits until it is healthy.
// On failure the returned engineRun (possibly without a process) still
// carries the log for the crash record.
func (k *collector) start(ctx context.Context, l *Launch, r Run) (*engineRun, error) {
	e := r.Experiment
	// Secrets come from the experiment's env and from the collector's own
	// (HF_TOKEN is usually exported, not written in the campaign): an
	// engine may print either in its log, and its own arguments too.
	secrets := append(redact.SecretValues(l.Env), redact.SecretValues(environ())...)
	secrets = append(secrets, redact.ArgValues(l.Argv)...)
	secrets = append(secrets, redact.URLValues(l.BaseURL)...) // an external endpoint's password
	er := &engineRun{launch: l, baseURL: l.BaseURL, red: redact.New(secrets...),
		client: &http.Client{Timeout: k.client.Timeout, Transport: withKey(k.client.Transport, l.APIKey())}}
	k.progress.begin(r, "starting "+l.Adapter.Display)
	if l.Adapter.Launches {
		er.argv = append([]string(nil), l.Argv...)
		if l.Adapter.Name == "mock" && er.argv[0] == "perflab" {
			er.argv[0] = k.opt.Self
		}
		if l.FreePort {
			port, err := engine.FreePort()
			if err != nil {
				return er, err
			}
			args, base := l.PortArgs(port)
			er.argv = append(er.argv, args...)
			er.baseURL = base
		}
		// Something already answering on the engine's port would pass the
		// health check in place of the engine: a stale server from an
		// earlier run, say. Refuse rather than measure the wrong server.
		if u, err := url.Parse(er.baseURL); err == nil {
			if c, err := net.DialTimeout("tcp", u.Host, 500*time.Millisecond); err == nil {
				c.Close()
				return er, fmt.Errorf("%s: %w: %s already answers before the engine starts; stop that server or give the command another --port", e.ID, ErrPortInUse, u.Host)
			}
		}
		if k.sampler != nil && needsGPUs(l) {
			er.gpus = telemetry.Only(k.sampler, k.engineGPUs(l))
			if m, err := telemetry.MemoryUsed(er.gpus); err == nil {
				er.before = m
			}
		}
		er.logRel = e.ID + ".engine.log"
		if k.opt.Shards > 1 && k.opt.ShardByRun {
			// Shards split by run may launch the same experiment at once on
			// several nodes: each keeps its own log on the shared storage.
			er.logRel = fmt.Sprintf("%s.shard-%d-of-%d.engine.log", e.ID, k.opt.Shard, k.opt.Shards)
		}
		fmt.Fprintf(k.opt.Log, "%s: starting %s\n", e.ID, l.Display)
		shown := append([]string(nil), er.argv...)
		if l.Adapter.Name == "mock" && shown[0] == k.opt.Self {
			shown[0] = "perflab" // not the binary's path on this machine
		}
		p, err := engine.Start(engine.Config{Name: e.ID, Argv: er.argv, Env: l.Env,
			LogPath: filepath.Join(k.plan.Dir, er.logRel), Redactor: er.red, Display: engine.Quote(redact.Args(shown))})
		if err != nil {
			return er, err
		}
		er.proc = p
	}
	timeout := k.opt.HealthTimeout
	if timeout <= 0 {
		timeout = 10 * time.Minute // WaitHealthy's default
	}
	if len(l.Adapter.Health) > 0 {
		fmt.Fprintf(k.opt.Log, "%s: waiting for %s%s to answer (up to %s)\n", e.ID, redact.URL(er.baseURL), l.Adapter.Health[0], timeout)
	}
	err := engine.WaitHealthy(ctx, er.proc, engine.HealthConfig{BaseURL: er.baseURL, Routes: l.Adapter.Health,
		Timeout: timeout, Client: &http.Client{Timeout: 5 * time.Second, Transport: er.client.Transport},
		Progress: func(waited time.Duration, route, last string) {
			fmt.Fprintf(k.opt.Log, "%s: still waiting for %s%s: %s of %s (last: %s)\n", e.ID, redact.URL(er.baseURL), route,
				waited.Round(time.Second), timeout, er.red.String(last))
		}})
	if err != nil {
		if er.proc != nil {
			er.proc.Stop(k.opt.StopGrace)
			// Taken between the check above and the engine's bind (another
			// collect on this node launched an engine on the same port):
			// the node's problem, as above, not a crash of every run.
			if errors.Is(err, engine.ErrExited) && lostPort(er.proc) {
				return er, fmt.Errorf("%s: %w: the engine could not bind %s, which another process took as it started; stop that server or give the command another --port", e.ID, ErrPortInUse, redact.URL(er.baseURL))
			}
		}
		return er, fmt.Errorf("%s: wait healthy: %w", e.ID, err)
	}
	declared := e.Version
	for _, s := range k.c.Engines {
		if declared == "" && s.Name == e.Engine {
			declared = s.Version
		}
	}
	er.version = declared
	if v, err := l.Adapter.Version(ctx, er.client, er.baseURL, er.argv, engine.MergeEnv(os.Environ(), l.Env)); err == nil && v != "" {
		er.version = v
		if declared != "" && !sameVersion(declared, v) {
			er.warnings = append(er.warnings, fmt.Sprintf("the engine reports version %s, the campaign expects %s", v, declared))
		}
	}
	er.model = k.c.Model.ID
	if m, err := engine.ServedModel(ctx, er.client, er.baseURL); err == nil {
		er.model = m
	}
	fmt.Fprintf(k.opt.Log, "%s: healthy at %s (version %s, model %s)\n", e.ID, redact.URL(er.baseURL), orDash(er.version), er.model)
	return er, nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// stop ends the engine and waits for the GPUs to give its memory back
// (not when ctx ended: the campaign stops, nothing else needs the GPUs).
func (k *collector) stop(ctx context.Context, er *engineRun) {
	if er.proc == nil {
		return
	}
	stopped := make(chan struct{})
	defer close(stopped)
	if k.opt.Hurry != nil {
		go func() {
			select {
			case <-k.opt.Hurry:
				fmt.Fprintf(k.opt.Log, "%s: killing the engine now\n", er.launch.Adapter.Name)
				er.proc.Kill()
			case <-stopped:
			}
		}()
	}
	if err := er.proc.Stop(k.opt.StopGrace); err != nil {
		fmt.Fprintln(k.opt.Log, "warning:", err)
	}
	if er.gpus != nil && er.before != nil && !closed(k.opt.Hurry) && ctx.Err() == nil {
		timeout := k.opt.ReleaseTimeout
		if timeout <= 0 {
			timeout = 2 * time.Minute
		}
		ctx, cancel := context.WithTimeout(ctx, timeout) // a Ctrl-C ends the wait too
		defer cancel()
		if err := telemetry.WaitReleased(ctx, er.gpus, er.before, 512, 500*time.Millisecond); err != nil {
			fmt.Fprintln(k.opt.Log, "warning:", err)
		}
	}
}

// run benchmarks one run against a healthy engine and writes its result.
func (k *collector) run(ctx context.Context, r Run, er *engineRun) error {
	k.progress.begin(r, "running")
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	if er.proc != nil {
		go func() {
			select {
			case <-er.proc.Exited():
				cancel()
			case <-runCtx.Done():
			}
		}()
	}
	// GPU telemetry covers what the runner declares as its measurement
	// (Target.Measure): the benchmark, not the prompts' tokenization.
	var (
		mu  sync.Mutex
		rec *telemetry.Recorder
		tel *schema.Telemetry
	)
	stopRec := func() {
		mu.Lock()
		defer mu.Unlock()
		if rec != nil {
			tel, rec = rec.Stop(), nil
		}
	}
	measure := func() func() {
		mu.Lock()
		defer mu.Unlock()
		if er.gpus != nil && rec == nil && tel == nil {
			rec = telemetry.Record(er.gpus, k.opt.SampleInterval)
		}
		return stopRec
	}
	started := k.opt.Now()
	res, err := k.opt.Runner(runCtx, Target{Run: r, Campaign: k.c, BaseURL: er.baseURL, Model: er.model,
		TokenizeRoute: er.launch.Adapter.TokenizeRoute, DatasetPath: k.datasets[r.Profile.ID], APIKey: er.launch.APIKey(),
		Progress: k.progress.writer(), Measure: measure})
	stopRec() // a runner that returned early may not have stopped it
	// A server that died shows up as failed requests a moment before the
	// process is reaped: give it that moment before judging.
	if er.proc != nil && ctx.Err() == nil && (err != nil || res == nil || res.Summary != nil && res.Summary.Failed > 0) {
		select {
		case <-er.proc.Exited():
		case <-time.After(2 * time.Second):
		}
	}
	switch {
	case ctx.Err() == nil && er.proc != nil && er.proc.ExitError() != nil && lostPort(er.proc):
		// The engine never had its port: what answered the health checks
		// and this benchmark was another server (another collect's engine
		// on this node). Nothing measured is this engine's; as a port
		// taken before the start, the campaign stops and nothing is
		// recorded, so the run is repeated once the port is free.
		return fmt.Errorf("%s: %w: the engine exited because another process holds %s, which answered in its place; stop that server or give the command another --port", r.Experiment.ID, ErrPortInUse, redact.URL(er.baseURL))
	case ctx.Err() != nil:
		res = k.base(r, er, schema.StatusInterrupted, "interrupted by the user; collect"+k.roundArg()+" again to resume", started)
		if err := k.write(r, res, er.red); err != nil {
			return err
		}
		return k.interrupted(ctx)
	case er.proc != nil && er.proc.ExitError() != nil:
		tail := er.proc.LogTail(40)
		out := k.base(r, er, schema.StatusCrashed, "engine crashed during the benchmark"+diagnose(tail)+": "+er.proc.ExitError().Error(), started)
		if res != nil { // keep what was measured before the crash
			out.Summary, out.Requests, out.RawOutput, out.Load, out.Tool = res.Summary, res.Requests, res.RawOutput, res.Load, res.Tool
			out.Load.Sweep = r.Point.Sweep // the runner's load does not know the sweep (fill sets it)
		}
		out.LogTail = tail
		res = out
	case err != nil:
		res = k.base(r, er, schema.StatusFailed, err.Error(), started)
	default:
		k.fill(r, er, res)
		k.stalls(r, er, res)
	}
	if tel != nil {
		res.Telemetry = tel
	}
	return k.write(r, res, er.red)
}

// stalls says so when requests of the run stalled (an engine that
// accepted them and stopped streaming; see bench.Config.StallTimeout):
// a log line naming the run and the engine; and when every request
// stalled, or the engine stopped serving partway (requests not sent:
// bench.NotSent), the run failed (the result keeps what it recorded, and
// collect --retry runs it again). Some stalled while the engine went on
// serving: the run is ok, its numbers those of the requests that
// finished, the others failed.
func (k *collector) stalls(r Run, er *engineRun, res *schema.Result) {
	n, notSent := 0, 0
	for i := range res.Requests {
		if bench.Stalled(&res.Requests[i]) {
			n++
		}
		if bench.NotSent(&res.Requests[i]) {
			notSent++
		}
	}
	if n == 0 {
		return
	}
	quiet, _ := StallTimeout(k.c.Bench)
	if quiet == 0 {
		quiet = bench.DefaultStallTimeout
	}
	msg := fmt.Sprintf("%d of %d requests stalled: the engine of %s (%s at %s) sent nothing for %s (bench.stall_timeout)",
		n, len(res.Requests), r.Experiment.ID, r.Experiment.Engine, redact.URL(er.baseURL), quiet)
	if notSent > 0 {
		// The engine stopped serving partway: the requests that
		// finished before measure a run cut short, not the engine.
		msg += fmt.Sprintf(" and stopped serving (%d not sent)", notSent)
	}
	if (n == len(res.Requests) || notSent > 0) && res.Status == schema.StatusOK {
		res.Status = schema.StatusFailed // the run's line says why
		res.Error = msg + "; collect --retry" + k.roundArg() + " runs it again"
		return
	}
	fmt.Fprintf(k.opt.Log, "%s: %s\n", r.Name, msg)
}

// lostPort reports whether an engine that exited says its port was in
// use.
func lostPort(p *engine.Process) bool {
	return strings.Contains(strings.ToLower(p.LogTail(40)), "address already in use")
}

// base is a result with no measurement: the run's identity and status.
func (k *collector) base(r Run, er *engineRun, st schema.Status, msg string, started time.Time) *schema.Result {
	res := &schema.Result{Status: st, Error: msg, Start: started.UTC().Format(time.RFC3339), End: k.opt.Now().UTC().Format(time.RFC3339)}
	res.Load = loadOf(k.c, r.Profile)
	res.Tool = schema.Tool{Name: ToolPerflab}
	k.fill(r, er, res)
	return res
}

// fill sets the fields the collector owns on a result.
func (k *collector) fill(r Run, er *engineRun, res *schema.Result) {
	e, p := r.Experiment, r.Profile
	res.ID = r.Key
	res.Label = nameOr(e.Name, e.ID) + " / " + nameOr(p.Name, p.ID)
	if r.Point.Sweep != "" {
		res.Label += " @ " + r.Point.String()
	}
	if r.Repeat > 0 {
		res.Label += fmt.Sprintf(" (repeat %d)", r.Repeat+1)
	}
	res.Campaign, res.Experiment, res.Profile = k.c.ID, e.ID, p.ID
	res.Repeat = r.Repeat
	l := er.launch
	res.Engine = schema.Engine{Name: e.Engine, Version: er.version, Command: l.Display, Env: redact.Env(l.ShownEnv), BaseURL: redact.URL(er.baseURL)}
	res.Model.ID = k.c.Model.ID
	if er.model != "" && er.model != k.c.Model.ID {
		res.Model.Served = er.model
	}
	if res.Load.NumPrompts == 0 && res.Load.Dataset == "" {
		res.Load = loadOf(k.c, p)
	}
	res.Load.Sweep = r.Point.Sweep
	if k.hw != nil {
		hw := *k.hw
		hw.GPUs = append([]schema.GPU(nil), k.hw.GPUs...)
		hw.GPUCount = l.GPUs
		res.Hardware = &hw
	}
	if k.telWarn != "" {
		res.Telemetry = telemetry.Unavailable(errors.New(k.telWarn))
		if needsGPUs(l) {
			// Only a GPU engine's numbers miss their power and energy; a
			// mock or CPU engine's do not deserve a caveat on the page.
			res.Warnings = appendOnce(res.Warnings, k.telWarn)
		}
	}
	if er.logRel != "" {
		res.Artifacts = appendArtifact(res.Artifacts, schema.Artifact{Kind: "engine-log", Path: er.logRel})
	}
	for _, w := range er.warnings {
		res.Warnings = appendOnce(res.Warnings, w)
	}
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

func appendArtifact(list []schema.Artifact, a schema.Artifact) []schema.Artifact {
	for _, x := range list {
		if x.Path == a.Path {
			return list
		}
	}
	return append(list, a)
}

func nameOr(name, id string) string {
	if name != "" {
		return name
	}
	return id
}

// crashed is the result of a run whose engine never became healthy.
func (k *collector) crashed(r Run, l *Launch, er *engineRun, cause error) *schema.Result {
	if er == nil {
		er = &engineRun{launch: l, baseURL: l.BaseURL}
	}
	now := k.opt.Now()
	tail := ""
	if er.proc != nil {
		tail = er.proc.LogTail(40)
	}
	msg := cause.Error()
	if d := diagnose(tail); d != "" {
		msg = "engine failed to start" + d + ": " + msg
	} else if errors.Is(cause, engine.ErrNeverHealthy) {
		// Alive but not answering: a large model may still be loading. A
		// crash counts as finished, so say how to give it more time.
		msg += " (still loading? raise --health-timeout and collect again with --retry" + k.roundArg() + ")"
	}
	res := k.base(r, er, schema.StatusCrashed, msg, now)
	res.LogTail = tail
	return res
}

// crashSigns maps what engines print when they die to a short reason.
var crashSigns = []struct{ sign, reason string }{
	{"out of memory", "out of GPU memory"},
	{"outofmemoryerror", "out of GPU memory"},
	{"cuda_error_out_of_memory", "out of GPU memory"},
	{"no available memory for the cache blocks", "not enough GPU memory for the KV cache"},
	{"illegal memory access", "CUDA illegal memory access"},
	{"nccl error", "NCCL error"},
	{"address already in use", "port already in use"},
	{"no such file or directory", "file not found"},
}

// diagnose names the likely cause of a crash from the engine's log tail
// (" (out of GPU memory)"), "" when nothing is recognised.
func diagnose(tail string) string {
	l := strings.ToLower(tail)
	for _, s := range crashSigns {
		if strings.Contains(l, s.sign) {
			return " (" + s.reason + ")"
		}
	}
	return ""
}

// loadOf is a profile as a schema.Load (what a crash record shows, and
// what a run records of its profile): its dataset described as
// collect/benchrun describes a run's, with the dataset file as the
// campaign names it.
func loadOf(c *schema.Campaign, p *schema.Profile) schema.Load {
	backend, endpoint := backendEndpoint(c.Bench)
	l := schema.Load{Backend: backend, Endpoint: endpoint, NumPrompts: p.NumPrompts,
		RequestRate: p.RequestRate, Burstiness: p.Burstiness, MaxConcurrency: p.MaxConcurrency, Seed: p.Seed}
	x, _ := parseArgs(p.Args) // Validate has checked them
	d := benchrun.Options{Dataset: profileDataset(p, p.DatasetPath, x)}
	d.Describe(&l)
	return l
}

// write redacts a result and writes it atomically.
func (k *collector) write(r Run, res *schema.Result, red *redact.Redactor) error {
	redactResult(red, res)
	if err := schema.WriteFileTo(k.opt.Storage, r.Path, res); err != nil {
		return fmt.Errorf("collect: %w", err)
	}
	k.report.Ran++
	k.report.Status[res.Status]++
	k.progress.end(r)
	line := fmt.Sprintf("%s: %s", r.Name, res.Status)
	if res.Summary != nil && res.Status == schema.StatusOK {
		line += fmt.Sprintf(": %d/%d requests, %.1f tok/s total, %.2f s", res.Summary.Completed,
			res.Summary.Completed+res.Summary.Failed, res.Summary.TotalTokenThroughput, res.Summary.DurationS)
		if res.Telemetry != nil && res.Telemetry.TotalEnergyJ > 0 {
			line += fmt.Sprintf(", %.3f tok/J", float64(res.Summary.TotalOutputTokens)/res.Telemetry.TotalEnergyJ)
		}
	} else if res.Error != "" {
		line += ": " + firstLine(res.Error)
	}
	if (res.Status == schema.StatusCrashed || res.Status == schema.StatusFailed) && r.Experiment.Expect != string(res.Status) {
		k.report.Unexpected = append(k.report.Unexpected, line)
	}
	if res.Status == schema.StatusCrashed {
		// The reason is in the engine's log: its last lines (as the
		// result records them) and where the whole log is.
		if tail := lastLines(res.LogTail, 5); tail != "" {
			line += "\n  engine log, last lines:\n    " + strings.ReplaceAll(tail, "\n", "\n    ")
		}
		for _, a := range res.Artifacts {
			if a.Kind == "engine-log" {
				line += "\n  engine log: " + filepath.Join(filepath.Dir(r.Path), a.Path)
				break
			}
		}
	}
	fmt.Fprintln(k.opt.Log, line)
	return nil
}

// lastLines is the last n non-empty lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var out []string
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			out = append(out, lines[i])
		}
	}
	slices.Reverse(out)
	return strings.Join(out, "\n")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// redactResult hides secrets in every string a result holds (redact's
// Walk: a field added later is covered without being listed here);
// perflab build redacts every result it reads the same way.
func redactResult(red *redact.Redactor, res *schema.Result) {
	red.Walk(res)
}

func (k *collector) interrupted(ctx context.Context) error {
	left := k.report.Planned - k.report.Skipped - k.report.Ran + k.report.Status[schema.StatusInterrupted]
	again := "run the same command again"
	switch arg := k.roundArg(); {
	case arg != "" && k.opt.NewRound:
		again = "run the same command with" + arg + " instead of --new-round" // which would start another round
	case arg != "":
		again = "run the same command with" + arg // a later run's rounds: policy may pick another round
	}
	return fmt.Errorf("collect %s: %w (%v): %d runs left; %s to resume", k.c.ID, ErrInterrupted, context.Cause(ctx), left, again)
}

// roundArg is the flag that brings a later collect back to this one's
// round, for the hints to resume or retry (" --round ID"), or "" when a
// plain collect finds it (the latest round, or --round given): a round
// started by --new-round (run again, it starts another) or picked by the
// campaign's rounds: policy (the next scheduler run, or day, has its
// own) must be named.
func (k *collector) roundArg() string {
	if k.opt.Round != "" || k.plan == nil || k.plan.Round == "" || (!k.opt.NewRound && k.c.Rounds == "") {
		return ""
	}
	return " --round " + k.plan.Round
}

func closed(c <-chan struct{}) bool {
	if c == nil {
		return false
	}
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// Preflight checks, before any engine starts (GPU time is dear), that the
// files the runs need exist: bench.tokenizer when it is a path, and each
// ShareGPT profile's dataset_path, looked up in the current directory and
// then beside the campaign file. It returns the dataset files found, by
// profile id.
func Preflight(f *File, runs []Run) (map[string]string, error) {
	ps := &problems{f: f}
	c := &f.Campaign
	if t := c.Bench.Tokenizer; t != "" && t != "server" {
		if _, err := os.Stat(t); err != nil {
			ps.add(at("bench", "tokenizer"), "%s: no such file or model directory", t)
		}
	}
	found := map[string]string{}
	for _, r := range runs {
		p := r.Profile
		if p.DatasetPath == "" || found[p.ID] != "" {
			continue
		}
		cands := []string{p.DatasetPath}
		if !filepath.IsAbs(p.DatasetPath) {
			cands = append(cands, filepath.Join(filepath.Dir(f.Path), p.DatasetPath))
		}
		for _, cand := range cands {
			if st, err := os.Stat(cand); err == nil && !st.IsDir() {
				found[p.ID] = cand
				break
			}
		}
		if found[p.ID] == "" {
			hint := ""
			if strings.Contains(strings.ToLower(p.DatasetPath), "sharegpt") {
				hint = " (wget https://huggingface.co/datasets/anon8231489123/ShareGPT_Vicuna_unfiltered/resolve/main/ShareGPT_V3_unfiltered_cleaned_split.json)"
			}
			for i := range c.Profiles {
				if c.Profiles[i].ID == p.ID {
					ps.add(at("profiles", i, "dataset_path"), "%s not found in the current directory nor beside the campaign%s", p.DatasetPath, hint)
				}
			}
			found[p.ID] = "-" // reported once
		}
	}
	if err := ps.err(); err != nil {
		return nil, err
	}
	return found, nil
}

// engineGPUs returns the indexes of the GPUs an engine uses: the first
// l.GPUs of those it can see (visibleGPUs).
func (k *collector) engineGPUs(l *Launch) []int {
	visible, _, _ := k.visibleGPUs(l)
	if l.GPUs > 0 && l.GPUs < len(visible) {
		visible = visible[:l.GPUs]
	}
	return visible
}

// visibleGPUs returns the indexes of the GPUs an engine can see: those
// named by CUDA_VISIBLE_DEVICES (indexes or UUIDs; the experiment's env,
// else the collector's), else every GPU of the node, as engines pick
// them. Like CUDA, it stops at the first entry that names no GPU, so ""
// and "-1" hide every GPU. vis is the variable's value ("" when unset);
// known is false where it names MIG instances, which NVML's GPU list does
// not hold: how many devices the engine sees is then not known here.
func (k *collector) visibleGPUs(l *Launch) (idx []int, vis string, known bool) {
	vis, ok := l.Env["CUDA_VISIBLE_DEVICES"]
	if !ok {
		vis, ok = os.LookupEnv("CUDA_VISIBLE_DEVICES")
	}
	var visible []int
	if !ok {
		for _, g := range k.hw.GPUs {
			visible = append(visible, g.Index)
		}
		return visible, "", true
	}
	for _, f := range strings.Split(vis, ",") {
		f = strings.TrimSpace(f)
		if strings.HasPrefix(f, "MIG-") {
			return visible, vis, false
		}
		found := -1
		if n, err := strconv.Atoi(f); err == nil {
			if n >= 0 && n < len(k.hw.GPUs) {
				found = k.hw.GPUs[n].Index
			}
		} else if f != "" {
			for _, g := range k.hw.GPUs {
				if g.UUID != "" && (g.UUID == f || strings.HasPrefix(g.UUID, f)) {
					found = g.Index
					break
				}
			}
		}
		if found < 0 {
			break
		}
		visible = append(visible, found)
	}
	return visible, vis, true
}

// sameVersion compares versions as engines and pages write them: "v0.11.0"
// and "0.11.0" are the same, and so is a longer build string that starts
// with the expected one ("0.11.0+cu128").
func sameVersion(declared, got string) bool {
	d := strings.TrimPrefix(strings.TrimSpace(declared), "v")
	g := strings.TrimPrefix(strings.TrimSpace(got), "v")
	return d == g || strings.HasPrefix(g, d+"+") || strings.HasPrefix(g, d+" ") || strings.HasPrefix(g, d+"-")
}

// environ is the collector's environment as a map.
func environ() map[string]string {
	m := map[string]string{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// selectRuns is this shard's runs, restricted to opt.Only.
func selectRuns(p *Plan, opt Options) ([]Run, error) {
	runs := p.Shard(opt.Shard, opt.Shards, !opt.ShardByRun)
	if len(opt.Only) == 0 {
		return runs, nil
	}
	known := map[string]bool{}
	for _, r := range p.Runs {
		known[r.Name], known[r.Base], known[r.Experiment.ID], known[r.Step.ID] = true, true, true, true
		known[r.pointName()] = true
	}
	want := map[string]bool{}
	for _, o := range opt.Only {
		if !known[o] {
			return nil, fmt.Errorf("collect: --only %s: no experiment, step or run (or sweep point) of campaign %s has this id", o, p.Campaign.ID)
		}
		want[o] = true
	}
	var out []Run
	for _, r := range runs {
		if want[r.Name] || want[r.Base] || want[r.pointName()] || want[r.Experiment.ID] || want[r.Step.ID] {
			out = append(out, r)
		}
	}
	return out, nil
}
