package migrate

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
)

// campaign assembles the inferred campaign.
func (m *migration) campaign(id string) *schema.Campaign {
	p := m.p
	c := &schema.Campaign{ID: id, Model: m.model, Bench: m.bench}
	for _, h := range p.heads {
		if h.level == 1 {
			c.Title = h.title
			break
		}
	}
	if t, ok := m.fm["title"].(string); ok && c.Title == "" {
		c.Title = t // a page titled by its front matter only
	}
	if from, to := p.sectionNamed("Optimization Objective", "Objective"); from >= 0 {
		if ls, _ := p.contentLines(from, to); len(ls) > 0 {
			c.ObjectiveStatement = ls[0]
			lt := strings.ToLower(ls[0])
			switch {
			case strings.Contains(lt, "throughput"):
				c.Objective = "throughput"
			case strings.Contains(lt, "latency"):
				c.Objective = "latency"
			}
		}
	} else if strings.Contains(strings.ToLower(c.Title), "throughput") {
		c.Objective = "throughput"
	} else if strings.Contains(strings.ToLower(c.Title), "latency") {
		c.Objective = "latency"
	}
	if m.generator {
		c.Bench.Tool = "guidellm"
	} else {
		// The client that printed the page's outputs: vLLM's, else SGLang's.
		for _, e := range m.entries {
			switch {
			case e.Format == ingest.FormatVLLMText:
				c.Bench.Tool = "vllm bench serve"
			case e.Format == ingest.FormatSGLangText && c.Bench.Tool == "":
				c.Bench.Tool = ingest.SGLangTool
			}
		}
	}
	c.Engines = m.setup.engines
	// Engines the commands use but the page does not list.
	for _, x := range m.exps {
		found := false
		for _, es := range c.Engines {
			found = found || es.Name == x.Engine
		}
		if !found && x.Engine != "external" {
			if v := ingest.ImageVersion(x.Command); v != "" {
				// A container's image tag: vllm/vllm-openai:v0.11.0.
				c.Engines = append(c.Engines, schema.EngineSpec{Name: x.Engine, Version: v})
				m.note(x.firstIdx, "engine %s %s from the image tag of experiment %s's container", x.Engine, v, x.ID)
				continue
			}
			c.Engines = append(c.Engines, schema.EngineSpec{Name: x.Engine})
			m.ambiguous(x.firstIdx, "engine", "engine %s is used by experiment %s but the page gives no version for it", x.Engine, x.ID)
		}
	}
	// Hardware: the section's GPU, the count from the commands.
	c.Hardware = schema.HardwareSpec{Vendor: m.setup.hwVendor, GPU: m.setup.hwGPU, Count: m.setup.hwCount}
	maxG := 0
	for _, x := range m.exps {
		if g := gpusOf(x.Command); g > maxG {
			maxG = g
		}
	}
	if c.Hardware.Count == 0 {
		c.Hardware.Count = maxG
		if c.Hardware.Count == 0 {
			c.Hardware.Count = 1
			m.note(0, "GPU count 1: no command sets a parallel size and the Hardware section gives no count")
		} else {
			m.note(0, "GPU count %d: the largest parallel size the commands set", maxG)
		}
	}
	if c.Hardware.GPU == "" {
		c.Hardware.GPU = "unknown"
		m.ambiguous(0, "hardware", "the page has no Hardware section naming its GPU")
	}
	// Profiles: those used, with prompt counts from the outputs where the
	// page gives none.
	used := map[string]bool{}
	maxReq := map[string]int{}
	for i, pl := range m.places {
		used[pl.profile] = true
		if s := m.entries[i].Summary; s != nil && s.Completed+s.Failed > maxReq[pl.profile] {
			maxReq[pl.profile] = s.Completed + s.Failed
		}
	}
	for _, pr := range m.profiles {
		if !used[pr.ID] {
			m.note(0, "profile %s is described on the page but no output uses it; kept out of the campaign", pr.ID)
			continue
		}
		if pr.NumPrompts == 0 {
			pr.NumPrompts = maxReq[pr.ID]
			m.note(0, "profile %s: %d prompts, the most requests one of its outputs counts", pr.ID, pr.NumPrompts)
		}
		c.Profiles = append(c.Profiles, pr)
	}
	if used["unassigned"] {
		c.Profiles = append(c.Profiles, schema.Profile{ID: "unassigned", Name: "Unassigned", Dataset: "unknown", NumPrompts: maxReq["unassigned"]})
	}
	// Experiments: profiles they ran, in campaign order.
	ran := map[*exp]map[string]bool{}
	for _, pl := range m.places {
		if ran[pl.exp] == nil {
			ran[pl.exp] = map[string]bool{}
		}
		ran[pl.exp][pl.profile] = true
	}
	var other *step
	var unassigned *step
	for _, x := range m.exps {
		if ran[x] == nil {
			continue
		}
		for _, pr := range c.Profiles {
			if ran[x][pr.ID] {
				x.Profiles = append(x.Profiles, pr.ID)
			}
		}
		if x.GPUs == c.Hardware.Count && !anyDiffers(m.exps, c.Hardware.Count) {
			x.GPUs = 0
		}
		switch {
		case x.unassigned:
			if unassigned == nil {
				unassigned = &step{idx: 1 << 30}
				unassigned.ID, unassigned.Title = "unassigned", "Unassigned outputs"
			}
			unassigned.Experiments = append(unassigned.Experiments, x.Experiment)
		case x.step != nil:
			x.step.Experiments = append(x.step.Experiments, x.Experiment)
		default:
			if other == nil {
				other = &step{idx: 1 << 29}
				other.ID, other.Title = "other", "Other configurations"
			}
			other.Experiments = append(other.Experiments, x.Experiment)
			m.ambiguous(x.firstIdx, "step", "experiment %s appears outside the optimization steps only; it is put in a step of its own", x.ID)
		}
	}
	steps := append([]*step{}, m.steps...)
	if other != nil {
		steps = append(steps, other)
	}
	if unassigned != nil {
		steps = append(steps, unassigned)
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].idx < steps[j].idx })
	for _, s := range steps {
		if len(s.Experiments) > 0 {
			c.Steps = append(c.Steps, s.Step)
		}
	}
	// Baseline and optimized.
	for _, x := range m.exps {
		if x.role == "baseline" && c.Baseline == "" && ran[x] != nil {
			c.Baseline = x.ID
			m.note(x.firstIdx, "baseline %s: the \"Baseline\" script or parameters", x.ID)
		}
	}
	if c.Baseline == "" {
		for _, x := range m.exps {
			if !x.unassigned && ran[x] != nil {
				c.Baseline = x.ID
				m.note(x.firstIdx, "baseline %s: the page's first experiment", x.ID)
				break
			}
		}
	}
	if c.Baseline == "" && len(c.Steps) > 0 {
		// Nothing was placed: the report still needs a baseline.
		c.Baseline = c.Steps[0].Experiments[0].ID
		m.ambiguous(0, "role", "no output could be placed in an experiment; baseline and optimized are the unassigned %s", c.Baseline)
	}
	if m.recommend != "" {
		if x, ok := m.byKey[cmdKey(m.recommend)]; ok && ran[x] != nil {
			for _, y := range m.exps {
				if y.occBase == x && y.role == "optimized" && ran[y] != nil {
					x = y // the recommended configuration's "Optimized" runs
					break
				}
			}
			c.Optimized = x.ID
			m.note(m.recIdx, "optimized %s: the Conclusion's recommended command", x.ID)
		} else {
			m.ambiguous(m.recIdx, "role", "the recommended command matches no experiment with an output")
		}
	}
	if c.Optimized == "" {
		for _, x := range m.exps {
			if x.role == "optimized" && ran[x] != nil {
				c.Optimized = x.ID
				m.note(x.firstIdx, "optimized %s: the \"Optimized\" script or parameters", x.ID)
				break
			}
		}
	}
	m.chooseSteps(c)
	if c.Optimized == "" {
		for i := len(c.Steps) - 1; i >= 0 && c.Optimized == ""; i-- {
			c.Optimized = c.Steps[i].Chosen
		}
		if c.Optimized == "" {
			c.Optimized = c.Baseline
		}
		if !strings.HasPrefix(c.Optimized, "unassigned") {
			m.ambiguous(0, "role", "no recommended command or \"Optimized\" label: optimized is %s (the last step's best)", c.Optimized)
		}
	}
	return c
}

