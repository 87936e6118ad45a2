package render

import (
	"bytes"
	"fmt"
	"html/template"
	"sort"
	"strings"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/alecthomas/chroma/v2/styles"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/charts"
	"github.com/perflab/perflab/render/markdown"
)

// BlockSpec is the YAML inside a ```perflab fenced block (CONTENT.md).
type BlockSpec struct {
	// Block is the block type: comparison, chart, latency-chart, command,
	// step, summary, raw, setup, runs, cases.
	Block      string `yaml:"block"`
	Metric     string `yaml:"metric"`
	Experiment string `yaml:"experiment"`
	Profile    string `yaml:"profile"`
	Step       string `yaml:"step"`
	Title      string `yaml:"title"`
}

// blockTypes lists the block types, for error messages.
const blockTypes = "comparison, chart, latency-chart, command, step, summary, raw, setup, runs, cases"

// pageCtx is the state of one page being rendered.
type pageCtx struct {
	site   *Site
	page   *Page
	rep    *Report
	t      *template.Template
	ids    *markdown.IDs
	charts int
	code   map[string]template.HTML // highlighted commands, by text
}

// bash highlights a command line, once per page (the same serving command
// appears in several blocks).
func (c *pageCtx) bash(cmd string) template.HTML {
	cmd = wrapCommand(cmd)
	if h, ok := c.code[cmd]; ok {
		return h
	}
	if c.code == nil {
		c.code = map[string]template.HTML{}
	}
	h := codeHTML("bash", cmd)
	c.code[cmd] = h
	return h
}

func (c *pageCtx) exec(name string, data any) (template.HTML, error) {
	var buf bytes.Buffer
	if err := c.t.ExecuteTemplate(&buf, name, data); err != nil {
		return "", fmt.Errorf("template %s: %w", name, err)
	}
	return template.HTML(buf.String()), nil
}

// heading returns a heading with a unique id and a permalink.
func (c *pageCtx) heading(level int, text string) template.HTML {
	id := c.ids.Slug(text)
	esc := template.HTMLEscapeString(text)
	return template.HTML(fmt.Sprintf(`<h%d id="%s">%s<a class="headerlink" href="#%s" title="Permanent link">¶</a></h%d>`+"\n", level, id, esc, id, level))
}

// renderBlock renders one block spec. Errors are messages without a
// position; the caller adds file:line.
func (c *pageCtx) renderBlock(spec BlockSpec) (template.HTML, error) {
	if c.rep == nil {
		return "", fmt.Errorf("block %q: this page has no campaign (add campaign.yaml to the bundle or `campaign:` to the front matter)", spec.Block)
	}
	camp := c.rep.Campaign
	if spec.Experiment != "" {
		if _, ok := camp.Experiment(spec.Experiment); !ok {
			return "", fmt.Errorf("block %s: field experiment: unknown experiment %q in %s", spec.Block, spec.Experiment, c.rep.CampaignFile)
		}
	}
	if spec.Profile != "" {
		if _, ok := camp.Profile(spec.Profile); !ok {
			return "", fmt.Errorf("block %s: field profile: unknown profile %q in %s", spec.Block, spec.Profile, c.rep.CampaignFile)
		}
	}
	var metric Metric
	if spec.Metric != "" {
		m, ok := metricByID(spec.Metric)
		if !ok {
			return "", fmt.Errorf("block %s: field metric: unknown metric %q (one of %s)", spec.Block, spec.Metric, metricIDs)
		}
		metric = m
	}
	switch spec.Block {
	case "comparison":
		return c.comparison()
	case "chart":
		if spec.Metric == "" {
			metric, _ = c.rep.primaryMetrics()
		}
		return c.chart(metric, spec.Title)
	case "latency-chart":
		return c.latencyChart(spec.Title)
	case "command":
		id := spec.Experiment
		if id == "" {
			id = camp.Optimized
		}
		e, _ := camp.Experiment(id)
		return c.command(e, spec.Title)
	case "step":
		if spec.Step == "" {
			return "", fmt.Errorf("block step: field step: missing (one of %s)", stepIDs(camp))
		}
		for i := range camp.Steps {
			if camp.Steps[i].ID == spec.Step {
				return c.step(i, false)
			}
		}
		return "", fmt.Errorf("block step: field step: unknown step %q (one of %s)", spec.Step, stepIDs(camp))
	case "summary":
		return c.summary(spec.Profile)
	case "raw":
		if spec.Experiment == "" || spec.Profile == "" {
			return "", fmt.Errorf("block raw: fields experiment and profile are both needed")
		}
		run := c.rep.Run(spec.Experiment, spec.Profile)
		if run == nil {
			return "", fmt.Errorf("block raw: no result for experiment %q on profile %q (expected a file in %s with experiment %q and profile %q)",
				spec.Experiment, spec.Profile, c.rep.ResultsDir, spec.Experiment, spec.Profile)
		}
		e, _ := camp.Experiment(spec.Experiment)
		p, _ := camp.Profile(spec.Profile)
		title := spec.Title
		if title == "" {
			title = "Benchmark result: " + e.Name + " / " + p.Name
		}
		return c.exec("raw", rawDetails{Title: title, Raws: []rawView{c.raw(run, "")}})
	case "setup":
		return c.setup()
	case "runs":
		return c.runs()
	case "cases":
		return c.cases()
	case "":
		return "", fmt.Errorf("field block: missing (one of %s)", blockTypes)
	}
	return "", fmt.Errorf("field block: unknown block type %q (one of %s)", spec.Block, blockTypes)
}

