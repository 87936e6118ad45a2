package blocks

import (
	"bytes"
	"fmt"
	"html/template"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/yuin/goldmark/ast"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/markdown"
	"github.com/perflab/perflab/render/site"
)

// ---- setup ----

type setupView struct {
	Model    template.HTML
	ModelID  string
	Variants []string
	Hardware string
	GPUs     []string
	Engines  []schema.EngineSpec
	Profiles []profileRow
	Tool     string
	Commands []commandLine
	// Rerun is set when a command is perflab bench's for a campaign
	// measured with another tool (guidellm): it re-runs the profile, it
	// did not produce the numbers, and the page says so.
	Rerun     bool
	Objective string
}

// setupSections are the subsections the setup block generates, in order,
// with their templates.
var setupSections = []struct{ title, tmpl string }{
	{"Model", "setup-model"},
	{"Hardware", "setup-hardware"},
	{"Engine Version", "setup-engines"},
	{"Benchmark Profiles", "setup-profiles"},
	{"Benchmark Method", "setup-method"},
}

// setupProse finds the narrative's own subsections of the setup: the
// level-3 headings from n on (up to the next level-1 or -2 heading) whose
// text is one of setupSections' titles, by lower-cased title. The
// generated part of such a subsection goes under the narrative's heading
// instead of under a second heading of the same name (the Qwen3.5 page's
// "Benchmark Method" appeared twice).
func setupProse(doc *markdown.Document, n ast.Node) map[string]*ast.Heading {
	out := map[string]*ast.Heading{}
	for ; n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok {
			continue
		}
		if h.Level <= 2 {
			break
		}
		if h.Level != 3 {
			continue
		}
		key := strings.ToLower(doc.HeadingText(h))
		for _, s := range setupSections {
			if strings.ToLower(s.title) == key && out[key] == nil {
				out[key] = h
			}
		}
	}
	return out
}

type profileRow struct {
	Name, Dataset, Tokens, Prompts, Rate, Concurrency, Seed string
}

type commandLine struct {
	Profile string
	Code    template.HTML
}

// setup renders the Experimental Setup's subsections. Those the narrative
// has a heading of its own for (prose, from setupProse) are not written
// here: their generated part is placed right under the narrative's
// heading, before its text.
func (c *Ctx) setup(w *bytes.Buffer, prose map[string]*ast.Heading) error {
	r := c.rep
	camp := r.Campaign
	v := setupView{ModelID: camp.Model.ID, Variants: camp.Model.Variants, Hardware: r.HardwareLabel() + " on a single node", Objective: camp.ObjectiveStatement}
	v.GPUs = gpuInventory(c.ordered())
	// No GPU telemetry, said once for the page (Caveats leaves it out of
	// each run's notes).
	for _, run := range c.ordered() {
		if i := slices.IndexFunc(run.Result.Warnings, site.TelemetryWarning); i >= 0 {
			v.Hardware += "; no power or energy was recorded (" + run.Result.Warnings[i] + ")"
			break
		}
	}
	for _, e := range site.EnginesOf(r.Campaign, c.ordered()) {
		v.Engines = append(v.Engines, schema.EngineSpec{Name: site.EngineName(e.Name), Version: e.Version})
	}
	for _, p := range camp.Profiles {
		v.Profiles = append(v.Profiles, profileRowOf(p))
	}
	v.Tool = camp.Bench.Tool
	for _, run := range c.ordered() {
		if v.Tool == "" && run.Result.Tool.Name != "" {
			v.Tool = strings.TrimSpace(run.Result.Tool.Name + " " + run.Result.Tool.Version)
		}
	}
	if v.Tool == "" {
		v.Tool = "perflab bench"
	}
	for _, p := range camp.Profiles {
		cmd := ""
		for _, st := range camp.Steps {
			for _, e := range st.Experiments {
				// A sweep's (or repeated profile's) command is the whole
				// sweep's, not one recorded point's.
				if p.Sweep() != "" || p.RepeatCount() > 1 {
					break
				}
				if run := r.Run(e.ID, p.ID); run != nil && run.Result.Load.Command != "" && cmd == "" {
					cmd = run.Result.Load.Command
				}
			}
		}
		if cmd == "" {
			cmd = benchCommand(camp, p, v.Tool)
			if !strings.HasPrefix(v.Tool, "vllm") && !strings.HasPrefix(v.Tool, "perflab") {
				v.Rerun = true
			}
		}
		v.Commands = append(v.Commands, commandLine{Profile: p.Name, Code: c.bash(cmd)})
	}
	for _, s := range setupSections {
		if h := prose[strings.ToLower(s.title)]; h != nil {
			body, err := c.html(func(b *bytes.Buffer) error { return c.execTo(b, s.tmpl, &v) })
			if err != nil {
				return err
			}
			h.Parent().InsertAfter(h.Parent(), h, &markdown.Block{HTML: []byte(body)})
			continue
		}
		c.headingTo(w, 3, s.title)
		if err := c.execTo(w, s.tmpl, &v); err != nil {
			return err
		}
	}
	return nil
}