func anyDiffers(xs []*exp, n int) bool {
	for _, x := range xs {
		if x.GPUs != 0 && x.GPUs != n {
			return true
		}
	}
	return false
}

// chooseSteps marks each step's chosen experiment: the best total token
// throughput on the profile the step's outputs share; a step of one
// experiment is chosen only when it beats the previous choice.
func (m *migration) chooseSteps(c *schema.Campaign) {
	tput := map[string]map[string]float64{}
	for i, pl := range m.places {
		s := m.entries[i].Summary
		if s == nil || pl.exp == nil {
			continue
		}
		if tput[pl.exp.ID] == nil {
			tput[pl.exp.ID] = map[string]float64{}
		}
		// A run that lost requests is no candidate ("success rate 51.6%,
		// optimization skipped").
		// A sweep's points each ran their own number of prompts (10 at
		// concurrency 1, 2560 at 256): a point lost those its output
		// counts as failed, not those short of the profile's prompts.
		if pr, ok := c.Profile(pl.profile); ok {
			want := pr.NumPrompts
			if pr.Sweep() != "" {
				want = s.Completed + s.Failed
			}
			if want > 0 && float64(s.Completed) < 0.95*float64(want) {
				m.note(m.entries[i].Line-1, "experiment %s is not a candidate for its step's choice: %d of %d requests completed", pl.exp.ID, s.Completed, want)
				continue
			}
		}
		if _, ok := tput[pl.exp.ID][pl.profile]; !ok {
			tput[pl.exp.ID][pl.profile] = s.TotalTokenThroughput
		}
	}
	prev := ""
	prevProf := ""
	for si := range c.Steps {
		s := &c.Steps[si]
		if s.ID == "unassigned" {
			continue
		}
		count := map[string]int{}
		prof := ""
		for _, x := range s.Experiments {
			for _, pid := range x.Profiles {
				count[pid]++
				if prof == "" || count[pid] > count[prof] {
					prof = pid
				}
			}
		}
		best, bestV := "", -1.0
		for _, x := range s.Experiments {
			if v, ok := tput[x.ID][prof]; ok && v > bestV {
				best, bestV = x.ID, v
			}
		}
		if best == "" {
			continue
		}
		if len(s.Experiments) == 1 && prev != "" && prevProf == prof {
			if v, ok := tput[prev][prof]; ok && v >= bestV {
				continue
			}
		}
		s.Chosen = best
		prev, prevProf = best, prof
	}
}