func stepIDs(c *schema.Campaign) string {
	var ids []string
	for _, s := range c.Steps {
		ids = append(ids, s.ID)
	}
	return strings.Join(ids, ", ")
}

// footnotes collects the caveats of a table's runs: each run with caveats
// gets one number, shown next to its numbers, and its caveats are listed
// under the table (benchstat's way of keeping caveats next to, not
// instead of, numbers).
type footnotes struct {
	List []footnote
	idx  map[*Run]int
}

type footnote struct {
	Run   string
	Items []string
}

// add registers run's caveats and returns their note number, 0 if none.
func (f *footnotes) add(c *pageCtx, run *Run) int {
	if run == nil {
		return 0
	}
	if n, ok := f.idx[run]; ok {
		return n
	}
	items := Caveats(run.Result)
	if len(items) == 0 {
		return 0
	}
	if f.idx == nil {
		f.idx = map[*Run]int{}
	}
	f.List = append(f.List, footnote{Run: c.runLabel(run), Items: items})
	f.idx[run] = len(f.List)
	return len(f.List)
}

// refs returns the note references of run (none or one).
func (f *footnotes) refs(c *pageCtx, run *Run) []int {
	if n := f.add(c, run); n > 0 {
		return []int{n}
	}
	return nil
}

// runLabel names a run: "vLLM / ShareGPT".
func (c *pageCtx) runLabel(run *Run) string {
	exp, prof := run.Result.Experiment, run.Result.Profile
	if e, ok := c.rep.Campaign.Experiment(exp); ok {
		exp = e.Name
	}
	if p, ok := c.rep.Campaign.Profile(prof); ok {
		prof = p.Name
	}
	return exp + " / " + prof
}

// cell is one table cell of metric values.
type cell struct {
	Missing string
	Lines   []cellLine
	Notes   []int
	Sort    string
	Bad     bool // partial success or failure: shown with a warning style
}

type cellLine struct {
	Label, Value, PerGPU string
	Delta                template.HTML
	DeltaClass           string
}

// cellOf builds the cell of run for metrics ms. ref, when non-nil, is the
// run the deltas are computed against; gpus and refGPUs the GPU counts
// (throughput is compared per GPU when they differ).
func (c *pageCtx) cellOf(run *Run, ref *Run, ms []Metric, gpus, refGPUs int, fn *footnotes) cell {
	if run == nil {
		return cell{Missing: "no result", Sort: ""}
	}
	res := run.Result
	var out cell
	out.Notes = fn.refs(c, run)
	out.Bad = !successful(res)
	if res.Summary == nil {
		out.Missing = string(res.Status)
		if res.Status == "" {
			out.Missing = "no summary"
		}
		return out
	}
	normalize := ref != nil && gpus != refGPUs
	for i, m := range ms {
		v, ok := m.Value(res.Summary)
		if !ok {
			out.Lines = append(out.Lines, cellLine{Label: m.Label, Value: "—"})
			continue
		}
		l := cellLine{Label: m.Label, Value: fmtNum(v)}
		if normalize && m.PerGPU && gpus > 1 {
			l.PerGPU = fmt.Sprintf("%s per GPU", fmtNum(v/float64(gpus)))
		}
		if i == 0 {
			out.Sort = fmt.Sprintf("%.4f", v)
		}
		if ref != nil && ref != run && ref.Result.Summary != nil && successfulEnough(ref.Result) {
			if rv, ok := m.Value(ref.Result.Summary); ok {
				d := Compare(Normalized(m, rv, refGPUs, normalize), Normalized(m, v, gpus, normalize), m.HigherBetter)
				l.Delta, l.DeltaClass = d.HTML(), d.Class()
			}
		}
		out.Lines = append(out.Lines, l)
	}
	return out
}

