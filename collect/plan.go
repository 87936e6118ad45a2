package collect

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/redact"
	"github.com/perflab/perflab/collect/schema"
)

// Run is one (experiment, profile) pair of a campaign.
type Run struct {
	// Index is the run's position in the whole plan (0-based), stable
	// across shards.
	Index      int
	Step       *schema.Step
	Experiment *schema.Experiment
	Profile    *schema.Profile
	// Key is a hash of everything that defines the run's numbers (see
	// RunKey); a result with another key is stale and is run again.
	Key string
	// Name is "<experiment>--<profile>", the result file's base name.
	Name string
	// Path is the result file.
	Path string
}

// Plan is a campaign laid out as runs: steps in order, each experiment's
// profiles together (one engine launch serves them all).
type Plan struct {
	Campaign *schema.Campaign
	// Dir is the campaign's results directory.
	Dir  string
	Runs []Run
}

// NewPlan lays out the runs of a validated campaign whose results go
// below root (results/).
func NewPlan(c *schema.Campaign, root string) *Plan {
	dir := c.Results
	if dir == "" {
		dir = c.ID
	}
	p := &Plan{Campaign: c, Dir: filepath.Join(root, dir)}
	for si := range c.Steps {
		s := &c.Steps[si]
		for ei := range s.Experiments {
			e := &s.Experiments[ei]
			for pi := range c.Profiles {
				pr := &c.Profiles[pi]
				if len(e.Profiles) > 0 && !contains(e.Profiles, pr.ID) {
					continue
				}
				name := e.ID + "--" + pr.ID
				p.Runs = append(p.Runs, Run{
					Index: len(p.Runs), Step: s, Experiment: e, Profile: pr,
					Key: RunKey(c, e, pr), Name: name, Path: filepath.Join(p.Dir, name+".json"),
				})
			}
		}
	}
	return p
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// RunKey hashes what defines a run's numbers: the campaign id, the model,
// the benchmark settings, the experiment's engine, version, command, args,
// environment, GPUs and endpoint, and the profile's dataset and traffic
// shape. Display names, notes and step titles are left out, so retitling
// a page does not repeat a run; changing a flag does.
func RunKey(c *schema.Campaign, e *schema.Experiment, p *schema.Profile) string {
	pp := *p
	pp.Name, pp.Description = "", ""
	bs := c.Bench
	bs.Tool = "" // only how the plan prints commands
	def := struct {
		V        int
		Campaign string
		Model    schema.CampaignModel
		Bench    schema.BenchSpec
		Engine   string
		Version  string
		Command  string
		Args     []string
		Env      map[string]string // json sorts map keys
		GPUs     int
		BaseURL  string
		Profile  schema.Profile
	}{
		V: 1, Campaign: c.ID, Model: schema.CampaignModel{ID: c.Model.ID, Variants: c.Model.Variants}, Bench: bs,
		// Secrets are masked: a rotated HF_TOKEN or API key does not
		// change the numbers, and a key must not let anyone holding the
		// results test guesses of a secret offline.
		Engine: e.Engine, Version: e.Version, Command: redact.New().Command(strings.TrimSpace(e.Command)),
		Args: redactArgs(e.Args), Env: redact.Env(e.Env),
		GPUs: e.GPUs, BaseURL: e.BaseURL, Profile: pp,
	}
	b, _ := json.Marshal(def) // plain data: cannot fail
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// Shard selects the runs of shard i of n (0 ≤ i < n) by rendezvous
// hashing: each unit goes to the shard with the highest hash of (unit,
// shard). The shards are disjoint and together complete; adding runs to
// the campaign never moves an existing run to another shard; and changing
// n moves only the runs whose winning shard changed. The unit is the
// experiment when byExperiment is set (all its profiles share one engine
// launch, the cheap choice for large models) and the run otherwise (finer
// balance).
func (p *Plan) Shard(i, n int, byExperiment bool) []Run {
	if n <= 1 {
		return p.Runs
	}
	var out []Run
	for _, r := range p.Runs {
		unit := p.Campaign.ID + "/" + r.Experiment.ID
		if !byExperiment {
			unit += "/" + r.Profile.ID
		}
		if ShardOf(unit, n) == i {
			out = append(out, r)
		}
	}
	return out
}

// ShardOf returns the shard (0 ≤ shard < n) that unit belongs to by
// rendezvous hashing.
func ShardOf(unit string, n int) int {
	best, bestScore := 0, uint64(0)
	for s := 0; s < n; s++ {
		h := sha256.Sum256([]byte(unit + "\x00" + strconv.Itoa(s)))
		score := binary.BigEndian.Uint64(h[:8])
		if s == 0 || score > bestScore {
			best, bestScore = s, score
		}
	}
	return best
}

// ParseShard reads "I/N": shard I (0-based, as a Kubernetes Indexed
// Job's JOB_COMPLETION_INDEX or a Slurm --array=0-(N-1) task id) of N.
func ParseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("shard %q: want I/N with 0 ≤ I < N", s)
	}
	return i, n, nil
}

// redactArgs is redact.Args keeping nil as nil (a run key must not
// change for campaigns without args).
func redactArgs(args []string) []string {
	if args == nil {
		return nil
	}
	return redact.Args(args)
}
