package collect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/perflab/perflab/collect/schema"
)

// RoundID is the round a collect runs in, derived from the options and
// the campaign: Options.Round when given; with Options.NewRound, the UTC
// date (2026-11-27), or the date and .2, .3 … when that round exists;
// else the campaign's rounds: policy (daily, weekly, monthly: the round
// of the scheduler run that started this process, SchedulerRound, or
// outside one the date's round, joined or started); else the latest round (round 1 for a
// campaign with none). create is true when the round is new or may be
// (a date or given id: CreateRound keeps a record already there).
func RoundID(c *schema.Campaign, dir string, opt Options, now time.Time) (id string, create bool, err error) {
	now = now.UTC()
	if opt.Round != "" {
		if err := schema.CheckRoundID(opt.Round); err != nil {
			return "", false, fmt.Errorf("collect: --round: %w", err)
		}
		return opt.Round, true, nil
	}
	rounds, err := schema.Rounds(dir)
	if err != nil {
		return "", false, fmt.Errorf("collect: %w", err)
	}
	exists := func(id string) bool {
		for _, r := range rounds {
			if r.ID == id {
				return true
			}
		}
		_, err := os.Stat(schema.RoundPath(dir, id))
		return err == nil && id != schema.FirstRound
	}
	if opt.NewRound {
		if opt.Shards > 1 {
			// Each shard would see the others' new round and start
			// another (.2, .3 …): shards must be given one id.
			return "", false, fmt.Errorf("collect: --new-round with --shard: each shard would start a round of its own; give every shard the same --round ID (a date, a job id)")
		}
		base := now.Format("2006-01-02")
		id = base
		for n := 2; exists(id); n++ {
			id = fmt.Sprintf("%s.%d", base, n)
		}
		return id, true, nil
	}
	switch c.Rounds {
	case "daily", "weekly", "monthly":
		lookup := opt.LookupEnv
		if lookup == nil {
			lookup = os.LookupEnv
		}
		if id, ok, err := SchedulerRound(lookup); err != nil || ok {
			return id, err == nil, err
		}
	}
	switch c.Rounds {
	case "daily":
		id = now.Format("2006-01-02")
	case "weekly":
		y, w := now.ISOWeek()
		id = fmt.Sprintf("%d-w%02d", y, w)
	case "monthly":
		id = now.Format("2006-01")
	}
	last, ok, err := schema.Resumed(dir) // the newest round, interrupted or not (not schema.Shown: the pages' rule)
	if err != nil {
		return "", false, fmt.Errorf("collect: %w", err)
	}
	if id != "" {
		// The date's round is joined to resume it, not to go back to it:
		// once a newer round started (collect --new-round names its
		// rounds by the date too), joining would add to, and replace the
		// results of an edited run in, a round the pages no longer show.
		if ok && exists(id) && last.ID != id {
			return "", false, fmt.Errorf("collect: rounds: %s: this period's round %s of %s is not its latest round (%s started since): a plain collect would add to it, and re-run in it the runs the campaign changed since, replacing their results; start a round with --new-round, or resume that one on purpose with --round %s", c.Rounds, id, dir, last.ID, id)
		}
		return id, true, nil
	}
	if !ok {
		return schema.FirstRound, false, nil
	}
	if last.ID != schema.FirstRound {
		imported, err := importedOnly(last)
		if err != nil {
			return "", false, fmt.Errorf("collect: %w", err)
		}
		if imported {
			start := ""
			if last.Record != nil {
				start = ", dated " + last.Record.Start
			}
			return "", false, fmt.Errorf("collect: the latest round of %s, %s%s, holds only outputs perflab import placed there: a plain collect would add today's measurements to it; start a round with --new-round (or add to that one on purpose with --round %s)", dir, last.ID, start, last.ID)
		}
	}
	return last.ID, false, nil
}

// importedOnly reports whether round rd holds results and all of them
// were imported from another tool (perflab import --round: a lab's older
// outputs as a dated round), none measured by collect. It reads the
// round's files up to the first one collect wrote.
func importedOnly(rd schema.RoundDir) (bool, error) {
	files, err := schema.RoundFiles(rd)
	if err != nil || len(files) == 0 {
		return false, err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return false, err
		}
		var r struct {
			Tool schema.Tool `json:"tool"`
		}
		if json.Unmarshal(data, &r) != nil || !Imported(&schema.Result{Tool: r.Tool}) {
			return false, nil // damaged (building names it) or collect's own
		}
	}
	return true, nil
}

// schedulerRuns are the environment variables naming one run of a
// scheduler: the same in every shard (task, pod, job) that run starts,
// new at its next run. The first one set names the round: its prefix and
// its value. CI systems come before Slurm: a runner living in a long
// Slurm allocation sees one SLURM_JOB_ID for many workflow runs, while an
// array submitted from a workflow step shares the workflow's run id too.
var schedulerRuns = []struct{ env, prefix string }{
	// Set by the lab for any other scheduler, such as a Kubernetes
	// Job's name through the downward API (k8s-cronjob-rounds.yaml).
	{"PERFLAB_SCHEDULER_RUN", ""},
	// A GitHub Actions workflow run: every job of its matrix shares it,
	// and so do its re-runs (not GITHUB_RUN_ATTEMPT: "re-run failed
	// jobs" re-runs only the failed shards, which must rejoin the round).
	{"GITHUB_RUN_ID", "gh-"},
	// A GitLab CI pipeline (its jobs, parallel:matrix and retries).
	{"CI_PIPELINE_ID", "gitlab-"},
	// A Slurm job array: the array's job id, the same in every task
	// (each task's SLURM_JOB_ID is its own).
	{"SLURM_ARRAY_JOB_ID", "slurm-"},
	// A Slurm job whose steps (srun) are the shards.
	{"SLURM_JOB_ID", "slurm-"},
}