// successfulEnough: a reference run must have numbers to compare against.
func successfulEnough(res *schema.Result) bool {
	return res.Summary != nil && res.Summary.Completed > 0
}

// ---- comparison ----

type comparisonView struct {
	Baseline, Optimized string
	BaseGPUs, OptGPUs   int
	Normalized          bool
	Metrics             []Metric
	Rows                []comparisonRow
	Notes               footnotes
}

type comparisonRow struct {
	Profile, Description string
	Base, Opt            cell
}

func (c *pageCtx) comparison() (template.HTML, error) {
	r := c.rep
	be, oe := r.Baseline(), r.Optimized()
	p1, p2 := r.primaryMetrics()
	v := comparisonView{Baseline: be.Name, Optimized: oe.Name, BaseGPUs: r.GPUs(be), OptGPUs: r.GPUs(oe), Metrics: []Metric{p1, p2}}
	v.Normalized = v.BaseGPUs != v.OptGPUs
	for _, p := range r.Campaign.Profiles {
		base, opt := r.Run(be.ID, p.ID), r.Run(oe.ID, p.ID)
		if base == nil && opt == nil {
			continue
		}
		row := comparisonRow{Profile: p.Name, Description: profileDescription(p)}
		row.Base = c.cellOf(base, nil, v.Metrics, v.BaseGPUs, v.BaseGPUs, &v.Notes)
		row.Opt = c.cellOf(opt, base, v.Metrics, v.OptGPUs, v.BaseGPUs, &v.Notes)
		v.Rows = append(v.Rows, row)
	}
	return c.exec("comparison", &v)
}

func profileDescription(p schema.Profile) string {
	if p.Description != "" {
		return p.Description
	}
	var parts []string
	if p.Dataset != "" {
		parts = append(parts, p.Dataset)
	}
	if p.InputLen > 0 || p.OutputLen > 0 {
		parts = append(parts, fmt.Sprintf("%d in / %d out tokens", p.InputLen, p.OutputLen))
	}
	if p.NumPrompts > 0 {
		parts = append(parts, fmt.Sprintf("%d prompts", p.NumPrompts))
	}
	if p.MaxConcurrency > 0 {
		parts = append(parts, fmt.Sprintf("concurrency %d", p.MaxConcurrency))
	}
	if p.RequestRate > 0 {
		parts = append(parts, fmt.Sprintf("%g req/s", p.RequestRate))
	}
	return strings.Join(parts, ", ")
}

// ---- charts ----

func (c *pageCtx) chartHTML(ch charts.Chart, title, caption string) (template.HTML, error) {
	js, err := ch.JSON()
	if err != nil {
		return "", err
	}
	t, cp := template.HTMLEscapeString(title), template.HTMLEscapeString(caption)
	return template.HTML(fmt.Sprintf(`<figure class="chart-figure"><p class="chart-title">%s</p><div class="chart" id="%s" style="height:%dpx" data-chart="%s-option" role="img" aria-label="%s: %s"></div><script type="application/json" id="%s-option">%s</script><figcaption>%s</figcaption></figure>`+"\n",
		t, ch.ID, ch.Height, ch.ID, t, cp, ch.ID, js, cp)), nil
}

func (c *pageCtx) nextChartID(kind string) string {
	c.charts++
	return fmt.Sprintf("chart-%s-%d", kind, c.charts)
}