// benchCommand writes the benchmark command a profile stands for, in the
// flags of `vllm bench serve` (which perflab bench shares).
func benchCommand(c *schema.Campaign, p schema.Profile, tool string) string {
	prog := "perflab bench"
	if strings.HasPrefix(tool, "vllm") {
		prog = "vllm bench serve"
	}
	args := []string{prog, "--model", c.Model.ID}
	if c.Bench.Backend != "" {
		args = append(args, "--backend", c.Bench.Backend)
	}
	if c.Bench.Endpoint != "" {
		args = append(args, "--endpoint", c.Bench.Endpoint)
	}
	if p.Dataset != "" {
		args = append(args, "--dataset-name", p.Dataset)
	}
	if p.DatasetPath != "" {
		args = append(args, "--dataset-path", p.DatasetPath)
	}
	if p.Dataset == "random" {
		if p.InputLen > 0 {
			args = append(args, "--random-input-len", fmt.Sprint(p.InputLen))
		}
		if p.OutputLen > 0 {
			args = append(args, "--random-output-len", fmt.Sprint(p.OutputLen))
		}
		if p.RangeRatio > 0 {
			args = append(args, "--random-range-ratio", fmt.Sprint(p.RangeRatio))
		}
	} else if p.OutputLen > 0 && p.Dataset != "custom" && p.Dataset != "prefix_repetition" && p.Dataset != "timed_trace" {
		// (those three have output lengths of their own: workloadArgs)
		args = append(args, "--sharegpt-output-len", fmt.Sprint(p.OutputLen))
	}
	args = append(args, workloadArgs(p)...)
	args = append(args, "--num-prompts", fmt.Sprint(p.NumPrompts))
	if p.RequestRate > 0 {
		args = append(args, "--request-rate", fmt.Sprintf("%g", p.RequestRate))
	}
	if p.Burstiness > 0 {
		args = append(args, "--burstiness", fmt.Sprintf("%g", p.Burstiness))
	}
	if p.MaxConcurrency > 0 {
		args = append(args, "--max-concurrency", fmt.Sprint(p.MaxConcurrency))
	}
	if p.Seed != 0 {
		args = append(args, "--seed", fmt.Sprint(p.Seed))
	}
	args = append(args, p.Args...)
	if prog == "perflab bench" {
		args = append(args, p.SweepArgs()...)
	}
	return strings.Join(args, " ")
}

// workloadArgs are the flags of a profile's dataset settings other than
// the random and ShareGPT lengths (custom, prefix_repetition,
// timed_trace), its multi-turn sessions and its ramp-up, as perflab
// collect passes them to perflab bench.
func workloadArgs(p schema.Profile) []string {
	var args []string
	num := func(flag string, v int) {
		if v != 0 {
			args = append(args, flag, fmt.Sprint(v))
		}
	}
	ratio := func(flag string, v float64) {
		if v != 0 {
			args = append(args, flag, strconv.FormatFloat(v, 'g', -1, 64))
		}
	}
	switch p.Dataset {
	case "custom":
		num("--custom-output-len", p.CustomOutputLen)
		if p.SkipChatTemplate {
			args = append(args, "--skip-chat-template")
		}
	case "prefix_repetition":
		if v := p.PrefixRepetitionPrefixLen; v != nil {
			args = append(args, "--prefix-repetition-prefix-len", fmt.Sprint(*v))
		}
		if v := p.PrefixRepetitionSuffixLen; v != nil {
			args = append(args, "--prefix-repetition-suffix-len", fmt.Sprint(*v))
		}
		num("--prefix-repetition-num-prefixes", p.PrefixRepetitionNumPrefixes)
		num("--prefix-repetition-output-len", p.PrefixRepetitionOutputLen)
	case "timed_trace":
		num("--timed-trace-chunk-hash-size", p.TimedTraceChunkHashSize)
		ratio("--timed-trace-sec-multiplier", p.TimedTraceSecMultiplier)
		if p.SelfTimed != nil && !*p.SelfTimed {
			args = append(args, "--no-self-timed")
		}
	}
	if p.MultiTurn {
		args = append(args, "--multi-turn")
		num("--multi-turn-num-turns", p.MultiTurnNumTurns)
		num("--multi-turn-min-turns", p.MultiTurnMinTurns)
		num("--multi-turn-max-turns", p.MultiTurnMaxTurns)
		num("--multi-turn-concurrency", p.MultiTurnConcurrency)
		num("--multi-turn-delay-ms", p.MultiTurnDelayMs)
		num("--per-turn-input-len", p.PerTurnInputLen)
		ratio("--multi-turn-prefix-global-ratio", p.MultiTurnPrefixGlobalRatio)
		ratio("--multi-turn-prefix-conversation-ratio", p.MultiTurnPrefixConversationRatio)
	}
	if p.RampUpStrategy != "" {
		args = append(args, "--ramp-up-strategy", p.RampUpStrategy, "--ramp-up-start-rps", fmt.Sprint(p.RampUpStartRPS),
			"--ramp-up-end-rps", fmt.Sprint(p.RampUpEndRPS))
	}
	return args
}

