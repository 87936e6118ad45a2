package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/perflab/perflab/collect/redact"
)

// DefinitionKey hashes what defines a run's numbers: the campaign id,
// the model, the benchmark settings, the experiment's engine, version,
// command, args, environment, GPUs and endpoint, and the profile's
// dataset and traffic shape, as run at load point pt (p is the profile
// as run there: Profile.At for a sweep point or a profile with repeats)
// and repeat. It is the id perflab collect gives the run's result
// (collect.PointKey): a result whose id is not its run's key today was
// measured under an older definition of the run. Display names, notes
// and step titles are left out, so retitling a page does not repeat a
// run; changing a flag does. A profile at one load run once has the key
// of its first definition (committed results keep resolving); the sweep
// field and a repeat index above 0 enter the hash, the number of
// repeats does not (raising repeats keeps the runs already made).
func DefinitionKey(c *Campaign, e *Experiment, p *Profile, pt Point, repeat int) string {
	pp := *p
	pp.Name, pp.Description = "", ""
	pp.Repeats = 0
	bs := c.Bench
	bs.Tool = "" // only how the plan prints commands
	def := struct {
		V        int
		Campaign string
		Model    CampaignModel
		Bench    BenchSpec
		Engine   string
		Version  string
		Command  string
		Args     []string
		Env      map[string]string // json sorts map keys
		GPUs     int
		BaseURL  string
		Profile  Profile
		Sweep    string `json:",omitempty"`
		Repeat   int    `json:",omitempty"`
	}{
		Sweep: pt.Sweep, Repeat: repeat,
		V: 1, Campaign: c.ID, Model: CampaignModel{ID: c.Model.ID, Variants: c.Model.Variants}, Bench: bs,
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

// ProfileAt is profile p as one run of it at load point pt runs it: p
// itself for a profile at one load run once, else a copy at pt with no
// sweep lists and no repeats (Profile.At), as DefinitionKey takes it.
func ProfileAt(p *Profile, pt Point) *Profile {
	if pt.Sweep == "" && p.Repeats == 0 {
		return p
	}
	cp := p.At(pt)
	return &cp
}

// redactArgs is redact.Args keeping nil as nil (a run key must not
// change for campaigns without args).
func redactArgs(args []string) []string {
	if args == nil {
		return nil
	}
	return redact.Args(args)
}