func (c *pageCtx) chart(m Metric, title string) (template.HTML, error) {
	r := c.rep
	be, oe := r.Baseline(), r.Optimized()
	bg, og := r.GPUs(be), r.GPUs(oe)
	normalize := bg != og && m.PerGPU
	yname := m.Name + " (" + m.Unit + ")"
	if normalize {
		yname = m.Name + " per GPU (" + m.Unit + ")"
	}
	panel := charts.Panel{YName: yname}
	base := charts.Series{Name: "Baseline: " + be.Name}
	opt := charts.Series{Name: "Optimized: " + oe.Name}
	for _, p := range r.Campaign.Profiles {
		bv := c.metricValue(r.Run(be.ID, p.ID), m)
		ov := c.metricValue(r.Run(oe.ID, p.ID), m)
		if bv == nil && ov == nil {
			continue
		}
		if normalize {
			bv, ov = div(bv, bg), div(ov, og)
		}
		panel.Categories = append(panel.Categories, p.Name)
		base.Values = append(base.Values, bv)
		opt.Values = append(opt.Values, ov)
		label := ""
		if bv != nil && ov != nil {
			d := Compare(*bv, *ov, m.HigherBetter)
			label = fmt.Sprintf("%.2f\n%s", *ov, d.String())
		}
		base.Labels = append(base.Labels, "")
		opt.Labels = append(opt.Labels, label)
	}
	panel.Series = []charts.Series{base, opt}
	if title == "" {
		title = r.ModelName() + " on " + r.HardwareLabel() + ": baseline vs optimized"
	}
	caption := m.Name + ", baseline vs optimized, per benchmark case"
	if normalize {
		caption += fmt.Sprintf(" (per GPU: the baseline uses %d GPUs, the optimized configuration %d)", bg, og)
	}
	return c.chartHTML(charts.Bars(c.nextChartID("bar"), charts.Grouped{Panels: []charts.Panel{panel}}), title, caption)
}

func div(v *float64, n int) *float64 {
	if v == nil || n <= 0 {
		return v
	}
	x := *v / float64(n)
	return &x
}

// metricValue returns the metric of a run that has numbers, else nil (a
// gap in the chart; failed runs are not drawn as zero).
func (c *pageCtx) metricValue(run *Run, m Metric) *float64 {
	if run == nil || run.Result.Summary == nil || run.Result.Summary.Completed == 0 {
		return nil
	}
	v, ok := m.Value(run.Result.Summary)
	if !ok {
		return nil
	}
	return &v
}

func (c *pageCtx) latencyChart(title string) (template.HTML, error) {
	r := c.rep
	be, oe := r.Baseline(), r.Optimized()
	var panels []charts.Panel
	for _, id := range []string{"mean_ttft", "mean_tpot", "mean_e2el"} {
		m := mustMetric(id)
		panel := charts.Panel{Title: m.Name + " (" + m.Unit + ")"}
		base := charts.Series{Name: "Baseline: " + be.Name}
		opt := charts.Series{Name: "Optimized: " + oe.Name}
		any := false
		for _, p := range r.Campaign.Profiles {
			bv := c.metricValue(r.Run(be.ID, p.ID), m)
			ov := c.metricValue(r.Run(oe.ID, p.ID), m)
			if bv == nil && ov == nil {
				continue
			}
			any = true
			panel.Categories = append(panel.Categories, p.Name)
			base.Values = append(base.Values, bv)
			opt.Values = append(opt.Values, ov)
			label := ""
			if bv != nil && ov != nil {
				label = fmt.Sprintf("%.2f\n%s", *ov, Compare(*bv, *ov, false).String())
			}
			base.Labels = append(base.Labels, "")
			opt.Labels = append(opt.Labels, label)
		}
		if any {
			panel.Series = []charts.Series{base, opt}
			panels = append(panels, panel)
		}
	}
	if title == "" {
		title = r.ModelName() + " on " + r.HardwareLabel() + ": latency, baseline vs optimized (lower is better)"
	}
	if len(panels) == 0 {
		return `<p class="empty">No latency data recorded yet.</p>`, nil
	}
	return c.chartHTML(charts.Bars(c.nextChartID("latency"), charts.Grouped{Panels: panels}), title, "Latency per benchmark case (ms; lower is better); labels give the optimized value and its change")
}

// ---- commands and raw outputs ----

// codeHTML highlights code with chroma (CSS classes) inside the same
// wrapper as Markdown code blocks (copy button). chroma escapes the text.
func codeHTML(lang, code string) template.HTML {
	lexer := lexers.Get(lang)
	if lexer == nil {
		lexer = lexers.Fallback
	}
	lexer = chroma.Coalesce(lexer)
	var buf bytes.Buffer
	buf.WriteString(`<div class="highlight language-` + template.HTMLEscapeString(lang) + `"><button class="copy" type="button" title="Copy to clipboard" aria-label="Copy to clipboard">Copy</button>`)
	it, err := lexer.Tokenise(nil, code)
	if err == nil {
		err = chromahtml.New(chromahtml.WithClasses(true)).Format(&buf, styles.Fallback, it)
	}
	if err != nil {
		buf.Reset()
		buf.WriteString(`<div class="highlight"><button class="copy" type="button">Copy</button><pre class="chroma"><code>` + template.HTMLEscapeString(code) + `</code></pre>`)
	}
	buf.WriteString("</div>\n")
	return template.HTML(buf.String())
}

