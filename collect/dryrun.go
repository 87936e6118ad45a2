package collect

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/perflab/perflab/collect/redact"
	"github.com/perflab/perflab/collect/schema"
)

// PrintPlan writes what Collect would do, touching no engine and no GPU:
// the campaign, the benchmark command of each profile (as the campaign's
// tool writes it), then per step and experiment the serve command and
// each run of this shard in order, with its key, result file and state
// (todo, done, stale: a result of an older definition, or interrupted).
func PrintPlan(w io.Writer, f *File, opt Options) error {
	if err := f.Validate(); err != nil {
		return err
	}
	if opt.Results == "" {
		opt.Results = "results"
	}
	c := &f.Campaign
	plan := NewPlan(c, opt.Results)
	if opt.Now == nil {
		opt.Now = time.Now
	}
	round, create, err := RoundID(c, plan.Dir, opt, opt.Now())
	if err != nil {
		return err
	}
	plan.InRound(schema.RoundDir{ID: round, Dir: schema.RoundPath(plan.Dir, round)})
	runs, err := selectRuns(plan, opt)
	if err != nil {
		return err
	}
	inShard := map[int]bool{}
	for _, r := range runs {
		inShard[r.Index] = true
	}

	hw := c.Hardware.GPU
	if c.Hardware.Count > 0 {
		hw = fmt.Sprintf("%d× %s", c.Hardware.Count, hw)
	}
	fmt.Fprintf(w, "campaign %s: %s on %s\n", c.ID, c.Model.ID, strings.TrimSpace(hw))
	if c.Title != "" {
		fmt.Fprintf(w, "  %s\n", c.Title)
	}
	nexp := 0
	for _, s := range c.Steps {
		nexp += len(s.Experiments)
	}
	fmt.Fprintf(w, "  %s, %s, %s, %s", count(len(c.Steps), "step"), count(nexp, "experiment"), count(len(c.Profiles), "profile"), count(len(plan.Runs), "run"))
	if opt.Shards > 1 {
		unit := "experiment"
		if opt.ShardByRun {
			unit = "run"
		}
		fmt.Fprintf(w, "; shard %d/%d (by %s) has %d", opt.Shard, opt.Shards, unit, len(runs))
	}
	fmt.Fprintf(w, "\n  results: %s/\n", plan.Dir)
	if round != schema.FirstRound { // a campaign without rounds prints as before
		if _, err := os.Stat(filepath.Join(plan.Dir, schema.RoundFile)); create && err != nil {
			fmt.Fprintf(w, "  round: %s (new: collect starts it)\n", round)
		} else {
			fmt.Fprintf(w, "  round: %s\n", round)
		}
	}
	fmt.Fprintf(w, "  baseline: %s, optimized: %s\n", c.Baseline, c.Optimized)
	if len(c.SLO) > 0 {
		stop := fmt.Sprintf("sweeps stop early past saturation when a limit is broken %.0f× (--no-early-stop: run every point)", EarlyStopMargin)
		if opt.NoEarlyStop {
			stop = "every sweep point runs (--no-early-stop)"
		}
		fmt.Fprintf(w, "  slo: %s; %s\n", c.SLO, stop)
	}
	if c.Cost != nil {
		fmt.Fprintf(w, "  cost: $%g per GPU-hour\n", c.Cost.GPUHourUSD)
	}
	for _, warn := range f.Warnings() {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
	if _, err := Preflight(f, runs); err != nil {
		// What collect would refuse to start with, shown without failing
		// the plan: the files may be fetched before the real run.
		for _, line := range strings.Split(err.Error(), "\n") {
			fmt.Fprintf(w, "  missing: %s\n", line)
		}
	}
	// What the engines' commands need on this machine: the program and the
	// files they name (the real run would record each run as crashed).
	seen := map[string]bool{}
	for _, r := range runs {
		if seen[r.Experiment.ID] {
			continue
		}
		seen[r.Experiment.ID] = true
		l, err := NewLaunch(c, r.Experiment)
		if err != nil {
			return err
		}
		for _, m := range commandNeeds(f, r.Experiment, l) {
			fmt.Fprintf(w, "  missing: %s\n", m)
		}
	}

	tool := c.Bench.Tool
	if tool == "" {
		tool = ToolPerflab
	}
	fmt.Fprintf(w, "\nbenchmark commands (%s):\n", tool)
	for i := range c.Profiles {
		p := &c.Profiles[i]
		fmt.Fprintf(w, "  # %s (%s)%s\n  %s\n", nameOr(p.Name, p.ID), p.ID, sweepNote(p), BenchCommand(c, p, c.Model.ID, ""))
	}

	todo, done := 0, 0
	for si := range c.Steps {
		s := &c.Steps[si]
		fmt.Fprintf(w, "\nstep %d: %s (%s)\n", si+1, nameOr(s.Title, s.ID), s.ID)
		for ei := range s.Experiments {
			e := &s.Experiments[ei]
			l, err := NewLaunch(c, e)
			if err != nil {
				return err
			}
			gpus := ""
			if needsGPUs(l) {
				gpus = ", " + count(l.GPUs, c.Hardware.Unit()) // 1 GPU, 2 NPUs, 1 CPU
			}
			fmt.Fprintf(w, "  experiment %s (%s): engine %s%s, at %s\n", e.ID, nameOr(e.Name, e.ID), e.Engine, gpus, redact.URL(l.BaseURL))
			if l.Adapter.Launches {
				fmt.Fprintf(w, "    serve: %s\n", indent(l.Display, "           "))
			}
			for _, r := range plan.Runs {
				if r.Experiment != e {
					continue
				}
				if !inShard[r.Index] {
					why := "other shard"
					if len(opt.Only) > 0 {
						why = "not selected"
					}
					fmt.Fprintf(w, "    run %-3d %-40s (%s)\n", r.Index+1, r.Name, why)
					continue
				}
				state := "todo"
				res, ok, rerr := Existing(r)
				if rerr != nil {
					state = "todo (not a complete result: " + rerr.Error() + ")"
				}
				if ok {
					state = "done (" + string(res.Status) + ")"
					if Imported(res) {
						state = "done (" + string(res.Status) + ", imported from " + res.Tool.Name + ")"
					}
					retry := opt.Retry && (res.Status == schema.StatusCrashed || res.Status == schema.StatusFailed)
					switch {
					case opt.Force:
						state += ", repeated: --force"
					case retry:
						state += ", repeated: --retry"
					case opt.NoEarlyStop && res.Status == schema.StatusSkipped:
						state += ", run: --no-early-stop"
					default:
						done++
					}
				} else if res != nil {
					state = "todo (stale: " + string(res.Status) + ")"
					if res.ID != r.Key {
						state = "todo (stale: older definition)"
					}
				}
				if !strings.HasPrefix(state, "done") || strings.Contains(state, "repeated:") || strings.Contains(state, "run: --no-early-stop") {
					todo++
				}
				fmt.Fprintf(w, "    run %-3d %-40s key %s  %s\n", r.Index+1, r.Name, r.Key, state)
			}
		}
	}
	fmt.Fprintf(w, "\n%d runs to collect, %d already done\n", todo, done)
	return nil
}

func indent(s, pad string) string {
	return strings.ReplaceAll(s, "\n", "\n"+pad)
}

// sweepNote describes a profile's sweep and repeats for the plan: "
// (sweep max_concurrency: 1, 4, 16; 4 repeats each)"; "" for one load
// run once.
func sweepNote(p *schema.Profile) string {
	var parts []string
	if vals := p.PointValues(); vals != nil {
		parts = append(parts, "sweep "+p.Sweep()+": "+strings.Join(vals, ", "))
	}
	if n := p.RepeatCount(); n > 1 {
		parts = append(parts, fmt.Sprintf("%d repeats each", n))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// commandNeeds says what an experiment's launch lacks on this machine:
// its program (on PATH, or at the path the command gives) and the files
// its arguments name (an argument that is a path: it starts with /, ./,
// ../ or ~/, or ends with a model or config file's extension such as
// .gguf or .json; relative paths are taken from the current directory,
// where collect starts the engine). A mock's perflab is this binary.
func commandNeeds(f *File, e *schema.Experiment, l *Launch) []string {
	if !l.Adapter.Launches || len(l.Argv) == 0 {
		return nil
	}
	// FILE:LINE: field: as every other campaign problem is named.
	where := fmt.Sprintf("%s: experiment %s", f.Path, e.ID)
	for si, st := range f.Campaign.Steps {
		for ei := range st.Experiments {
			if st.Experiments[ei].ID != e.ID {
				continue
			}
			field := "command"
			if e.Command == "" {
				field = "args"
			}
			if line := f.Line("steps", si, "experiments", ei, field); line > 0 {
				where = fmt.Sprintf("%s:%d: steps[%d].experiments[%d].%s: experiment %s", f.Path, line, si, ei, field, e.ID)
			}
		}
	}
	var out []string
	prog := l.Argv[0]
	switch {
	case l.Adapter.Name == "mock" && prog == "perflab":
	case strings.Contains(prog, "/"):
		if st, err := os.Stat(prog); err != nil {
			out = append(out, fmt.Sprintf("%s: program %s not found", where, prog))
		} else if st.IsDir() || st.Mode()&0o111 == 0 {
			out = append(out, fmt.Sprintf("%s: program %s is not executable", where, prog))
		}
	default:
		if _, err := exec.LookPath(prog); err != nil {
			out = append(out, fmt.Sprintf("%s: program %s is not on PATH (install it, or give its path in command)", where, prog))
		}
	}
	for _, a := range l.Argv[1:] {
		if strings.HasPrefix(a, "-") {
			_, v, ok := strings.Cut(a, "=")
			if !ok {
				continue
			}
			a = v
		}
		if !namesFile(a) {
			continue
		}
		p := a
		if rest, ok := strings.CutPrefix(a, "~/"); ok {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, rest)
			}
		}
		if _, err := os.Stat(p); err != nil {
			out = append(out, fmt.Sprintf("%s: the command names %s, which does not exist here", where, a))
		}
	}
	return out
}

// fileExts are the extensions that make a command's argument a file.
var fileExts = []string{".gguf", ".json", ".jinja", ".yaml", ".yml", ".bin", ".safetensors", ".onnx", ".pt", ".model"}

func namesFile(a string) bool {
	if strings.ContainsAny(a, "{}[]:,= ") || a == "" {
		return false // JSON values, URLs, key=value pairs
	}
	for _, pre := range []string{"/", "./", "../", "~/"} {
		if strings.HasPrefix(a, pre) {
			return true
		}
	}
	for _, ext := range fileExts {
		if strings.HasSuffix(strings.ToLower(a), ext) {
			return true
		}
	}
	return false
}

// count spells n with its noun: "1 step", "3 steps".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