// SchedulerRound is the round id of the scheduler run this process
// belongs to (ok false outside one): gh-<GITHUB_RUN_ID>,
// slurm-<SLURM_ARRAY_JOB_ID> … (schedulerRuns). The rounds: policy uses
// it instead of the date, because shards of one run may start on both
// sides of midnight (of a week's or month's end: an array's tasks wait
// in the queue) and would land in two rounds; the scheduler's run id is
// the same in every shard, and no shard needs to see another's to know
// it.
func SchedulerRound(lookup func(string) (string, bool)) (id string, ok bool, err error) {
	for _, s := range schedulerRuns {
		v, set := lookup(s.env)
		if v = strings.TrimSpace(v); !set || v == "" {
			continue
		}
		id = s.prefix + strings.ToLower(v)
		if err := schema.CheckRoundID(id); err != nil {
			return "", false, fmt.Errorf("collect: rounds: the scheduler's run id %s=%q: %w", s.env, v, err)
		}
		return id, true, nil
	}
	return "", false, nil
}

// planRound resolves the plan's round and points the plan's runs at the
// round's directory; it returns start, which starts the round when it is
// new (its directory and record). Collect calls start once the runs'
// files and GPUs are checked, so that a collect --new-round stopped by a
// missing dataset leaves no empty round behind (the next --new-round
// would have been .2 beside it, and diff's n: numbers counted it).
func planRound(ctx context.Context, f *File, p *Plan, opt Options, now time.Time) (start func() error, err error) {
	id, create, err := RoundID(p.Campaign, p.Dir, opt, now)
	if err != nil {
		return nil, err
	}
	campaignDir := p.Dir
	p.InRound(schema.RoundDir{ID: id, Dir: schema.RoundPath(p.Dir, id)})
	return func() error {
		if create && id != schema.FirstRound {
			if _, err := schema.CreateRound(campaignDir, NewRoundRecord(ctx, f, id, now)); err != nil {
				return fmt.Errorf("collect: start round %s: %w", id, err)
			}
		}
		return nil
	}, nil
}

// InRound points the plan at round rd: its directory holds the results.
func (p *Plan) InRound(rd schema.RoundDir) {
	p.Round = rd.ID
	if rd.Dir == p.Dir {
		return
	}
	for i := range p.Runs {
		p.Runs[i].Path = filepath.Join(rd.Dir, filepath.Base(p.Runs[i].Path))
	}
	p.Dir = rd.Dir
}

// NewRoundRecord is the record of a round starting now: the campaign
// file's hash, the lab's git commit and the engines the campaign names
// with their images (not versions: see schema.Round).
func NewRoundRecord(ctx context.Context, f *File, id string, now time.Time) *schema.Round {
	c := &f.Campaign
	rec := &schema.Round{ID: id, Start: now.UTC().Format(time.RFC3339), Campaign: c.ID}
	if data, err := os.ReadFile(f.Path); err == nil {
		sum := sha256.Sum256(data)
		rec.CampaignSHA256 = hex.EncodeToString(sum[:])
	}
	rec.GitCommit = gitCommit(ctx, filepath.Dir(f.Path))
	for _, s := range c.Steps {
		for _, e := range s.Experiments {
			rec.Engines = append(rec.Engines, schema.RoundEngine{Experiment: e.ID, Engine: e.Engine, Image: ContainerImage(e.Command)})
		}
	}
	return rec
}

// gitCommit is the HEAD commit of the git work tree holding dir, with
// "-dirty" when it has uncommitted changes; "" outside a git repository
// or without git.
func gitCommit(ctx context.Context, dir string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	commit := strings.TrimSpace(string(out))
	st, err := exec.CommandContext(ctx, "git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output()
	if err == nil && len(strings.TrimSpace(string(st))) > 0 {
		commit += "-dirty"
	}
	return commit
}

// dockerValueFlags are the docker/podman run flags that take a separate
// value (-e KEY=V), so that the image is found as the first argument
// that is neither a flag nor a flag's value.
var dockerValueFlags = map[string]bool{
	"-e": true, "--env": true, "-v": true, "--volume": true, "-p": true, "--publish": true,
	"--name": true, "--gpus": true, "--shm-size": true, "--ipc": true, "--network": true, "--net": true,
	"--runtime": true, "-w": true, "--workdir": true, "--entrypoint": true, "--device": true,
	"--mount": true, "-u": true, "--user": true, "--env-file": true, "--ulimit": true, "-h": true,
	"--hostname": true, "--label": true, "-l": true, "--cpus": true, "-m": true, "--memory": true,
	"--platform": true, "--pull": true, "--cap-add": true, "--security-opt": true, "--add-host": true,
	"--group-add": true, "--log-driver": true, "--restart": true,
}

// ContainerImage returns the image a docker or podman run command runs
// ("" for any other command).
func ContainerImage(command string) string {
	f := strings.Fields(command)
	for i := 0; i+1 < len(f); i++ {
		tool := filepath.Base(f[i])
		if (tool != "docker" && tool != "podman") || f[i+1] != "run" {
			continue
		}
		for j := i + 2; j < len(f); j++ {
			a := f[j]
			switch {
			case a == "\\":
			case dockerValueFlags[a]:
				j++
			case strings.HasPrefix(a, "-"):
			default:
				return strings.Trim(a, `"'`)
			}
		}
	}
	return ""
}