type commandView struct {
	Title      string
	Experiment string
	Code       template.HTML
	Open       bool
	Class      string
}

// command renders an experiment's serving command as a code block; a
// title wraps it in an open "tip" details block (the skeleton's "Serving
// Command"). Without one the Markdown can wrap it itself (`???+ tip`).
func (c *pageCtx) command(e *schema.Experiment, title string) (template.HTML, error) {
	code := c.bash(c.rep.Command(e))
	if title == "" {
		return code, nil
	}
	return c.exec("command", commandView{Title: title, Experiment: e.Name, Code: code, Open: true, Class: "tip"})
}

// wrapCommand breaks a long command line before its flags, with shell
// continuations, so that it reads on a phone and still pastes.
func wrapCommand(cmd string) string {
	if len(cmd) <= 90 || strings.Contains(cmd, "\n") {
		return cmd
	}
	fields := strings.Fields(cmd)
	var b strings.Builder
	line := 0
	for i, f := range fields {
		if i > 0 {
			if strings.HasPrefix(f, "-") && line > 0 {
				b.WriteString(" \\\n    ")
				line = 4
			} else {
				b.WriteByte(' ')
				line++
			}
		}
		b.WriteString(f)
		line += len(f)
	}
	return b.String()
}

type rawView struct {
	Label     string
	Text      string
	Generated bool
	Caveats   []string
}

type rawDetails struct {
	Title string
	Raws  []rawView
}

func (c *pageCtx) raw(run *Run, label string) rawView {
	text, gen := RawText(run.Result)
	return rawView{Label: label, Text: text, Generated: gen, Caveats: Caveats(run.Result)}
}

// ---- steps ----

type stepView struct {
	Heading     template.HTML
	Profiles    []string
	Metrics     []Metric
	Reference   string
	Rows        []stepRow
	Ranking     string
	Experiments []expView
	Notes       footnotes
}

type stepRow struct {
	Name, Engine string
	GPUs         int
	Chosen       bool
	Cells        []cell
}

type expView struct {
	Heading template.HTML
	Name    string
	Note    string
	Chosen  bool
	Command template.HTML
	Raw     rawDetails
}

// reference returns the experiment a step's results are compared with:
// the configuration carried into the step (the previous step's chosen
// experiment, or the baseline).
func (r *Report) reference(stepIdx int) *schema.Experiment {
	ref := r.Baseline()
	for i := 0; i < stepIdx; i++ {
		if ch := r.Campaign.Steps[i].Chosen; ch != "" {
			ref, _ = r.Campaign.Experiment(ch)
		}
	}
	return ref
}

