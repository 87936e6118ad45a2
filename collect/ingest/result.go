package ingest

import (
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/schema"
)

// Options tie imported entries to a campaign. The zero value imports
// stand-alone results: experiment ids from the file names, profile ids
// from the labels (or block-N).
type Options struct {
	// Campaign, when set, is the campaign the results belong to: entries
	// must name one of its experiments and profiles, and the engine, model,
	// load and hardware are taken from them.
	Campaign *schema.Campaign
	// CampaignID tags results without a Campaign (default Campaign.ID).
	CampaignID string
	// Experiment and Profile are the ids for entries that have no
	// `# perflab:` directive naming them.
	Experiment, Profile string
	// Engine and Model override the engine name and model id of every
	// result.
	Engine, Model string
}

// Key is what a result is stored under: <experiment>--<profile>.
func Key(experiment, profile string) string { return experiment + "--" + profile }

// Results converts parsed entries (from one or several files, in order)
// into results. Two entries with the same experiment and profile are an
// error unless their numbers are identical (a page that repeats a run in
// two places); the first is kept.
func Results(entries []Entry, opt Options) ([]*schema.Result, error) {
	campaignID := opt.CampaignID
	if opt.Campaign != nil {
		if campaignID != "" && campaignID != opt.Campaign.ID {
			return nil, fmt.Errorf("import: campaign id %q differs from the campaign file's id %q", campaignID, opt.Campaign.ID)
		}
		campaignID = opt.Campaign.ID
	}
	var out []*schema.Result
	where := map[string]string{}
	byKey := map[string]*schema.Result{}
	group := map[string][]sweepMember{} // runs of one JSON file sharing a key
	block := map[string]int{}
	for i := range entries {
		e := &entries[i]
		block[e.File]++
		exp, prof, err := ids(e, opt, block[e.File])
		if err != nil {
			return nil, err
		}
		r, err := build(e, opt, campaignID, exp, prof)
		if err != nil {
			return nil, err
		}
		loc := fmt.Sprintf("%s:%d", e.File, e.Line)
		key := r.Campaign + "\x00" + r.ID // runs of two campaigns never collide
		if _, ok := byKey[key]; ok {
			// The same numbers as any run already imported under the key
			// (a sweep's point pasted twice, not only its first): once.
			dup := false
			for _, g := range group[key] {
				dup = dup || g.r.Status == r.Status && reflect.DeepEqual(g.r.Summary, r.Summary)
			}
			if dup {
				continue
			}
			first := group[key][0]
			if !sweepable(first.entry, e) && sweepOf(opt.Campaign, prof) == "" {
				return nil, fmt.Errorf("%s: experiment %q profile %q was already imported from %s with different numbers", loc, exp, prof, where[key])
			}
			group[key] = append(group[key], sweepMember{r, e})
			out = append(out, r)
			continue
		}
		byKey[key], where[key] = r, loc
		group[key] = []sweepMember{{r, e}}
		out = append(out, r)
	}
	for _, g := range group {
		if len(g) > 1 {
			sweepPoints(g, sweepOf(opt.Campaign, g[0].r.Profile))
		}
	}
	return out, nil
}

// sweepMember is one result of a group imported under the same key.
type sweepMember struct {
	r     *schema.Result
	entry *Entry
}

// sweepable: several records of one JSON file (a guidellm report's
// benchmarks, vLLM's --append-result lines) for the same experiment and
// profile are the points (and repeats) of a sweep, not a mistake.
func sweepable(a, b *Entry) bool {
	if a.Format == FormatLLMD && b.Format == FormatLLMD {
		return true // reports of one engine configuration and workload
	}
	json := func(f string) bool { return f == FormatVLLMJSON || f == FormatGuideLLMJSON }
	return a.File == b.File && json(a.Format) && json(b.Format)
}

// sweepOf is the load field the campaign's profile prof sweeps, "" for
// none (or no campaign). Outputs of one experiment and a sweep profile
// are its points, wherever they come from (perflab migrate places the
// outputs of one page at several loads so).
func sweepOf(c *schema.Campaign, prof string) string {
	if c == nil {
		return ""
	}
	if p, ok := c.Profile(prof); ok {
		return p.Sweep()
	}
	return ""
}