// ---- runs ----

type runsView struct {
	Rows  []runRow
	Notes footnotes
}

type runRow struct {
	Experiment, Profile, Status string
	Success                     string
	TotalTPS, OutputTPS         string
	TTFT, TPOT, ITL             string
	Sort                        map[string]string
	NoteIDs                     []int
	Bad                         bool
	File                        template.HTML // the result file's name, with break opportunities
	Path                        string        // the result file's path under the results directory
	From                        string        // the earlier round a carried run comes from (site.Run.Round)
}

// breakable escapes a result file's name and lets it wrap after each "/"
// and "--", and only there: unbroken, the runs table's last column (the
// path) took a third of the width and squeezed every row to four lines;
// with only <wbr>, a browser also broke inside a part at its hyphen
// ("small-" / "batch"). Each part is a span that does not wrap (.nw).
func breakable(p string) template.HTML {
	var b strings.Builder
	for p != "" {
		cut := len(p)
		if i := strings.Index(p, "/"); i >= 0 {
			cut = i + 1
		}
		if i := strings.Index(p, "--"); i >= 0 && i+2 < cut {
			cut = i + 2
		}
		if b.Len() > 0 {
			b.WriteString("<wbr>")
		}
		b.WriteString(`<span class="nw">`)
		b.WriteString(template.HTMLEscapeString(p[:cut]))
		b.WriteString("</span>")
		p = p[cut:]
	}
	return template.HTML(b.String())
}

func (c *Ctx) runs(w *bytes.Buffer) error {
	r := c.rep
	runs := c.ordered()
	v := runsView{Rows: make([]runRow, 0, len(runs))}
	// Every run in campaign order: a sweep's points in load order, each
	// point's repeats together.
	for _, run := range runs {
		e, _ := r.Campaign.Experiment(run.Result.Experiment)
		p, _ := r.Campaign.Profile(run.Result.Profile)
		v.Rows = append(v.Rows, c.runRow(run, *e, *p, &v))
	}
	return c.execTo(w, "runs", &v)
}

// runRow is one run's row of the runs table; a sweep point's profile
// names its load ("Chat @ concurrency 8"), a repeat its run ("run 2").
func (c *Ctx) runRow(run *Run, e schema.Experiment, p schema.Profile, v *runsView) runRow {
	res := run.Result
	prof := p.Name
	if pt := schema.PointOf(res.Load); pt.Sweep != "" {
		prof += " @ " + pt.String()
	}
	if res.Repeat > 0 || p.RepeatCount() > 1 {
		prof += fmt.Sprintf(" (run %d)", res.Repeat+1)
	}
	row := runRow{Experiment: e.Name, Profile: prof, Status: string(res.Status), Bad: !site.Successful(res) && res.Status != schema.StatusSkipped, Sort: map[string]string{}, From: run.Round}
	if res.Status == schema.StatusSkipped {
		row.Status = "skipped: " + res.Error
	}
	if rel, ok := strings.CutPrefix(run.File, c.env.Results+"/"); ok {
		row.Path = rel
	} else {
		row.Path = run.File
	}
	row.File = breakable(path.Base(row.Path))
	row.NoteIDs = v.Notes.refs(c, run)
	if s := res.Summary; s != nil {
		total := s.Completed + s.Failed
		if res.Load.NumPrompts > total {
			total = res.Load.NumPrompts
		}
		row.Success = strconv.Itoa(s.Completed) + " / " + strconv.Itoa(total)
		if total > 0 {
			row.Sort["success"] = site.SortKey(float64(s.Completed) / float64(total))
		}
		put := func(dst *string, key, id string) {
			if x, ok := site.MustMetric(id).Value(s); ok {
				*dst = site.FmtNum(x)
				row.Sort[key] = site.SortKey(x)
			} else {
				*dst = "—"
			}
		}
		put(&row.TotalTPS, "total", "total_token_throughput")
		put(&row.OutputTPS, "output", "output_throughput")
		put(&row.TTFT, "ttft", "mean_ttft")
		put(&row.TPOT, "tpot", "mean_tpot")
		put(&row.ITL, "itl", "mean_itl")
	} else {
		row.Success, row.TotalTPS, row.OutputTPS, row.TTFT, row.TPOT, row.ITL = "—", "—", "—", "—", "—", "—"
	}
	return row
}