func (c *pageCtx) step(i int, withHeadings bool) (template.HTML, error) {
	r := c.rep
	st := r.Campaign.Steps[i]
	ref := r.reference(i)
	p1, p2 := r.primaryMetrics()
	v := stepView{Metrics: []Metric{p1, p2}, Reference: ref.Name}
	if withHeadings {
		v.Heading = c.heading(3, fmt.Sprintf("%d. %s", i+1, st.Title))
	}
	// Columns: the profiles any experiment of the step has a result for.
	var profs []schema.Profile
	for _, p := range r.Campaign.Profiles {
		for _, e := range st.Experiments {
			if r.Run(e.ID, p.ID) != nil {
				profs = append(profs, p)
				break
			}
		}
	}
	for _, p := range profs {
		v.Profiles = append(v.Profiles, p.Name)
	}
	type ranked struct {
		name, note string
		v          float64
		ok         bool
	}
	var ranks []ranked
	for _, e := range st.Experiments {
		e := e
		row := stepRow{Name: e.Name, Engine: EngineName(e.Engine), GPUs: r.GPUs(&e), Chosen: st.Chosen == e.ID}
		for _, p := range profs {
			run := r.Run(e.ID, p.ID)
			var refRun *Run
			if ref.ID != e.ID {
				refRun = r.Run(ref.ID, p.ID)
			}
			row.Cells = append(row.Cells, c.cellOf(run, refRun, v.Metrics, r.GPUs(&e), r.GPUs(ref), &v.Notes))
		}
		v.Rows = append(v.Rows, row)
		if len(profs) > 0 {
			run := r.Run(e.ID, profs[0].ID)
			x := c.metricValue(run, p1)
			switch {
			case x != nil && successful(run.Result):
				ranks = append(ranks, ranked{name: e.Name, v: *x, ok: true})
			case x != nil:
				// Numbers from a partly failed run rank, marked.
				s := run.Result.Summary
				total := max(s.Completed+s.Failed, run.Result.Load.NumPrompts)
				ranks = append(ranks, ranked{name: e.Name, v: *x, ok: true, note: fmt.Sprintf(", only %d of %d requests succeeded", s.Completed, total)})
			case run == nil:
				ranks = append(ranks, ranked{name: e.Name, note: "not run"})
			default:
				ranks = append(ranks, ranked{name: e.Name, note: string(run.Result.Status)})
			}
		}
		ev := expView{Name: e.Name, Note: e.Note, Chosen: row.Chosen, Command: c.bash(r.Command(&e))}
		if withHeadings {
			ev.Heading = c.heading(4, e.Name)
		}
		ev.Raw.Title = "Benchmark result"
		for _, p := range r.profilesOf(&e) {
			if run := r.Run(e.ID, p.ID); run != nil {
				ev.Raw.Raws = append(ev.Raw.Raws, c.raw(run, p.Name))
			}
		}
		v.Experiments = append(v.Experiments, ev)
	}
	if len(ranks) > 1 {
		sort.SliceStable(ranks, func(a, b int) bool {
			if ranks[a].ok != ranks[b].ok {
				return ranks[a].ok
			}
			if p1.HigherBetter {
				return ranks[a].v > ranks[b].v
			}
			return ranks[a].v < ranks[b].v
		})
		var parts []string
		for _, k := range ranks {
			if k.ok {
				parts = append(parts, fmt.Sprintf("%s (%s %s%s)", k.name, fmtNum(k.v), p1.Unit, k.note))
			} else {
				parts = append(parts, k.name+" ("+k.note+")")
			}
		}
		sep := " > "
		if !p1.HigherBetter {
			sep = " < "
		}
		v.Ranking = fmt.Sprintf("%s on %s: %s", p1.Name, profs[0].Name, strings.Join(parts, sep))
	}
	return c.exec("step", &v)
}

// ---- summary of optimization options ----

type summaryView struct {
	Profile    string
	Metric     Metric
	Normalized bool
	Rows       []summaryRow
	Total      *summaryRow
	Notes      footnotes
}

type summaryRow struct {
	Option, Chosen string
	Value          string
	Sort           string
	Inc, Cum       Delta
	Remark         string
	NoteIDs        []int
	Bad            bool
	// Skipped: the step carried nothing forward; its value is shown but
	// the next step is compared with the configuration before it.
	Skipped bool
}

func (c *pageCtx) summary(profileID string) (template.HTML, error) {
	r := c.rep
	camp := r.Campaign
	if profileID == "" {
		profileID = camp.Profiles[0].ID
	}
	prof, _ := camp.Profile(profileID)
	m, _ := r.primaryMetrics()
	v := summaryView{Profile: prof.Name, Metric: m}
	base := r.Baseline()
	// Normalise per GPU when the chosen configurations use different GPU counts.
	counts := map[int]bool{r.GPUs(base): true}
	for _, st := range camp.Steps {
		if e, ok := camp.Experiment(st.Chosen); ok {
			counts[r.GPUs(e)] = true
			continue
		}
		for i := range st.Experiments { // a skipped step shows one of these
			counts[r.GPUs(&st.Experiments[i])] = true
		}
	}
	v.Normalized = len(counts) > 1 && m.PerGPU
	val := func(e *schema.Experiment) (*float64, *Run) {
		run := r.Run(e.ID, prof.ID)
		x := c.metricValue(run, m)
		if x != nil && v.Normalized {
			x = div(x, r.GPUs(e))
		}
		return x, run
	}
	baseV, baseRun := val(base)
	row := summaryRow{Option: "Baseline", Chosen: base.Name}
	if baseV != nil {
		row.Value, row.Sort = fmtNum(*baseV), fmt.Sprintf("%.4f", *baseV)
	} else {
		row.Value = "no result"
	}
	row.NoteIDs = v.Notes.refs(c, baseRun)
	v.Rows = append(v.Rows, row)
	prevV := baseV
	for _, st := range camp.Steps {
		row := summaryRow{Option: st.Title}
		e, ok := camp.Experiment(st.Chosen)
		if !ok {
			// Nothing carried forward: show the step's best try and why
			// it was skipped (GPUStack's "optimization skipped").
			c.skippedStep(&v, &row, st, val, prevV, baseV, m)
			v.Rows = append(v.Rows, row)
			continue
		}
		row.Chosen = e.Name
		x, run := val(e)
		if run != nil {
			row.NoteIDs = v.Notes.refs(c, run)
			row.Bad = !successful(run.Result)
		}
		if x == nil {
			row.Value = "no result"
			v.Rows = append(v.Rows, row)
			continue
		}
		row.Value, row.Sort = fmtNum(*x), fmt.Sprintf("%.4f", *x)
		if prevV != nil {
			row.Inc = Compare(*prevV, *x, m.HigherBetter)
		}
		if baseV != nil {
			row.Cum = Compare(*baseV, *x, m.HigherBetter)
		}
		if e.ID == base.ID {
			row.Remark = "the baseline is kept"
		}
		prevV = x
		v.Rows = append(v.Rows, row)
	}
	if len(v.Rows) > 1 {
		var last summaryRow
		for i := len(v.Rows) - 1; i > 0; i-- {
			if v.Rows[i].Cum.OK && !v.Rows[i].Skipped {
				last = v.Rows[i]
				break
			}
		}
		if last.Cum.OK {
			v.Total = &summaryRow{Option: "Total (vs baseline)", Chosen: last.Chosen, Value: last.Value, Cum: last.Cum}
		}
	}
	return c.exec("summary", &v)
}

