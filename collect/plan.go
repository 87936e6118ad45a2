package collect

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/schema"
)

// Run is one (experiment, profile, load point, repeat) of a campaign.
type Run struct {
	// Index is the run's position in the whole plan (0-based), stable
	// across shards.
	Index      int
	Step       *schema.Step
	Experiment *schema.Experiment
	// Profile is the profile as run: for a sweep point, a copy with the
	// point's max_concurrency or request_rate set (see Source).
	Profile *schema.Profile
	// Source is the campaign's profile (the sweep, for a sweep point).
	Source *schema.Profile
	// Point is the run's load point (zero for a profile at one load) and
	// Repeat its index among the point's repeats (0-based).
	Point  schema.Point
	Repeat int
	// Key is a hash of everything that defines the run's numbers (see
	// RunKey); a result with another key is stale and is run again.
	Key string
	// Name is the result file's base name: "<experiment>--<profile>",
	// then "--c64" (concurrency) or "--rate10" for a sweep point and
	// "--r1" for the second repeat on. Base is "<experiment>--<profile>".
	Name, Base string
	// Path is the result file.
	Path string
}

// pointName is "<experiment>--<profile>--<point>" (every repeat of a
// sweep point), the base name for a profile at one load.
func (r Run) pointName() string {
	if r.Point.Sweep == "" {
		return r.Base
	}
	return r.Base + "--" + r.Point.Slug()
}

// Plan is a campaign laid out as runs: steps in order, each experiment's
// profiles together (one engine launch serves them all).
type Plan struct {
	Campaign *schema.Campaign
	// Dir is the directory the results go to: the campaign's results
	// directory, or its round's (InRound). Round is the round's id ("":
	// not placed in a round yet, as round 1).
	Dir   string
	Round string
	Runs  []Run
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
				base := e.ID + "--" + pr.ID
				for _, pt := range pr.Points() {
					at := schema.ProfileAt(pr, pt) // one run: no sweep lists, no repeats
					for rep := range pr.RepeatCount() {
						name := schema.RunName(e.ID, pr.ID, pt, rep)
						p.Runs = append(p.Runs, Run{
							Index: len(p.Runs), Step: s, Experiment: e, Profile: at, Source: pr, Point: pt, Repeat: rep,
							Key: PointKey(c, e, at, pt, rep), Name: name, Base: base, Path: filepath.Join(p.Dir, name+".json"),
						})
					}
				}
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

// PointKey is RunKey for one load point and repeat of a profile: p is the
// profile as run at pt (Profile.At). A profile at one load, run once, has
// the key RunKey gives (committed results keep resolving); the sweep
// field and a repeat index above 0 enter the hash, the number of repeats
// does not (raising repeats keeps the runs already made).
func PointKey(c *schema.Campaign, e *schema.Experiment, p *schema.Profile, pt schema.Point, repeat int) string {
	return runKey(c, e, p, pt.Sweep, repeat)
}

// RunKey hashes what defines a run's numbers: the campaign id, the model,
// the benchmark settings, the experiment's engine, version, command, args,
// environment, GPUs and endpoint, and the profile's dataset and traffic
// shape. Display names, notes and step titles are left out, so retitling
// a page does not repeat a run; changing a flag does.
func RunKey(c *schema.Campaign, e *schema.Experiment, p *schema.Profile) string {
	return runKey(c, e, p, "", 0)
}

func runKey(c *schema.Campaign, e *schema.Experiment, p *schema.Profile, sweep string, repeat int) string {
	return schema.DefinitionKey(c, e, p, schema.Point{Sweep: sweep}, repeat)
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
