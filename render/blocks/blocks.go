package blocks

import (
	"bytes"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/render/inputs"
	"github.com/perflab/perflab/render/site"

	"github.com/yuin/goldmark/ast"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/schema/campaignfile"
	"github.com/perflab/perflab/render/markdown"
)

// blockTypes lists the block types, for error messages.
const blockTypes = "comparison, chart, latency-chart, curve, latency-curve, slo, command, step, summary, raw, setup, runs, cases, history, telemetry"

// Ctx is the state of one page being rendered: what its blocks share.
type Ctx struct {
	env  *Env
	page *Page
	rep  *Report
	// in is how a block reads a file: what it reads is recorded, and
	// part of the page's cache key (pagecache.go), by construction.
	in     *inputs.Reader
	t      *template.Template
	ids    *markdown.IDs
	charts int
	code   map[string]template.HTML // highlighted commands, by text
	// setupProse holds the narrative's setup subsections that follow the
	// setup block being rendered (see setupProse).
	setupProse map[string]*ast.Heading
	// Per page, as the blocks ask for them again and again: the report's
	// runs in campaign order (Report.Runs sorts them each time) and its
	// primary metrics.
	runList        []*Run
	p1, p2         Metric
	primaryDecided bool
}

// ordered is c.rep.Runs(), computed once per page.
func (c *Ctx) ordered() []*Run {
	if c.runList == nil {
		c.runList = c.rep.Runs()
	}
	return c.runList
}

// primary is c.rep.PrimaryMetrics(), decided once per page.
func (c *Ctx) primary() (Metric, Metric) {
	if !c.primaryDecided {
		c.p1, c.p2 = c.rep.PrimaryMetrics()
		c.primaryDecided = true
	}
	return c.p1, c.p2
}

// bash highlights a command line, once per page (the same serving command
// appears in several blocks).
func (c *Ctx) bash(cmd string) template.HTML {
	cmd = wrapCommand(cmd)
	if h, ok := c.code[cmd]; ok {
		return h
	}
	if c.code == nil {
		c.code = map[string]template.HTML{}
	}
	h := codeHTML(c.env.Chroma, "bash", cmd)
	c.code[cmd] = h
	return h
}

// exec returns what template name writes for data.
func (c *Ctx) exec(name string, data any) (template.HTML, error) {
	return c.html(func(w *bytes.Buffer) error { return c.execTo(w, name, data) })
}

// execTo executes template name for data into w.
func (c *Ctx) execTo(w *bytes.Buffer, name string, data any) error {
	if err := execTemplate(c.t, w, name, data); err != nil {
		return fmt.Errorf("template %s: %w", name, err)
	}
	return nil
}

// html returns what write writes (into a lent buffer). The blocks write
// into the page's buffer as they go; this is for the HTML a view holds.
func (c *Ctx) html(write func(w *bytes.Buffer) error) (template.HTML, error) {
	b := c.env.Bufs.Get()
	defer c.env.Bufs.Put(b)
	if err := write(b); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}

// writeHTML writes h, or returns err.
func writeHTML(w *bytes.Buffer, h template.HTML, err error) error {
	if err != nil {
		return err
	}
	w.WriteString(string(h))
	return nil
}

// heading returns a heading with a unique id and a permalink.
func (c *Ctx) heading(level int, text string) template.HTML {
	b := c.env.Bufs.Get()
	defer c.env.Bufs.Put(b)
	c.headingTo(b, level, text)
	return template.HTML(b.String())
}

// headingTo writes a heading with a unique id and a permalink.
func (c *Ctx) headingTo(w *bytes.Buffer, level int, text string) {
	id := c.ids.Slug(text)
	var nb [4]byte
	n := strconv.AppendInt(nb[:0], int64(level), 10)
	w.WriteString("<h")
	w.Write(n)
	w.WriteString(` id="`)
	w.WriteString(id)
	w.WriteString(`">`)
	htmlEscape(w, text)
	w.WriteString(`<a class="headerlink" href="#`)
	w.WriteString(id)
	w.WriteString(`" title="Permanent link">¶</a></h`)
	w.Write(n)
	w.WriteString(">\n")
}

// Func writes a block of a type not built in (Env.Extra).
type Func func(c *Ctx, w *bytes.Buffer, spec BlockSpec) error