// skippedStep fills the summary row of a step that carried nothing
// forward with its best experiment on the summary profile.
func (c *pageCtx) skippedStep(v *summaryView, row *summaryRow, st schema.Step, val func(*schema.Experiment) (*float64, *Run), prevV, baseV *float64, m Metric) {
	var best *schema.Experiment
	var bestV *float64
	var bestRun *Run
	for i := range st.Experiments {
		e := &st.Experiments[i]
		x, run := val(e)
		if x == nil {
			continue
		}
		better := bestV == nil || (successful(run.Result) && !successful(bestRun.Result)) ||
			(successful(run.Result) == successful(bestRun.Result) && (m.HigherBetter && *x > *bestV || !m.HigherBetter && *x < *bestV))
		if better {
			best, bestV, bestRun = e, x, run
		}
	}
	row.Skipped = true
	if best == nil {
		row.Chosen, row.Value, row.Remark = "—", "—", "no result; nothing carried forward"
		return
	}
	row.Chosen = best.Name
	row.Value, row.Sort = fmtNum(*bestV), fmt.Sprintf("%.4f", *bestV)
	row.NoteIDs = v.Notes.refs(c, bestRun)
	row.Bad = !successful(bestRun.Result)
	if prevV != nil {
		row.Inc = Compare(*prevV, *bestV, m.HigherBetter)
	}
	if baseV != nil {
		row.Cum = Compare(*baseV, *bestV, m.HigherBetter)
	}
	s := bestRun.Result.Summary
	switch total := max(s.Completed+s.Failed, bestRun.Result.Load.NumPrompts); {
	case s.Completed < total:
		row.Remark = fmt.Sprintf("only %d of %d requests succeeded; not carried forward", s.Completed, total)
	case row.Inc.OK && row.Inc.Sign < 0:
		row.Remark = "worse than the configuration before it; not carried forward"
	default:
		row.Remark = "not carried forward"
	}
}

// ---- setup ----

type setupView struct {
	Model     template.HTML
	ModelID   string
	Variants  []string
	Hardware  string
	GPUs      []string
	Engines   []schema.EngineSpec
	Profiles  []profileRow
	Tool      string
	Commands  []commandLine
	Objective string
	Headings  map[string]template.HTML
}

type profileRow struct {
	Name, Dataset, Tokens, Prompts, Rate, Concurrency, Seed string
}

type commandLine struct {
	Profile string
	Code    template.HTML
}

