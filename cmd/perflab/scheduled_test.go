package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/perflab/perflab/collect/schema"
)

// tinyCampaign is four quick mock experiments, so that four shards each
// have work; it stands in for the examples' GPU campaign.
const tinyCampaign = `id: tiny
model: {id: perflab/mock-8b}
hardware: {gpu: H100, count: 1}
bench: {backend: openai, endpoint: /v1/completions, tokenizer: server}
profiles:
  - {id: short, name: Short, dataset: random, input_len: 16, output_len: 4, num_prompts: 4, seed: 1, args: [--ignore-eos]}
steps:
  - id: engine
    title: Engine
    experiments:
      - {id: a, name: A, engine: mock, command: perflab mock --model perflab/mock-8b --ttft 2ms --itl 1ms}
      - {id: b, name: B, engine: mock, command: perflab mock --model perflab/mock-8b --ttft 3ms --itl 1ms}
      - {id: c, name: C, engine: mock, command: perflab mock --model perflab/mock-8b --ttft 4ms --itl 1ms}
      - {id: d, name: D, engine: mock, command: perflab mock --model perflab/mock-8b --ttft 5ms --itl 1ms}
baseline: a
optimized: b
`

// lab makes a git repository holding the tiny campaign as a report, with
// a bare repository as its origin; it returns the lab's directory.
func lab(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	origin := filepath.Join(dir, "origin.git")
	work := filepath.Join(dir, "lab")
	git := func(d string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = d
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(dir, "init", "-q", "--bare", "-b", "main", origin)
	git(dir, "init", "-q", "-b", "main", work)
	rep := filepath.Join(work, "content", "tiny")
	if err := os.MkdirAll(rep, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(rep, "campaign.yaml"), tinyCampaign)
	writeFile(t, filepath.Join(rep, "index.md"), "---\ntitle: Tiny\ncampaign: campaign.yaml\n---\n")
	git(work, "add", ".")
	git(work, "commit", "-q", "-m", "lab")
	git(work, "remote", "add", "origin", origin)
	git(work, "push", "-q", "-u", "origin", "main")
	return work
}

// withPerflab is the environment with bin's directory first on PATH.
func withPerflab(bin string, extra ...string) []string {
	env := append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return append(env, extra...)
}

// TestGitHubActionsRoundsExample parses the workflow and runs its steps'
// commands, in order, against the mock: two scheduled runs make two
// rounds, each committed and pushed, the second compared with the first
// in the step summary, and the site built. Steps that use an action are
// GitHub's (checkout, Pages) and are not run; the build of perflab is the
// test's own.
func TestGitHubActionsRoundsExample(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds perflab and runs the workflow's commands")
	}
	b, err := os.ReadFile("../../collect/examples/github-actions-rounds.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On struct {
			Schedule []struct{ Cron string } `yaml:"schedule"`
		} `yaml:"on"`
		Env  map[string]string `yaml:"env"`
		Jobs map[string]struct {
			RunsOn any `yaml:"runs-on"`
			Steps  []struct {
				Name string            `yaml:"name"`
				If   string            `yaml:"if"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				Env  map[string]string `yaml:"env"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(b, &wf); err != nil {
		t.Fatal(err)
	}
	if len(wf.On.Schedule) != 1 || len(strings.Fields(wf.On.Schedule[0].Cron)) != 5 {
		t.Fatalf("schedule: %+v", wf.On.Schedule)
	}
	round := wf.Jobs["round"]
	if labels, _ := round.RunsOn.([]any); len(labels) < 2 || labels[0] != "self-hosted" || labels[1] != "gpu" {
		t.Fatalf("runs-on %v, want a self-hosted GPU runner", round.RunsOn)
	}
	if wf.Env["CAMPAIGN"] == "" {
		t.Fatal("no CAMPAIGN in the workflow's env")
	}
	// The push of a round's results runs also when the job is cancelled
	// or times out: a re-run's checkout cleans the workspace, so only
	// pushed results resume.
	pushes := 0
	for _, st := range round.Steps {
		if strings.Contains(st.Run, "git push") {
			pushes++
			if !strings.Contains(st.If, "always()") {
				t.Errorf("step %q pushes the results only when the job goes well (if: %q)", st.Name, st.If)
			}
		}
	}
	if pushes != 1 {
		t.Errorf("%d steps push the results, want 1", pushes)
	}
	bin := buildPerflab(t)
	work := lab(t)
	summary := filepath.Join(t.TempDir(), "summary.md")
	for _, runID := range []string{"1001", "1002"} {
		writeFile(t, summary, "")
		for _, st := range round.Steps {
			if st.Run == "" || strings.Contains(st.Run, "go build") {
				continue
			}
			env := withPerflab(bin, "CAMPAIGN=content/tiny/campaign.yaml", "GITHUB_RUN_ID="+runID,
				"GITHUB_STEP_SUMMARY="+summary, "RUNNER_TEMP="+t.TempDir(), "GITHUB_PATH="+filepath.Join(t.TempDir(), "path"))
			for k, v := range st.Env {
				if strings.Contains(v, "${{") {
					v = "" // an expression of an action's output: the Pages base path, empty for a custom domain
				}
				env = append(env, k+"="+v)
			}
			cmd := exec.Command("bash", "-e", "-c", st.Run)
			cmd.Dir, cmd.Env = work, env
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("run %s, step %q: %v\n%s", runID, st.Name, err, out)
			}
		}
		// The first round has none before it: the summary says why
		// there is no diff.
		if runID == "1001" {
			sum, _ := os.ReadFile(summary)
			for _, want := range []string{"could not compare round gh-1001", "one round only, no previous"} {
				if !strings.Contains(string(sum), want) {
					t.Errorf("run 1001's step summary lacks %q:\n%s", want, sum)
				}
			}
		}
	}
	rounds, err := schema.Rounds(filepath.Join(work, "results", "tiny"))
	if err != nil || len(rounds) != 2 || rounds[0].ID != "gh-1001" || rounds[1].ID != "gh-1002" {
		t.Fatalf("rounds %+v %v", rounds, err)
	}
	log, err := exec.Command("git", "-C", filepath.Join(filepath.Dir(work), "origin.git"), "log", "--format=%s", "main").Output()
	if err != nil || !strings.Contains(string(log), "results: round gh-1002 of content/tiny/campaign.yaml") {
		t.Fatalf("origin's log: %s %v", log, err)
	}
	sum, _ := os.ReadFile(summary)
	if !strings.Contains(string(sum), "**perflab diff**") || !strings.Contains(string(sum), "| a/short |") {
		t.Fatalf("step summary:\n%s", sum)
	}
	if _, err := os.Stat(filepath.Join(work, "site", "tiny", "index.html")); err != nil {
		t.Fatalf("site not built: %v", err)
	}
	// The gate job, on a checkout of what the round job pushed: it passes
	// on run 1002 (an unchanged configuration, single runs), and fails on
	// a run whose round collected nothing (its id names no round), as its
	// comment says. Its "go run ./cmd/perflab" is perflab built from this
	// source, as in the test's lab (which is not a perflab checkout).
	gate := wf.Jobs["gate"]
	if len(gate.Steps) == 0 {
		t.Fatal("no gate job")
	}
	checkout := filepath.Join(t.TempDir(), "gate")
	if out, err := exec.Command("git", "clone", "-q", filepath.Join(filepath.Dir(work), "origin.git"), checkout).CombinedOutput(); err != nil {
		t.Fatalf("clone: %v\n%s", err, out)
	}
	ran := 0
	for _, st := range gate.Steps {
		if st.Run == "" {
			continue
		}
		script := strings.ReplaceAll(st.Run, "go run ./cmd/perflab", "perflab")
		if !strings.Contains(script, "--fail-on regression") {
			t.Fatalf("gate step %q does not gate: %s", st.Name, st.Run)
		}
		for _, c := range []struct {
			runID string
			fails bool
		}{{"1002", false}, {"1003", true}} {
			cmd := exec.Command("bash", "-e", "-c", script)
			cmd.Dir, cmd.Env = checkout, withPerflab(bin, "CAMPAIGN=content/tiny/campaign.yaml", "GITHUB_RUN_ID="+c.runID)
			out, err := cmd.CombinedOutput()
			if (err != nil) != c.fails {
				t.Errorf("gate step %q, run %s: %v (want failure: %v)\n%s", st.Name, c.runID, err, c.fails, out)
			}
		}
		ran++
	}
	if ran == 0 {
		t.Fatal("the gate job runs no command")
	}
}

// TestKubernetesCronJobRoundsExample checks the CronJob (an Indexed Job
// per night whose pods take the round id from their Job's name) and runs
// its container's command line as the Job's shards, one after another,
// with the mock campaign: all four shards fill one round.
func TestKubernetesCronJobRoundsExample(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds perflab and runs the Job's shards")
	}
	b, err := os.ReadFile("../../collect/examples/k8s-cronjob-rounds.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type container struct {
		Command []string `yaml:"command"`
		Args    []string `yaml:"args"`
		Env     []struct {
			Name      string `yaml:"name"`
			ValueFrom struct {
				FieldRef *struct {
					FieldPath string `yaml:"fieldPath"`
				} `yaml:"fieldRef"`
			} `yaml:"valueFrom"`
		} `yaml:"env"`
	}
	var cj struct {
		Kind string `yaml:"kind"`
		Spec struct {
			Schedule          string `yaml:"schedule"`
			ConcurrencyPolicy string `yaml:"concurrencyPolicy"`
			JobTemplate       struct {
				Spec struct {
					CompletionMode string `yaml:"completionMode"`
					Completions    int    `yaml:"completions"`
					Parallelism    int    `yaml:"parallelism"`
					Template       struct {
						Spec struct {
							Containers []container `yaml:"containers"`
						} `yaml:"spec"`
					} `yaml:"template"`
				} `yaml:"spec"`
			} `yaml:"jobTemplate"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(b, &cj); err != nil {
		t.Fatal(err)
	}
	js := cj.Spec.JobTemplate.Spec
	if cj.Kind != "CronJob" || len(strings.Fields(cj.Spec.Schedule)) != 5 || cj.Spec.ConcurrencyPolicy != "Forbid" || js.CompletionMode != "Indexed" {
		t.Fatalf("not a CronJob of Indexed Jobs: %+v", cj)
	}
	c := js.Template.Spec.Containers[0]
	roundFromJob := false
	for _, e := range c.Env {
		if e.Name == "ROUND" && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.labels['batch.kubernetes.io/job-name']" {
			roundFromJob = true
		}
	}
	if !roundFromJob {
		t.Fatal("ROUND does not come from the Job's name label")
	}
	line := c.Args[0]
	m := regexp.MustCompile(`--shard "\$\{JOB_COMPLETION_INDEX\}/(\d+)"`).FindStringSubmatch(line)
	if m == nil || m[1] != "4" || js.Completions != 4 || js.Parallelism != 4 || !strings.Contains(line, `--round "${ROUND}"`) {
		t.Fatalf("args %q, completions %d, parallelism %d", line, js.Completions, js.Parallelism)
	}
	bin := buildPerflab(t)
	work := lab(t)
	results := t.TempDir()
	line = regexp.MustCompile(`content/\S+/campaign\.yaml`).ReplaceAllString(line, "content/tiny/campaign.yaml")
	line = strings.ReplaceAll(line, "/results", results)
	for i := 0; i < 4; i++ {
		cmd := exec.Command(c.Command[0], append(c.Command[1:], line)...)
		cmd.Dir = work
		cmd.Env = withPerflab(bin, "JOB_COMPLETION_INDEX="+string(rune('0'+i)), "ROUND=perflab-nightly-29401234")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, out)
		}
	}
	rounds, err := schema.Rounds(filepath.Join(results, "tiny"))
	if err != nil || len(rounds) != 1 || rounds[0].ID != "perflab-nightly-29401234" || rounds[0].Record == nil || rounds[0].Record.GitCommit == "" {
		t.Fatalf("rounds %+v %v", rounds, err)
	}
	res, err := schema.ReadRoundResults(rounds[0])
	if err != nil || len(res) != 4 {
		t.Fatalf("%d results in the round: %v", len(res), err)
	}
}

// TestSlurmRoundsExample checks the scrontab line (weekly, submitting the
// job array with ROUND set to weekly-<date>) and runs the array's script as
// its tasks with the mock campaign: all tasks join the round given.
func TestSlurmRoundsExample(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end: builds perflab and runs the array's tasks")
	}
	b, err := os.ReadFile("../../collect/examples/slurm-scrontab")
	if err != nil {
		t.Fatal(err)
	}
	var entry []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			entry = append(entry, l)
		}
	}
	if len(entry) != 1 {
		t.Fatalf("want one crontab entry, got %q", entry)
	}
	f := strings.Fields(entry[0])
	// Not the bare date: collect --new-round names a round by the date
	// too, and an array given the id of a round started by hand that day
	// joined it and measured nothing.
	if len(f) < 6 || !strings.Contains(entry[0], `sbatch --export=ALL,ROUND=weekly-$(date -u +\%Y-\%m-\%d) collect/examples/slurm-array.sh`) {
		t.Fatalf("entry %q", entry[0])
	}
	// What cron runs: % unescaped, the date command as the shell runs it.
	round := "weekly-" + strings.TrimSpace(string(must(exec.Command("date", "-u", "+%Y-%m-%d").Output())))
	bin := buildPerflab(t)
	work := lab(t)
	results := t.TempDir()
	script, _ := filepath.Abs("../../collect/examples/slurm-array.sh")
	for i := 0; i < 4; i++ {
		cmd := exec.Command("bash", script)
		cmd.Dir = work
		cmd.Env = withPerflab(bin, "SLURM_ARRAY_TASK_ID="+string(rune('0'+i)), "SLURM_ARRAY_JOB_ID=777",
			"CAMPAIGN=content/tiny/campaign.yaml", "RESULTS="+results, "PERFLAB="+bin, "ROUND="+round)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("task %d: %v\n%s", i, err, out)
		}
	}
	rounds, err := schema.Rounds(filepath.Join(results, "tiny"))
	if err != nil || len(rounds) != 1 || rounds[0].ID != round {
		t.Fatalf("rounds %+v %v", rounds, err)
	}
	if res, err := schema.ReadRoundResults(rounds[0]); err != nil || len(res) != 4 {
		t.Fatalf("%d results in the round: %v", len(res), err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