// renderBlock writes one block spec into w. Errors are messages without
// a position; the caller adds file:line.
func (c *Ctx) renderBlock(w *bytes.Buffer, spec BlockSpec) error {
	if f, ok := c.env.Extra[spec.Block]; ok {
		return f(c, w, spec)
	}
	if c.rep == nil {
		return fmt.Errorf("block %q: this page has no campaign (add campaign.yaml to the bundle or `campaign:` to the front matter)", spec.Block)
	}
	camp := c.rep.Campaign
	if spec.Experiment != "" {
		if _, ok := camp.Experiment(spec.Experiment); !ok {
			return fmt.Errorf("block %s: field experiment: unknown experiment %q in %s", spec.Block, spec.Experiment, c.rep.CampaignFile)
		}
	}
	if spec.Profile != "" {
		if _, ok := camp.Profile(spec.Profile); !ok {
			return fmt.Errorf("block %s: field profile: unknown profile %q in %s", spec.Block, spec.Profile, c.rep.CampaignFile)
		}
	}
	var metric Metric
	if spec.Metric != "" {
		m, ok := site.MetricByID(spec.Metric)
		if !ok {
			return fmt.Errorf("block %s: field metric: unknown metric %q (one of %s)", spec.Block, spec.Metric, site.MetricIDs)
		}
		metric = m
	}
	switch spec.Block {
	case "comparison":
		return c.comparison(w)
	case "chart":
		if spec.Metric == "" {
			metric, _ = c.primary()
		}
		return c.chart(w, metric, spec.Title)
	case "latency-chart":
		return c.latencyChart(w, spec.Title)
	case "curve":
		h, err := c.curve(spec)
		return writeHTML(w, h, err)
	case "latency-curve":
		h, err := c.latencyCurve(spec)
		return writeHTML(w, h, err)
	case "slo":
		h, err := c.slo(spec)
		return writeHTML(w, h, err)
	case "command":
		id := spec.Experiment
		if id == "" {
			id = camp.Optimized
		}
		e, _ := camp.Experiment(id)
		return c.command(w, e, spec.Title)
	case "step":
		if spec.Step == "" {
			return fmt.Errorf("block step: field step: missing (one of %s)", stepIDs(camp))
		}
		for i := range camp.Steps {
			if camp.Steps[i].ID == spec.Step {
				return c.step(w, i, false)
			}
		}
		return fmt.Errorf("block step: field step: unknown step %q (one of %s)", spec.Step, stepIDs(camp))
	case "summary":
		return c.summary(w, spec.Profile)
	case "raw":
		return c.rawBlock(w, spec)
	case "setup":
		return c.setup(w, c.setupProse)
	case "runs":
		return c.runs(w)
	case "cases":
		return c.cases(w)
	case "history":
		return c.historyBlock(w, spec.Title) // history.go
	case "telemetry":
		return c.telemetryBlock(w, spec) // telemetry.go
	case "":
		return fmt.Errorf("field block: missing (one of %s)", blockTypes)
	}
	guess := ""
	if near := campaignfile.Nearest(spec.Block, strings.Split(blockTypes, ", ")); near != "" {
		guess = " (did you mean " + near + "?)"
	}
	return fmt.Errorf("field block: unknown block type %q%s (one of %s)", spec.Block, guess, blockTypes)
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
func (f *footnotes) add(c *Ctx, run *Run) int {
	if run == nil {
		return 0
	}
	if n, ok := f.idx[run]; ok {
		return n
	}
	items := site.Caveats(run.Result)
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
func (f *footnotes) refs(c *Ctx, run *Run) []int {
	if n := f.add(c, run); n > 0 {
		return []int{n}
	}
	return nil
}

// runLabel names a run: "vLLM / ShareGPT".
func (c *Ctx) runLabel(run *Run) string {
	exp, prof := run.Result.Experiment, run.Result.Profile
	if e, ok := c.rep.Campaign.Experiment(exp); ok {
		exp = e.Name
	}
	repeats := 1
	if p, ok := c.rep.Campaign.Profile(prof); ok {
		prof, repeats = p.Name, p.RepeatCount()
	}
	// A sweep point and a repeat share the experiment and the profile:
	// name them too (as the runs table does).
	if pt := schema.PointOf(run.Result.Load); pt.Sweep != "" {
		prof += " @ " + pt.String()
	}
	if run.Result.Repeat > 0 || repeats > 1 {
		prof += fmt.Sprintf(" (run %d)", run.Result.Repeat+1)
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
	// Judged: a delta of the cell is one the U test does not show
	// (Delta.Untested or Noise); the table's legend then says so.
	Judged bool
}

type cellLine struct {
	// Spread is the "± 2.1%" (CV) after a mean Value, its own unbreakable
	// part: a narrow column may put it under the mean rather than widen
	// the table past a phone's screen.
	Label, Value, Spread, PerGPU string
	Delta                        template.HTML
	DeltaClass                   string
}

// cellOf builds the cell of run for metrics ms. ref, when non-nil, is the
// run the deltas are computed against; gpus and refGPUs the GPU counts
// (throughput is compared, and shown, per GPU when they differ; the
// reference's own cell passes the other side's count so that both sides
// show the per-GPU value the delta compares).
func (c *Ctx) cellOf(run *Run, ref *Run, ms []Metric, gpus, refGPUs int, fn *footnotes) cell {
	if run == nil {
		return cell{Missing: "no result", Sort: ""}
	}
	res := run.Result
	var out cell
	out.Notes = fn.refs(c, run)
	out.Bad = !site.Successful(res)
	if res.Summary == nil {
		out.Missing = string(res.Status)
		if res.Status == "" {
			out.Missing = "no summary"
		}
		return out
	}
	normalize := gpus != refGPUs
	for i, m := range ms {
		// At a point with repeats, the mean over them (as the comparison
		// table and the curves show it).
		v, n, ok := c.rep.PointValue(run, m)
		if !ok {
			out.Lines = append(out.Lines, cellLine{Label: m.LabelFor(res), Value: "—"})
			continue
		}
		l := cellLine{Label: m.LabelFor(res), Value: site.FmtNum(v)}
		var small []string
		if n > 1 && i == 0 {
			small = append(small, "mean of "+strconv.Itoa(n)+" runs")
		}
		if normalize && m.PerGPU && gpus > 1 {
			small = append(small, site.FmtNum(v/float64(gpus))+" per GPU")
		}
		l.PerGPU = strings.Join(small, "; ")
		if i == 0 {
			out.Sort = site.SortKey(v)
		}
		if ref != nil && ref != run && ref.Result.Summary != nil && successfulEnough(ref.Result) {
			if rv, _, ok := c.rep.PointValue(ref, m); ok {
				d := site.Compare(site.Normalized(m, rv, refGPUs, normalize), site.Normalized(m, v, gpus, normalize), m.HigherBetter)
				d.NA = site.LessSuccessful(res, ref.Result)
				judge(c.rep, &d, ref, run, m, normalize)
				out.Judged = out.Judged || d.Untested || d.Noise
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

// runAt is the run a block names: experiment exp on profile prof, and
// at sweep point point when it is given (its first repeat there); nil
// with no error when there is no run and no point was named (each block
// says so in its own words). A point the results lack is an error naming
// the points they have.
func (c *Ctx) runAt(block, exp, prof, point string) (*Run, error) {
	if point == "" {
		return c.rep.Run(exp, prof), nil
	}
	var run *Run
	var pts []string
	for _, r := range c.rep.All {
		res := r.Result
		if res.Experiment != exp || res.Profile != prof {
			continue
		}
		slug := schema.PointOf(res.Load).Slug()
		if slug == point && (run == nil || res.Repeat < run.Result.Repeat) {
			run = r
		}
		if slug != "" && !slices.Contains(pts, slug) {
			pts = append(pts, slug)
		}
	}
	if run == nil {
		have := "its points: " + strings.Join(pts, ", ")
		if len(pts) == 0 {
			have = "no sweep points"
		}
		return nil, fmt.Errorf("block %s: field point: experiment %q has no result at point %q on profile %q (%s)",
			block, exp, point, prof, have)
	}
	return run, nil
}

// rawBlock writes a raw block: the raw output of one run (of one point of
// a sweep profile, with point:).
func (c *Ctx) rawBlock(w *bytes.Buffer, spec BlockSpec) error {
	camp := c.rep.Campaign
	if spec.Experiment == "" || spec.Profile == "" {
		return fmt.Errorf("block raw: fields experiment and profile are both needed")
	}
	run, err := c.runAt("raw", spec.Experiment, spec.Profile, spec.Point)
	if err != nil {
		return err
	}
	if run == nil {
		return fmt.Errorf("block raw: no result for experiment %q on profile %q (expected a file in %s with experiment %q and profile %q)",
			spec.Experiment, spec.Profile, c.rep.ResultsDir, spec.Experiment, spec.Profile)
	}
	e, _ := camp.Experiment(spec.Experiment)
	p, _ := camp.Profile(spec.Profile)
	title := spec.Title
	if title == "" {
		title = "Benchmark result: " + e.Name + " / " + p.Name
		if spec.Point != "" {
			title += " at " + schema.PointOf(run.Result.Load).String()
		}
	}
	return c.execTo(w, "raw", rawDetails{Title: title, Raws: c.pointRaws(run, "")})
}