func (c *pageCtx) setup() (template.HTML, error) {
	r := c.rep
	camp := r.Campaign
	v := setupView{ModelID: camp.Model.ID, Variants: camp.Model.Variants, Hardware: r.HardwareLabel() + " on a single node", Objective: camp.ObjectiveStatement}
	v.Headings = map[string]template.HTML{}
	for _, h := range []string{"Model", "Hardware", "Engine Version", "Benchmark Profiles", "Benchmark Method"} {
		v.Headings[h] = c.heading(3, h)
	}
	// GPU inventory from the results.
	seen := map[string]bool{}
	for _, run := range r.Runs() {
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
			v.GPUs = append(v.GPUs, desc)
		}
	}
	sort.Strings(v.GPUs)
	for _, e := range r.Engines() {
		v.Engines = append(v.Engines, schema.EngineSpec{Name: EngineName(e.Name), Version: e.Version})
	}
	for _, p := range camp.Profiles {
		row := profileRow{Name: p.Name, Dataset: p.Dataset, Prompts: fmt.Sprint(p.NumPrompts), Rate: "inf", Concurrency: "unlimited", Seed: "—"}
		if p.InputLen > 0 || p.OutputLen > 0 {
			row.Tokens = fmt.Sprintf("%d / %d", p.InputLen, p.OutputLen)
		} else {
			row.Tokens = "from dataset"
		}
		if p.RequestRate > 0 {
			row.Rate = fmt.Sprintf("%g", p.RequestRate)
		}
		if p.MaxConcurrency > 0 {
			row.Concurrency = fmt.Sprint(p.MaxConcurrency)
		}
		if p.Seed != 0 {
			row.Seed = fmt.Sprint(p.Seed)
		}
		v.Profiles = append(v.Profiles, row)
	}
	v.Tool = camp.Bench.Tool
	for _, run := range r.Runs() {
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
				if run := r.Run(e.ID, p.ID); run != nil && run.Result.Load.Command != "" && cmd == "" {
					cmd = run.Result.Load.Command
				}
			}
		}
		if cmd == "" {
			cmd = benchCommand(camp, p, v.Tool)
		}
		v.Commands = append(v.Commands, commandLine{Profile: p.Name, Code: c.bash(cmd)})
	}
	return c.exec("setup", &v)
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
	} else if p.OutputLen > 0 {
		args = append(args, "--sharegpt-output-len", fmt.Sprint(p.OutputLen))
	}
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
	return strings.Join(args, " ")
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
	File                        string
}

func (c *pageCtx) runs() (template.HTML, error) {
	r := c.rep
	var v runsView
	for _, st := range r.Campaign.Steps {
		for _, e := range st.Experiments {
			for _, p := range r.Campaign.Profiles {
				run := r.Run(e.ID, p.ID)
				if run == nil {
					continue
				}
				res := run.Result
				row := runRow{Experiment: e.Name, Profile: p.Name, Status: string(res.Status), Bad: !successful(res), Sort: map[string]string{}}
				if rel, ok := strings.CutPrefix(run.File, c.site.opt.Results+"/"); ok {
					row.File = rel
				} else {
					row.File = run.File
				}
				row.NoteIDs = v.Notes.refs(c, run)
				if s := res.Summary; s != nil {
					total := s.Completed + s.Failed
					if res.Load.NumPrompts > total {
						total = res.Load.NumPrompts
					}
					row.Success = fmt.Sprintf("%d / %d", s.Completed, total)
					if total > 0 {
						row.Sort["success"] = fmt.Sprintf("%.4f", float64(s.Completed)/float64(total))
					}
					put := func(dst *string, key, id string) {
						if x, ok := mustMetric(id).Value(s); ok {
							*dst = fmtNum(x)
							row.Sort[key] = fmt.Sprintf("%.4f", x)
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
				v.Rows = append(v.Rows, row)
			}
		}
	}
	return c.exec("runs", &v)
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

func (c *pageCtx) cases() (template.HTML, error) {
	r := c.rep
	be, oe := r.Baseline(), r.Optimized()
	var v casesView
	for _, p := range r.Campaign.Profiles {
		base, opt := r.Run(be.ID, p.ID), r.Run(oe.ID, p.ID)
		if base == nil && opt == nil {
			continue
		}
		cv := caseView{Heading: c.heading(4, p.Name), Description: profileDescription(p), BaseName: be.Name, OptName: oe.Name,
			BaseCommand: c.bash(r.Command(be)), OptCommand: c.bash(r.Command(oe))}
		cv.BaseRaw.Title = "Baseline benchmark result"
		cv.OptRaw.Title = "Optimized benchmark result"
		if base != nil {
			cv.BaseRaw.Raws = []rawView{c.raw(base, "")}
		}
		if opt != nil {
			cv.OptRaw.Raws = []rawView{c.raw(opt, "")}
		}
		v.Cases = append(v.Cases, cv)
	}
	return c.exec("cases", &v)
}
