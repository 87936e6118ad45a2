package check

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
)

var reTotalRow = regexp.MustCompile(`(?i)\b(total|overall|cumulative|combined)\b`)

// compound checks tables of step percentages ("Summary of Optimization
// Options": one percentage or "-" per step, no other number) against the
// total: a Total row of the table, or else the first percentage of the
// page's baseline-vs-optimized table before it.
func (c *checker) compound() {
	for ti, t := range c.d.tables {
		var steps []*number
		var total *number
		isSteps := len(t.rows) >= 2
		for ri, row := range t.rows {
			var pcts []*number
			for _, n := range c.d.nums {
				if n.table != ti || n.row != ri {
					continue
				}
				if !n.pct {
					isSteps = false // a number, or a factor
				}
				pcts = append(pcts, n)
			}
			if len(pcts) > 1 {
				isSteps = false
			}
			if len(pcts) == 1 {
				if reTotalRow.MatchString(c.d.masked[row[0].start:row[0].end]) {
					total = pcts[0]
				} else {
					steps = append(steps, pcts[0])
				}
			}
		}
		if !isSteps || len(steps) < 2 {
			continue
		}
		for _, st := range steps {
			c.stepChange(st)
		}
		totals := []*number{total}
		if total == nil {
			totals = c.comparisonTotals(ti)
		}
		if len(totals) == 0 {
			continue
		}
		total = totals[0]
		c.counts.Steps++
		lo, hi := 1.0, 1.0
		var parts []string
		for _, s := range steps {
			h := 0.5 * pow10(-s.dec)
			lo *= 1 + (s.v-h)/100
			hi *= 1 + (s.v+h)/100
			parts = append(parts, s.text(c.d))
		}
		lo, hi = (lo-1)*100, (hi-1)*100
		matched := false
		for _, t := range totals {
			th := 0.5*pow10(-t.dec) + 1e-9
			if hi >= t.v-th && lo <= t.v+th {
				matched = true
			}
		}
		if matched {
			continue
		}
		mid := (lo + hi) / 2
		c.add(c.d.line(steps[0].off), KindCompound, "the step percentages %s compound to %s (%s to %s within their rounding), not to the total %s printed at line %d",
			strings.Join(parts, ", "), signed(mid, total.dec), signed(lo, total.dec), signed(hi, total.dec), total.text(c.d), c.d.line(total.off))
	}
}

// stepChange checks one step percentage, which stands beside no number,
// against the throughput changes between two runs of one profile (the
// page's outputs, or a report's results; per GPU as well, from the
// serving commands' parallelism or the campaign).
func (c *checker) stepChange(n *number) {
	runs := c.runs
	if len(runs) < 2 {
		return
	}
	c.counts.Percentages++
	hp := 0.5*pow10(-n.dec) + 1e-9
	for _, a := range runs {
		for _, b := range runs {
			if a == b || !sameProfile(a, b) {
				continue
			}
			for _, x := range a.values {
				if !strings.HasSuffix(x.metric, "_tps") {
					continue
				}
				for _, y := range b.values {
					if y.metric != x.metric || y.v == 0 {
						continue
					}
					// The inputs are printed with two decimals.
					tol := hp + 100*(0.005/y.v+x.v*0.005/(y.v*y.v))
					if math.Abs((x.v/y.v-1)*100-n.v) <= tol {
						return
					}
					ga, gb := float64(max(a.gpus, 1)), float64(max(b.gpus, 1))
					if ga != gb && math.Abs(((x.v/ga)/(y.v/gb)-1)*100-n.v) <= tol*gb/ga+hp {
						return
					}
				}
			}
		}
	}
	c.add(c.d.line(n.off), KindPercent, "step percentage %s matches no throughput change between two runs of one profile", n.text(c.d))
}

// sameProfile says whether two outputs ran one benchmark case: their input
// token totals within 10% of each other (a label inside a fence may name
// the configuration rather than the profile), else the same label.
func sameProfile(a, b *run) bool {
	if a.profile != "" && b.profile != "" { // a report's results name it
		return a.profile == b.profile
	}
	ia, ib := a.get("total input tokens"), b.get("total input tokens")
	if ia > 0 && ib > 0 {
		return math.Abs(ia-ib) <= 0.1*math.Max(ia, ib)
	}
	return a.label == b.label
}