// results imports the entries as results of the campaign.
func (m *migration) results(c *schema.Campaign) error {
	for i := range m.entries {
		e := &m.entries[i]
		pl := m.places[i]
		e.Directive = map[string]string{"experiment": pl.exp.ID, "profile": pl.profile}
		if m.generator || pl.exp.unassigned {
			e.Command, e.CommandLine = "", 0
		}
		if m.generator && !pl.exp.unassigned {
			e.Command = pl.exp.Command
			e.CommandLine = pl.exp.firstIdx + 1
		}
		e.File = m.srcRef
	}
	rs, err := ingest.Results(m.entries, ingest.Options{Campaign: c})
	if err != nil {
		// The entries name the verbatim copy (results/<id>/src/…): the
		// report names the page migrated, at its own lines.
		msg := reSrcLoc.ReplaceAllStringFunc(err.Error(), func(loc string) string {
			if !strings.HasPrefix(loc, m.srcRef+":") {
				return loc
			}
			return m.out.Source + strings.TrimPrefix(m.fixLine(loc), m.srcRef)
		})
		return fmt.Errorf("migrate: %s", msg)
	}
	// Source references: the verbatim copy's own line numbers.
	for _, r := range rs {
		for _, k := range []string{"source", "command_source"} {
			if v, ok := r.Metadata[k]; ok {
				r.Metadata[k] = m.fixLine(v)
			}
		}
		r.Metadata["migrated_from"] = m.out.Source
		if strings.HasPrefix(r.Experiment, "unassigned") {
			for i, pl := range m.places {
				if pl.exp.ID == r.Experiment {
					r.Warnings = append(r.Warnings, "migrate: this output could not be placed ("+pl.reason+"); it is kept as an unassigned run "+m.p.loc(m.entries[i].Line-1))
				}
			}
		}
	}
	m.out.Results = rs
	return nil
}

// reSrcLoc is a FILE:LINE in an error.
var reSrcLoc = regexp.MustCompile(`\S+:\d+`)

// fixLine maps "file:N" (a line of the re-broken page) to the source line.
func (m *migration) fixLine(v string) string {
	i := strings.LastIndexByte(v, ':')
	if i < 0 {
		return v
	}
	var n int
	if _, err := fmt.Sscan(v[i+1:], &n); err != nil || n < 1 || n > len(m.p.orig) {
		return v
	}
	return v[:i] + ":" + fmt.Sprint(m.p.orig[n-1])
}

var _ = path.Base
