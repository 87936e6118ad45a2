package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/perflab/perflab/collect"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/telemetry"
)

// runCollect runs a campaign: perflab collect CAMPAIGN [flags].
func runCollect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("collect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: perflab collect CAMPAIGN [--results DIR] [--new-round | --round ID] [--shard I/N] [--only IDS] [--force | --retry] [--dry-run]\n       perflab collect --gpu-info\n\nCAMPAIGN is a campaign.yaml or the report directory holding one.\n\nflags:")
		fs.PrintDefaults()
	}
	results := fs.String("results", "results", "results root; the campaign's files go to `DIR`/<campaign>/")
	shard := fs.String("shard", "", "run only shard `I/N` of the runs (0 ≤ I < N), for job arrays")
	shardBy := fs.String("shard-by", "experiment", "shard unit: experiment (one engine launch per shard) or run")
	round := fs.String("round", "", "run in round `ID`, started when new and joined when it exists: every shard of one scheduled run passes the same ID (a date, a job id)")
	newRound := fs.Bool("new-round", false, "start a new round (named by today's UTC date) and leave every earlier round's results as they are")
	force := fs.Bool("force", false, "repeat runs that already have a finished result")
	retry := fs.Bool("retry", false, "repeat runs whose result is crashed or failed, keep the ok ones")
	only := fs.String("only", "", "run only these comma-separated `IDS`: experiments, steps, runs (experiment--profile) or sweep points (experiment--profile--c64)")
	noEarlyStop := fs.Bool("no-early-stop", false, "run every point of a sweep, also those past saturation that break the SLO by 2× (and those an earlier collect skipped)")
	dryRun := fs.Bool("dry-run", false, "print the plan (runs, commands, order, state) and exit; touches no engine or GPU")
	gpuInfo := fs.Bool("gpu-info", false, "print what the GPU sampler sees (inventory and one second of samples) and exit; status 1 when NVML cannot read the GPUs")
	healthTimeout := fs.Duration("health-timeout", 10*time.Minute, "how long an engine may take to become healthy")
	stopGrace := fs.Duration("stop-grace", 30*time.Second, "how long a stopped engine gets before SIGKILL")
	sampleInterval := fs.Duration("sample-interval", time.Second, "GPU telemetry sampling period")
	mockBinary := fs.String("mock-binary", "", "perflab binary that engine: mock experiments launch (default: this one)")

	// The campaign may come before or after the flags.
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return usageError("collect: %v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if *gpuInfo {
		if len(positional) > 0 {
			return usageError("collect: --gpu-info takes no campaign (got %s)", strings.Join(positional, " "))
		}
		return printGPUInfo(stdout)
	}
	if len(positional) != 1 {
		fs.Usage()
		return usageError("collect: want one campaign file, got %d", len(positional))
	}
	if *force && *retry {
		return usageError("collect: --force repeats every run and --retry only the crashed and failed ones: give one of them")
	}
	if *newRound && *round != "" {
		return usageError("collect: --new-round names the round by the date and --round ID names it: give one of them (shards of one round all pass --round ID)")
	}
	opt := collect.Options{
		Round: *round, NewRound: *newRound,
		Results: *results, Force: *force, Retry: *retry, HealthTimeout: *healthTimeout, StopGrace: *stopGrace,
		SampleInterval: *sampleInterval, Self: *mockBinary, Log: stderr, NoEarlyStop: *noEarlyStop,
	}
	switch *shardBy {
	case "experiment":
	case "run":
		opt.ShardByRun = true
	default:
		return usageError("collect: --shard-by %q: want experiment or run", *shardBy)
	}
	if *shard != "" {
		i, n, err := collect.ParseShard(*shard)
		if err != nil {
			return usageError("collect: --%v", err)
		}
		opt.Shard, opt.Shards = i, n
	}
	if *only != "" {
		for _, id := range strings.Split(*only, ",") {
			if id = strings.TrimSpace(id); id != "" {
				opt.Only = append(opt.Only, id)
			}
		}
	}
	path := positional[0]
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, "campaign.yaml") // a report bundle
	}
	f, err := collect.Load(path)
	if err != nil {
		return err
	}
	if *dryRun {
		return collect.PrintPlan(stdout, f, opt)
	}
	if isTerminal(stderr) {
		opt.Live = stderr
	}
	// The first Ctrl-C (ctx) stops the engine gracefully and keeps what
	// finished; a second one kills the engine without waiting.
	hurry, finished := make(chan struct{}), make(chan struct{})
	defer close(finished)
	opt.Hurry = hurry
	go func() {
		select {
		case <-ctx.Done():
		case <-finished:
			return
		}
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(sig)
		fmt.Fprintln(stderr, "\nperflab collect: stopping the engine; press Ctrl-C again to kill it now")
		select {
		case <-sig:
			close(hurry)
		case <-finished:
		}
	}()
	rep, err := collect.Collect(ctx, f, opt)
	if rep != nil {
		round := ""
		if rep.Round != "" && rep.Round != schema.FirstRound {
			round = " round " + rep.Round
		}
		fmt.Fprintf(stderr, "collect %s%s: %d runs: %d done before, %d run now", f.Campaign.ID, round, rep.Planned, rep.Skipped, rep.Ran)
		for _, st := range []string{"ok", "failed", "crashed", "interrupted", "unsupported", "skipped"} { // skipped: the early stop of a sweep
			if n := rep.Status[schema.Status(st)]; n > 0 {
				fmt.Fprintf(stderr, ", %d %s", n, st)
			}
		}
		fmt.Fprintf(stderr, " (%v)\n", rep.Elapsed.Round(100*time.Millisecond))
		if err == nil && len(rep.Unexpected) > 0 {
			// The exit status tells a CI job: a run crashed or failed that
			// the campaign does not expect (an experiment's expect: marks a
			// deliberate one, as the demo's refused token budget).
			return fmt.Errorf("collect: %d run(s) crashed or failed that the campaign does not expect (an experiment's expect: crashed or failed marks a deliberate one):\n  %s",
				len(rep.Unexpected), strings.Join(rep.Unexpected, "\n  "))
		}
	}
	return err
}

// printGPUInfo shows what the telemetry sampler sees: the check to run on
// a GPU node before a campaign.
func printGPUInfo(w io.Writer) error {
	s, err := telemetry.Open()
	if err != nil {
		// A failure, so that a node check (an init container, a job's
		// first step) stops here; a campaign still runs without GPUs,
		// with this warning in every result.
		return fmt.Errorf("collect: gpu info: %w", err)
	}
	defer s.Close()
	hw, err := s.Inventory()
	if err != nil {
		return fmt.Errorf("collect: gpu info: %w", err)
	}
	rec := telemetry.Record(s, 200*time.Millisecond)
	time.Sleep(time.Second)
	tel := rec.Stop()
	out := struct {
		Hardware  any `json:"hardware"`
		Telemetry any `json:"telemetry_1s"`
	}{hw, tel}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