// sweepPoints marks the results of one group as sweep points: the field
// the campaign's profile sweeps (kind), else the load field with more
// distinct values among the records (max_concurrency on a tie, when every
// record has a cap) is the swept one; records at the
// same point are repeats, in file order. Each result's id becomes the
// name collect gives the point:
// <experiment>--<profile>--c64 or --rate10 (--rateinf), then --r1, --r2
// for repeats. Records that all ran the same load are repeats without a
// sweep.
func sweepPoints(g []sweepMember, kind string) {
	conc, rate := map[int]bool{}, map[float64]bool{}
	capped := true // a concurrency sweep caps every record
	for _, m := range g {
		conc[m.r.Load.MaxConcurrency] = true
		rate[m.r.Load.RequestRate] = true
		capped = capped && m.r.Load.MaxConcurrency > 0
	}
	sweep := kind
	switch {
	case sweep != "":
	case capped && len(conc) > 1 && len(conc) >= len(rate):
		sweep = schema.SweepConcurrency
	case len(rate) > 1:
		sweep = schema.SweepRate
	}
	seen := map[schema.Point]int{}
	for _, m := range g {
		r := m.r
		base := Key(r.Experiment, r.Profile)
		r.Load.Sweep = sweep
		pt := schema.PointOf(r.Load)
		r.Repeat = seen[pt]
		seen[pt]++
		r.ID = base
		if pt.Sweep != "" {
			r.ID += "--" + pt.Slug()
		}
		if r.Repeat > 0 {
			r.ID += "--r" + strconv.Itoa(r.Repeat)
		}
		r.Metadata["sweep_source"] = "one of " + strconv.Itoa(len(g)) + " records of " + filepath.ToSlash(m.entry.File) + " for this experiment and profile"
	}
}

// ids decides the experiment and profile of an entry: directive, then
// options, then (without a campaign) names derived from the source.
func ids(e *Entry, opt Options, n int) (string, string, error) {
	exp, prof := e.Directive["experiment"], e.Directive["profile"]
	if exp == "" {
		exp = opt.Experiment
	}
	if prof == "" {
		prof = opt.Profile
	}
	loc := fmt.Sprintf("%s:%d", e.File, e.Line)
	if c := opt.Campaign; c != nil {
		if exp == "" || prof == "" {
			return "", "", fmt.Errorf("%s: which run is this? pass --experiment and --profile, or put a line \"# perflab: experiment=ID profile=ID\" before the block", loc)
		}
		if _, ok := c.Experiment(exp); !ok {
			return "", "", fmt.Errorf("%s: campaign %q has no experiment %q", dirLoc(e), c.ID, exp)
		}
		if _, ok := c.Profile(prof); !ok {
			return "", "", fmt.Errorf("%s: campaign %q has no profile %q", dirLoc(e), c.ID, prof)
		}
		if ex, _ := c.Experiment(exp); len(ex.Profiles) > 0 && !slices.Contains(ex.Profiles, prof) {
			return "", "", fmt.Errorf("%s: experiment %q of campaign %q runs only profiles %s, not %q (add it to the experiment's profiles if it ran)",
				dirLoc(e), exp, c.ID, strings.Join(ex.Profiles, ", "), prof)
		}
		return exp, prof, nil
	}
	if e.report != nil {
		// A benchmark report names its engine configuration and workload:
		// reports of one file or folder that share them are the points of
		// a sweep, wherever they come from.
		if exp == "" {
			exp = e.report.expHint
		}
		if prof == "" {
			prof = e.report.profHint
		}
	}
	if exp == "" {
		exp = slug(strings.TrimSuffix(filepath.Base(e.File), filepath.Ext(e.File)))
	}
	if prof == "" {
		prof = slug(e.Label)
		if prof == "" {
			prof = "block-" + strconv.Itoa(n)
		}
	}
	if exp == "" {
		exp = "import"
	}
	return exp, prof, nil
}

func dirLoc(e *Entry) string {
	if e.DirectiveLine > 0 {
		return fmt.Sprintf("%s:%d", e.File, e.DirectiveLine)
	}
	return fmt.Sprintf("%s:%d", e.File, e.Line)
}