// ---- other benchmark cases ----

type casesView struct {
	Cases []caseView
}

type caseView struct {
	Heading     template.HTML
	Description string
	BaseName    string
	OptName     string
	BaseCommand template.HTML
	OptCommand  template.HTML
	BaseRaw     rawDetails
	OptRaw      rawDetails
}

func (c *Ctx) cases(w *bytes.Buffer) error {
	r := c.rep
	be, oe := r.Baseline(), r.Optimized()
	var v casesView
	for _, p := range r.Campaign.Profiles {
		base, opt := r.Run(be.ID, p.ID), r.Run(oe.ID, p.ID)
		if base == nil && opt == nil {
			continue
		}
		cv := caseView{Heading: c.heading(4, pointLabel(r, p)), Description: profileDescription(p), BaseName: be.Name, OptName: oe.Name,
			BaseCommand: c.bash(r.Command(be)), OptCommand: c.bash(r.Command(oe))}
		cv.BaseRaw.Title = "Baseline benchmark result"
		cv.OptRaw.Title = "Optimized benchmark result"
		// Every repeat of the point, as under each experiment.
		cv.BaseRaw.Raws, cv.OptRaw.Raws = c.pointRaws(base, ""), c.pointRaws(opt, "")
		v.Cases = append(v.Cases, cv)
	}
	return c.execTo(w, "cases", &v)
}

// gpuInventory describes the GPUs the runs recorded, once each, sorted.
func gpuInventory(runs []*Run) []string {
	var gpus []string
	seen := map[string]bool{}
	for _, run := range runs {
		hw := run.Result.Hardware
		if hw == nil {
			continue
		}
		desc := hw.GPUName
		if desc == "" && len(hw.GPUs) > 0 {
			desc = hw.GPUs[0].Name
		}
		if desc == "" {
			continue
		}
		if hw.GPUCount > 0 {
			desc = fmt.Sprintf("%d × %s", hw.GPUCount, desc)
		}
		if len(hw.GPUs) > 0 && hw.GPUs[0].MemoryMiB > 0 {
			desc += fmt.Sprintf(", %d MiB each", hw.GPUs[0].MemoryMiB)
		}
		if hw.DriverVersion != "" {
			desc += ", driver " + hw.DriverVersion
		}
		if hw.CUDAVersion != "" {
			desc += ", CUDA " + hw.CUDAVersion
		}
		if !seen[desc] {
			seen[desc] = true
			gpus = append(gpus, desc)
		}
	}
	sort.Strings(gpus)
	return gpus
}

// profileRowOf is a profile's row in the setup's table of profiles.
func profileRowOf(p schema.Profile) profileRow {
	row := profileRow{Name: p.Name, Dataset: p.Dataset, Prompts: strconv.Itoa(p.NumPrompts), Rate: "inf", Concurrency: "unlimited", Seed: "—"}
	if p.InputLen > 0 || p.OutputLen > 0 {
		row.Tokens = strconv.Itoa(p.InputLen) + " / " + strconv.Itoa(p.OutputLen)
	} else {
		row.Tokens = "from dataset"
	}
	if p.RequestRate > 0 {
		row.Rate = fmt.Sprintf("%g", p.RequestRate)
	}
	if p.MaxConcurrency > 0 {
		row.Concurrency = strconv.Itoa(p.MaxConcurrency)
	}
	if sw := p.Sweep(); sw != "" {
		var vals []string
		for _, pt := range p.Points() {
			v := strconv.FormatFloat(pt.Value, 'f', -1, 64)
			if pt.Value == 0 {
				v = "inf"
			}
			vals = append(vals, v)
		}
		list := "sweep: " + strings.Join(vals, ", ")
		if sw == schema.SweepRate {
			row.Rate = list
		} else {
			row.Concurrency = list
		}
	}
	if n := p.RepeatCount(); n > 1 {
		row.Prompts += fmt.Sprintf(" (× %d runs)", n)
	}
	if p.Seed != 0 {
		row.Seed = strconv.FormatInt(p.Seed, 10)
	}
	return row
}