func signed(v float64, dec int) string {
	s := strconv.FormatFloat(v, 'f', dec, 64) + "%"
	if v >= 0 {
		s = "+" + s
	}
	return s
}

// comparisonTotals are the percentages of the last baseline-vs-optimized
// table before table ti, its first row's first: the case the steps were
// measured on (ShareGPT on GPUStack's pages), though a summary about
// another case matches that case's row.
func (c *checker) comparisonTotals(ti int) []*number {
	for k := ti - 1; k >= 0; k-- {
		t := c.d.tables[k]
		hdr := ""
		for _, h := range t.header {
			hdr += strings.ToLower(c.d.masked[h.start:h.end]) + " "
		}
		if !strings.Contains(hdr, "baseline") && !strings.Contains(hdr, "optimi") {
			continue
		}
		var out []*number
		for _, n := range c.d.nums {
			if n.table == k && n.row >= 0 && n.pct && n.attached != nil {
				out = append(out, n)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// command is a serving or benchmark command found in a code block.
type command struct {
	off  int
	text string
}

// commands lists the commands in the page's code blocks (continuation
// lines joined).
func (c *checker) commands() []command {
	var out []command
	for _, cs := range c.d.codes {
		if !cs.fenced {
			continue
		}
		body := c.d.text[cs.start:cs.end]
		off := cs.start
		lines := strings.SplitAfter(body, "\n")
		for i := 0; i < len(lines); i++ {
			start := off
			l := lines[i]
			off += len(l)
			for strings.HasSuffix(strings.TrimRight(l, " \t\n"), `\`) && i+1 < len(lines) {
				i++
				l = strings.TrimRight(strings.TrimRight(l, " \t\n"), `\`) + " " + lines[i]
				off += len(lines[i])
			}
			t := strings.TrimSpace(l)
			t = strings.TrimPrefix(t, "$ ")
			if ingest.EngineOf(t) != "" || strings.Contains(t, "bench serve") {
				// The first non-blank byte of the command, for its line.
				lead := len(c.d.text[start:]) - len(strings.TrimLeft(c.d.text[start:], " \t\n"))
				out = append(out, command{off: start + lead, text: t})
			}
		}
	}
	return out
}

var (
	reModelTok  = regexp.MustCompile(`[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+|[A-Za-z][A-Za-z0-9_.]*(?:-[A-Za-z0-9_.]+)+`)
	reParamSize = regexp.MustCompile(`(?i)\d+(?:\.\d+)?b\b`)
)

// pageModels are the models the page is about: the campaign's, or the
// Model section's and the title's.
func (c *checker) pageModels() []string {
	var out []string
	if cp := c.page.Campaign; cp != nil {
		for _, m := range append([]string{cp.Model.ID, cp.Model.Name}, cp.Model.Variants...) {
			if m != "" {
				out = append(out, m)
			}
		}
		return out
	}
	for i, h := range c.d.heads {
		low := strings.ToLower(h.text)
		isTitle := h.level == 1 && i == 0
		if !isTitle && low != "model" && low != "models" && !strings.HasPrefix(low, "model ") {
			continue
		}
		end := len(c.d.text)
		if i+1 < len(c.d.heads) {
			end = c.d.heads[i+1].off
		}
		region := c.d.text[h.off:end]
		if isTitle {
			region = h.text
		}
		for _, tok := range reModelTok.FindAllString(region, -1) {
			if isTitle && !reParamSize.MatchString(tok) {
				continue
			}
			if strings.ContainsAny(tok, "0123456789") {
				out = append(out, strings.Trim(tok, ".,;:`'\""))
			}
		}
	}
	return out
}

func normModel(m string) string {
	m = strings.ToLower(strings.Trim(m, ".,;:`'\""))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	return m
}

// models reports commands naming a different model than the page's.
func (c *checker) models() {
	pms := c.pageModels()
	if len(pms) == 0 {
		return
	}
	for _, cmd := range c.commands() {
		m := ingest.ModelOf(cmd.text)
		if m == "" || strings.ContainsAny(m, "${}<>") || !strings.ContainsAny(m, "0123456789") {
			continue
		}
		c.counts.Models++
		if !sameModel(m, pms) {
			c.add(c.d.line(cmd.off), KindModel, "the command names model %s, but the page is about %s", m, strings.Join(uniqModels(pms), ", "))
		}
	}
	c.proseModels(pms)
	// A report's results: each run served the campaign's model.
	if cp := c.page.Campaign; cp != nil {
		for _, r := range c.page.Results {
			if r.Campaign != cp.ID {
				continue
			}
			m := ingest.ModelOf(r.Engine.Command)
			if m == "" {
				m = r.Model.ID
			}
			if m == "" || strings.ContainsAny(m, "${}<>") {
				continue
			}
			c.counts.Models++
			if !sameModel(m, pms) {
				c.addAt(c.page.CampaignFile, c.experimentLine(r.Experiment), KindModel, "result %s--%s ran model %s, but the campaign is about %s",
					r.Experiment, r.Profile, m, strings.Join(uniqModels(pms), ", "))
			}
		}
	}
}

var (
	// A model name with a parameter count: Qwen3-32B, Qwen3.5-35B-A3B,
	// Llama-3.1-8B-Instruct.
	reProseModel = regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9.]*(?:-[A-Za-z0-9.]+)*-\d+(?:\.\d+)?[Bb](?:-[A-Za-z0-9.]+)*\b`)
	reSize       = regexp.MustCompile(`-\d+(?:\.\d+)?b(?:-|$)`)
	reDraft      = regexp.MustCompile(`(?i)draft|speculat|eagle|mtp|medusa`)
)

// family splits a model name at its parameter count: "qwen3-32b-fp8" is
// family "qwen3", size "32b".
func family(m string) (string, string) {
	m = normModel(m)
	loc := reSize.FindStringIndex(m)
	if loc == nil {
		return "", ""
	}
	return m[:loc[0]], strings.Trim(m[loc[0]:loc[1]], "-")
}

// proseModels reports a model of the page's family but another size named
// in the page's prose ("throughput of Qwen3-32B" on a Qwen3-8B page): a
// sentence about a draft model (speculative decoding) may name another.
func (c *checker) proseModels(pms []string) {
	fams := map[string]bool{}
	for _, pm := range pms {
		if f, _ := family(pm); f != "" {
			fams[f] = true
		}
	}
	if len(fams) == 0 {
		return
	}
	for _, loc := range reProseModel.FindAllStringIndex(c.d.masked, -1) {
		tok := c.d.masked[loc[0]:loc[1]]
		f, _ := family(tok)
		if !fams[f] {
			continue
		}
		c.counts.Models++
		if sameModel(tok, pms) || shortName(tok, pms) {
			continue
		}
		n := &number{off: loc[0], end: loc[1]}
		if reDraft.MatchString(c.sentenceText(n)) {
			continue
		}
		c.add(c.d.line(loc[0]), KindModel, "the page names model %s, but it is about %s", tok, strings.Join(uniqModels(pms), ", "))
	}
}

// shortName says whether m is a shorter name of one of the page's models
// (Qwen3-235B-A22B for Qwen3-235B-A22B-Instruct-2507).
func shortName(m string, pms []string) bool {
	nm := normModel(m)
	for _, pm := range pms {
		if strings.HasPrefix(normModel(pm), nm+"-") {
			return true
		}
	}
	return false
}

// sameModel says whether model m is one of the page's models or a served
// variant of one (…-FP8).
func sameModel(m string, pms []string) bool {
	nm := normModel(m)
	for _, pm := range pms {
		if pm = normModel(pm); nm == pm || strings.HasPrefix(nm, pm+"-") {
			return true
		}
	}
	return false
}

// experimentLine is the campaign line of an experiment (1 if unknown).
func (c *checker) experimentLine(id string) int {
	if c.page.campaignLine == nil {
		return 1
	}
	for si, st := range c.page.Campaign.Steps {
		for j, x := range st.Experiments {
			if x.ID == id {
				return c.page.campaignLine("steps", si, "experiments", j)
			}
		}
	}
	return 1
}

// uniqModels lists each model once, in the spelling with the
// organisation when the page has one.
func uniqModels(s []string) []string {
	var out []string
	idx := map[string]int{}
	for _, x := range s {
		k := normModel(x)
		if i, ok := idx[k]; ok {
			if strings.Contains(x, "/") && !strings.Contains(out[i], "/") {
				out[i] = x
			}
			continue
		}
		idx[k] = len(out)
		out = append(out, x)
	}
	return out
}

var engineNames = []struct {
	id string
	re *regexp.Regexp
}{
	{"vllm", regexp.MustCompile(`(?i)\bvllm\b`)},
	{"sglang", regexp.MustCompile(`(?i)\bsglang\b`)},
	{"trtllm", regexp.MustCompile(`(?i)tensorrt-llm|trt-llm|\btrtllm\b|\btensorrt\b`)},
	{"llamacpp", regexp.MustCompile(`(?i)llama\.cpp|llama-server`)},
}

var engineDisplay = map[string]string{"vllm": "vLLM", "sglang": "SGLang", "trtllm": "TensorRT-LLM", "llamacpp": "llama.cpp", "mindie": "MindIE"}

// engines reports serving commands that launch another engine than the
// nearest heading that names one ("### 2. Quantization in TensorRT-LLM"
// over a python3 -m sglang.launch_server command).
func (c *checker) engines() {
	for _, cmd := range c.commands() {
		e := ingest.EngineOf(cmd.text)
		if e == "" {
			continue
		}
		path := c.d.section(cmd.off)
		for k := len(path) - 1; k >= 0; k-- {
			h := path[k].text
			if len(h) > 80 { // a page that lost its line breaks: the heading runs on
				h = h[:80]
			}
			var named []string
			for _, en := range engineNames {
				if en.re.MatchString(h) {
					named = append(named, en.id)
				}
			}
			if len(named) == 0 {
				continue
			}
			if len(named) == 1 && named[0] != e {
				c.add(c.d.line(cmd.off), KindEngine, "the serving command launches %s, but its section %q is about %s",
					engineDisplay[e], strings.TrimSpace(h), engineDisplay[named[0]])
			}
			break
		}
	}
}

// sameCommands reports a baseline and an optimized configuration that are
// the same: identical "Baseline …"/"Optimized …" serving scripts on a
// pasted page, or a campaign whose baseline and optimized experiments are
// one experiment or run one command.
func (c *checker) sameCommands() {
	if cp := c.page.Campaign; cp != nil {
		b, okB := cp.Experiment(cp.Baseline)
		o, okO := cp.Experiment(cp.Optimized)
		n := 0
		for _, st := range cp.Steps {
			n += len(st.Experiments)
		}
		if !okB || !okO || n < 2 { // one experiment: nothing is compared
			return
		}
		line := c.campaignKeyLine("optimized")
		switch {
		case cp.Baseline == cp.Optimized:
			c.addAt(c.page.CampaignFile, line, KindSelf, "baseline and optimized are the same experiment (%s): the comparison is of a configuration with itself", cp.Baseline)
		case sameExperiment(b, o):
			c.addAt(c.page.CampaignFile, line, KindSelf, "baseline %s and optimized %s run the same configuration (%s): the comparison is of a configuration with itself", b.ID, o.ID, describe(b))
		}
		// Two experiments of one step that run the same configuration.
		for si, st := range cp.Steps {
			for j := range st.Experiments {
				for k := 0; k < j; k++ {
					if sameExperiment(&st.Experiments[k], &st.Experiments[j]) {
						ln := 1
						if c.page.campaignLine != nil {
							ln = c.page.campaignLine("steps", si, "experiments", j)
						}
						c.addAt(c.page.CampaignFile, ln, KindSelf, "experiments %s and %s of step %s run the same configuration (%s): comparing them compares a configuration with itself",
							st.Experiments[k].ID, st.Experiments[j].ID, st.ID, describe(&st.Experiments[j]))
					}
				}
			}
		}
		return
	}
	var base *codeSpan
	for i := range c.d.codes {
		cs := &c.d.codes[i]
		if !cs.fenced {
			continue
		}
		before := c.d.text[max(0, cs.start-160):cs.start]
		before = before[:max(0, strings.LastIndex(before, "```"))]
		title := strings.ToLower(lastTitle(before))
		if !strings.Contains(title, "serv") && !strings.Contains(title, "param") && !strings.Contains(title, "command") {
			continue
		}
		switch {
		case strings.Contains(title, "baseline"):
			base = cs
		case strings.Contains(title, "optimi") && base != nil:
			bt, ot := normCommand(c.d.text[base.start:base.end]), normCommand(c.d.text[cs.start:cs.end])
			if bt != "" && bt == ot {
				c.add(c.d.line(cs.start), KindSelf, "the optimized serving command is the baseline's (line %d): the comparison is of a configuration with itself", c.d.line(base.start))
			}
		}
	}
}

// campaignLoad reports a report's baseline-vs-optimized comparison on a
// profile whose offered load bounds it: the optimized run served at least
// 90% of the requests per second offered, so the generated gain measures
// the load generator.
func (c *checker) campaignLoad() {
	cp := c.page.Campaign
	if cp == nil || cp.Baseline == cp.Optimized {
		return
	}
	find := func(exp, prof string) *schema.Result {
		for _, r := range c.page.Results {
			if r.Campaign == cp.ID && r.Experiment == exp && r.Profile == prof && r.Status == schema.StatusOK && r.Summary != nil {
				return r
			}
		}
		return nil
	}
	for pi, p := range cp.Profiles {
		b, o := find(cp.Baseline, p.ID), find(cp.Optimized, p.ID)
		if b == nil || o == nil {
			continue
		}
		rate := o.Load.RequestRate
		if rate <= 0 {
			rate = p.RequestRate
		}
		if rate <= 0 || o.Summary.TotalTokenThroughput <= b.Summary.TotalTokenThroughput || o.Summary.RequestThroughput < 0.9*rate {
			continue
		}
		line := 1
		if c.page.campaignLine != nil {
			line = c.page.campaignLine("profiles", pi)
		}
		c.addAt(c.page.CampaignFile, line, KindLoad, "the gain of %s over %s on profile %s is bounded by the offered load: %s served %s req/s of the %s req/s offered, so it measured the load, not the configuration",
			cp.Optimized, cp.Baseline, p.ID, cp.Optimized, strconv.FormatFloat(o.Summary.RequestThroughput, 'f', -1, 64), strconv.FormatFloat(rate, 'f', -1, 64))
	}
}

// lastTitle returns the admonition title or the line right before a code
// block.
func lastTitle(before string) string {
	if i := strings.LastIndexByte(before, '"'); i >= 0 {
		if j := strings.LastIndexByte(before[:i], '"'); j >= 0 && !strings.Contains(before[j:i], "\n") {
			return before[j+1 : i]
		}
	}
	before = strings.TrimRight(before, " \t\n")
	if i := strings.LastIndexByte(before, '\n'); i >= 0 {
		return before[i+1:]
	}
	if len(before) > 60 {
		return before[len(before)-60:]
	}
	return before
}

func (c *checker) addAt(file string, line int, kind, format string, a ...any) {
	if file == "" {
		file = c.page.Name
	}
	n := len(c.out)
	c.add(line, kind, format, a...)
	c.out[n].File = file
}

// campaignKeyLine is the line of a top-level campaign key (1 if unknown).
func (c *checker) campaignKeyLine(key string) int {
	if c.page.campaignLine != nil {
		if l := c.page.campaignLine(key); l > 0 {
			return l
		}
	}
	return 1
}

// sameExperiment says whether two experiments launch the same thing.
func sameExperiment(a, b *schema.Experiment) bool {
	if a.Engine != b.Engine || normCommand(a.Command) != normCommand(b.Command) || strings.Join(a.Args, "\x00") != strings.Join(b.Args, "\x00") ||
		a.GPUs != b.GPUs || a.BaseURL != b.BaseURL || len(a.Env) != len(b.Env) {
		return false
	}
	for k, v := range a.Env {
		if b.Env[k] != v {
			return false
		}
	}
	if a.Engine == "external" && a.BaseURL == "" {
		return false // two endpoints someone else runs: nothing says they are one
	}
	return true
}

func describe(e *schema.Experiment) string {
	if e.Command != "" {
		return normCommand(e.Command)
	}
	if len(e.Args) > 0 {
		return e.Engine + " " + strings.Join(e.Args, " ")
	}
	return e.Engine + " with its default launch"
}