var reSlug = regexp.MustCompile(`[^a-z0-9.]+`)

// slug makes an id from free text: "random 32K input" → "random-32k-input".
func slug(s string) string {
	return strings.Trim(reSlug.ReplaceAllString(strings.ToLower(s), "-"), "-.")
}

// build makes the result of one entry.
func build(e *Entry, opt Options, campaignID, exp, prof string) (*schema.Result, error) {
	r := &schema.Result{
		SchemaVersion: schema.Version,
		ID:            Key(exp, prof),
		Campaign:      campaignID,
		Experiment:    exp,
		Profile:       prof,
		Status:        schema.StatusOK,
		Load:          e.Load,
		Summary:       e.Summary,
		Requests:      e.Requests,
		RawOutput:     e.Raw,
		Metadata:      map[string]string{"source": fmt.Sprintf("%s:%d", filepath.ToSlash(e.File), e.Line), "source_format": e.Format},
	}
	for k, v := range e.Metadata {
		r.Metadata[k] = v
	}
	if e.Label != "" {
		r.Label = e.Label
		r.Metadata["source_label"] = e.Label
	}
	r.Warnings = append(r.Warnings, e.Notes...)
	switch e.Format {
	case FormatGPUStackText:
		r.Tool = schema.Tool{Name: "guidellm"}
		r.Warnings = append(r.Warnings, "GPUStack-generated block from guidellm data: its TPOT rows are guidellm's time_per_output_token (which includes the first token), \"Maximum request concurrency\" is the measured maximum, and the token totals are mean × successful requests")
	case FormatGuideLLMJSON:
		r.Tool = schema.Tool{Name: "guidellm"}
		r.Warnings = append(r.Warnings, "guidellm metrics: TPOT is guidellm's time_per_output_token (which includes the first token), ITL its inter_token_latency, and the peak output throughput the maximum of an instantaneous rate")
	case FormatSGLangText:
		r.Tool = schema.Tool{Name: SGLangTool}
	case FormatLLMD:
		fromReport(r, e)
	case FormatCrash:
		r.Tool = schema.Tool{Name: "vllm bench serve"}
		r.Status = schema.StatusCrashed
		r.Error = e.Crash + " (as recorded in the source; no benchmark output)"
		r.LogTail = e.Raw
	default:
		r.Tool = schema.Tool{Name: "vllm bench serve"}
	}

	// Engine and model: the campaign's experiment first, then what the
	// source says next to the block, then the flags.
	var ex *schema.Experiment
	var pr *schema.Profile
	if c := opt.Campaign; c != nil {
		ex, _ = c.Experiment(exp)
		pr, _ = c.Profile(prof)
	}
	if ex != nil {
		r.Engine = schema.Engine{Name: ex.Engine, Version: ex.Version, Command: ex.Command, Env: copyMap(ex.Env)}
		if r.Engine.Version == "" {
			for _, es := range opt.Campaign.Engines {
				if es.Name == ex.Engine {
					r.Engine.Version = es.Version
				}
			}
		}
		r.Label = ex.Name + " / " + pr.Name
		if e.Label != "" {
			r.Label += " (" + e.Label + ")"
		}
	}
	if e.Command != "" {
		env, _ := splitEnv(e.Command)
		if ex != nil && ex.Command != "" {
			if normCommand(ex.Command) != normCommand(e.Command) || !reflect.DeepEqual(nonNil(env), nonNil(ex.Env)) {
				r.Warnings = append(r.Warnings, fmt.Sprintf("the serving command next to the output (%s:%d) differs from the experiment's command in the campaign", e.File, e.CommandLine))
			}
		}
		r.Engine.Command = e.Command
		if env != nil {
			r.Engine.Env = env
		}
		r.Metadata["command_source"] = fmt.Sprintf("%s:%d", filepath.ToSlash(e.File), e.CommandLine)
	}
	if r.Engine.Name == "" {
		r.Engine.Name = EngineOf(r.Engine.Command)
	}
	if v := e.Directive["engine"]; v != "" {
		r.Engine.Name = v
	}
	if opt.Engine != "" {
		r.Engine.Name = opt.Engine
	}
	if r.Engine.Name == "" {
		r.Engine.Name = "external"
	}
	if got := EngineOf(r.Engine.Command); got != "" && got != r.Engine.Name {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the serving command launches %s, but the experiment's engine is %s", got, r.Engine.Name))
	}

	r.Model.ID = e.Model
	if r.Model.ID == "" {
		r.Model.ID = ModelOf(r.Engine.Command)
	}
	if v := e.Directive["model"]; v != "" {
		r.Model.ID = v
	}
	if opt.Model != "" {
		r.Model.ID = opt.Model
	}
	if c := opt.Campaign; c != nil {
		if r.Model.ID == "" {
			r.Model.ID = c.Model.ID
		} else if !sameModel(c.Model, r.Model.ID) {
			r.Warnings = append(r.Warnings, fmt.Sprintf("model %s is not the campaign's model %s or one of its variants", r.Model.ID, c.Model.ID))
		}
	}
	if e.report != nil && e.report.own != nil && e.report.own.Model.ID == r.Model.ID {
		// A perflab export: the name it requested and the tokenizer it
		// sized prompts with are its record's (llm-d's model has no field
		// for them).
		r.Model.Served, r.Model.Tokenizer = e.report.own.Model.Served, e.report.own.Model.Tokenizer
	}

	// Load: the profile as configured; what the source itself states wins
	// where it says something.
	if pr != nil {
		l := schema.Load{
			Backend: opt.Campaign.Bench.Backend, Endpoint: opt.Campaign.Bench.Endpoint,
			Dataset: pr.Dataset, DatasetPath: pr.DatasetPath, InputLen: pr.InputLen, OutputLen: pr.OutputLen,
			RangeRatio: pr.RangeRatio, NumPrompts: pr.NumPrompts, RequestRate: pr.RequestRate,
			Burstiness: pr.Burstiness, MaxConcurrency: pr.MaxConcurrency, Seed: pr.Seed,
		}
		if e.Load.Backend != "" {
			l.Backend = e.Load.Backend
		}
		if e.Load.NumPrompts != 0 {
			if l.NumPrompts != 0 && l.NumPrompts != e.Load.NumPrompts {
				r.Warnings = append(r.Warnings, fmt.Sprintf("the source ran %d prompts; the profile says %d", e.Load.NumPrompts, l.NumPrompts))
			}
			l.NumPrompts = e.Load.NumPrompts
		}
		if e.Load.RequestRate != 0 {
			l.RequestRate = e.Load.RequestRate
		}
		if e.Load.MaxConcurrency != 0 {
			l.MaxConcurrency = e.Load.MaxConcurrency
		}
		r.Load = l
		if t := opt.Campaign.Bench.Tool; t != "" && (e.Format == FormatVLLMText || e.Format == FormatCrash) {
			r.Tool.Name = t
		}
		gpus := ex.GPUs
		if gpus == 0 {
			gpus = opt.Campaign.Hardware.Count
		}
		if hw := opt.Campaign.Hardware; hw.GPU != "" || gpus != 0 {
			r.Hardware = &schema.Hardware{GPUName: strings.TrimSpace(hw.Vendor + " " + hw.GPU), GPUCount: gpus}
		}
	}
	r.Warnings = append(r.Warnings, Check(r)...)
	if s := r.Summary; s != nil && e.NoFailedRow && r.Load.NumPrompts > s.Completed+s.Failed {
		r.Warnings = append(r.Warnings, fmt.Sprintf("the output has no \"Failed requests\" row: failed is recorded as 0, and %d of the %d requests are unaccounted for",
			r.Load.NumPrompts-s.Completed, r.Load.NumPrompts))
	}
	if len(r.Warnings) == 0 {
		r.Warnings = nil
	}
	return r, nil
}

// sameModel reports whether id is the campaign's model or a variant.
func sameModel(m schema.CampaignModel, id string) bool {
	if strings.EqualFold(id, m.ID) {
		return true
	}
	for _, v := range m.Variants {
		if strings.EqualFold(id, v) {
			return true
		}
	}
	return false
}

func copyMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
