package check

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
)

// Kinds of findings.
const (
	// KindNumber: a number presented as a result matches no run.
	KindNumber = "number"
	// KindPercent: a percentage is not the change between the numbers it
	// stands beside (or, on a perflab page, between any two runs).
	KindPercent = "percentage"
	// KindCompound: step percentages do not compound to the printed total.
	KindCompound = "compound"
	// KindModel: a command names a different model than the page's.
	KindModel = "model"
	// KindEngine: a serving command launches another engine than its
	// section is about.
	KindEngine = "engine"
	// KindSelf: a comparison of a configuration with itself.
	KindSelf = "self-comparison"
	// KindLoad: a throughput gain bounded by the offered load.
	KindLoad = "offered-load"
	// KindOrder: a ranking ("A (x) > B (y)") that its numbers contradict.
	KindOrder = "order"
	// KindBlock: a benchmark block that cannot be read.
	KindBlock = "block"
)

// Finding is one place where a page disagrees with its own data.
type Finding struct {
	File    string
	Line    int
	Kind    string
	Message string
}

// String formats the finding as FILE:LINE: message.
func (f Finding) String() string { return fmt.Sprintf("%s:%d: %s", f.File, f.Line, f.Message) }

// Page is one Markdown page and the data its numbers are checked against.
type Page struct {
	// Name is the file name findings carry.
	Name string
	Text []byte
	// Campaign and Results are set for a perflab report page (a bundle
	// with a campaign); nil for a page of pasted outputs, whose data are
	// the benchmark blocks on the page itself.
	Campaign *schema.Campaign
	Results  []*schema.Result
	// CampaignFile is the campaign's path, for findings about it.
	CampaignFile string
	// campaignLine gives the line of a campaign field (Load sets it).
	campaignLine func(path ...any) int
}

// Counts says how much of a page was checked, so that a clean page can be
// told from one with nothing to check.
type Counts struct {
	// Blocks are the benchmark outputs read on the page; Results the
	// campaign's result files with numbers (status ok) read beside it,
	// of which Repeated load points have several repeats (each also
	// compared through its repeats' mean and median); Numbers the numbers
	// compared with them; Percentages those compared with the numbers
	// beside them or with the runs; Steps the step tables compounded;
	// Models the model names (in commands, prose and results) compared
	// with the page's. Each counts what a reader can count: blocks on the
	// page, files in the results folder.
	Blocks, Results, Repeated, Numbers, Percentages, Steps, Models int
}

// Add sums counts.
func (c *Counts) Add(o Counts) {
	c.Blocks += o.Blocks
	c.Results += o.Results
	c.Repeated += o.Repeated
	c.Numbers += o.Numbers
	c.Percentages += o.Percentages
	c.Steps += o.Steps
	c.Models += o.Models
}

// Check reads a page and returns its findings in file and line order (a
// report page's findings may name its campaign file).
func Check(p Page) []Finding {
	f, _ := Run(p)
	return f
}

// Run is Check that also counts what it checked.
func Run(p Page) ([]Finding, Counts) {
	d := newDoc(p.Name, string(p.Text))
	c := &checker{d: d, page: p}
	entries, err := ingest.Parse(p.Name, p.Text)
	if err != nil {
		// One block that cannot be read does not blind the whole page:
		// read the code blocks one by one, and report those that fail.
		entries = c.entriesByBlock()
	}
	c.runs = runsFromEntries(entries, pageRate(d.text))
	c.counts.Blocks = len(c.runs)
	if p.Campaign != nil {
		rs, files, repeated := runsFromResults(p.Campaign, p.Results)
		c.runs = append(c.runs, rs...)
		c.counts.Results, c.counts.Repeated = files, repeated
	}
	c.matches = map[*number][]*run{}
	c.numbers()
	c.percentages()
	c.order()
	c.compound()
	c.models()
	c.engines()
	c.sameCommands()
	c.campaignLoad()
	sort.SliceStable(c.out, func(i, j int) bool {
		if c.out[i].File != c.out[j].File {
			return c.out[i].File < c.out[j].File
		}
		if c.out[i].Line != c.out[j].Line {
			return c.out[i].Line < c.out[j].Line
		}
		return c.out[i].Message < c.out[j].Message
	})
	// One finding per place and message.
	var out []Finding
	for i, f := range c.out {
		if i > 0 && f == c.out[i-1] {
			continue
		}
		out = append(out, f)
	}
	return out, c.counts
}

// entriesByBlock parses each fenced code block on its own, with the line
// numbers of the page, the serving command before it from the page, and a
// finding for each block that cannot be read.
func (c *checker) entriesByBlock() []ingest.Entry {
	var out []ingest.Entry
	cmds := c.commands()
	for _, cs := range c.d.codes {
		if !cs.fenced {
			continue
		}
		body := c.d.text[cs.start:cs.end]
		if !strings.Contains(body, "Successful requests") && !strings.Contains(body, "Serving Benchmark Result") && !strings.Contains(body, `"request_throughput"`) {
			continue // a serving script, a config: no benchmark output
		}
		shift := c.d.line(cs.start) - 1
		es, err := ingest.Parse(c.page.Name, []byte(body))
		if err != nil {
			line, msg := splitErr(c.page.Name, err.Error())
			msg = reLineRef.ReplaceAllStringFunc(msg, func(m string) string {
				n, _ := strconv.Atoi(strings.TrimPrefix(m, "line "))
				return "line " + strconv.Itoa(n+shift)
			})
			c.add(line+shift, KindBlock, "cannot read the benchmark output: %s (its numbers are not checked)", msg)
			if c.unread != "" {
				c.unread += ", "
			}
			c.unread += "line " + strconv.Itoa(line+shift)
			continue
		}
		for _, e := range es {
			e.Line += shift
			if e.CommandLine > 0 {
				e.CommandLine += shift
			} else {
				for _, cmd := range cmds {
					if cmd.off < cs.start && ingest.EngineOf(cmd.text) != "" {
						e.Command, e.CommandLine = cmd.text, c.d.line(cmd.off)
					}
				}
			}
			out = append(out, e)
		}
	}
	return out
}

type checker struct {
	d       *doc
	page    Page
	runs    []*run
	matches map[*number][]*run
	out     []Finding
	counts  Counts
	// unread lists the lines of benchmark outputs that could not be read.
	unread string
}

func (c *checker) add(line int, kind, format string, a ...any) {
	c.out = append(c.out, Finding{File: c.page.Name, Line: line, Kind: kind, Message: fmt.Sprintf(format, a...)})
}

var (
	reErrLine = regexp.MustCompile(`^(.*?):(\d+): (.*)$`)
	reLineRef = regexp.MustCompile(`\bline \d+`)
)

func splitErr(name, msg string) (int, string) {
	if m := reErrLine.FindStringSubmatch(msg); m != nil && m[1] == name {
		n, _ := strconv.Atoi(m[2])
		return n, m[3]
	}
	return 1, msg
}

// source names where the page's data are, for messages.
func (c *checker) source() string {
	if c.page.Campaign != nil {
		return "result of campaign " + c.page.Campaign.ID
	}
	return "benchmark output on the page"
}

// match returns the runs holding a number at its printed precision.
func (c *checker) match(n *number) []*run {
	if r, ok := c.matches[n]; ok {
		return r
	}
	var out []*run
	h := n.half + 1e-9*math.Max(1, math.Abs(n.v))
	for _, r := range c.runs {
		for _, v := range r.values {
			if !unitOK(n.unit, v) || (n.metrics != nil && !slices.Contains(n.metrics, v.metric)) {
				continue
			}
			if math.Abs(v.v-n.v) <= h || (n.perGPU && r.gpus > 1 && math.Abs(v.v/float64(r.gpus)-n.v) <= h) {
				out = append(out, r)
				break
			}
		}
	}
	c.matches[n] = out
	return out
}

// beside returns the other result numbers standing beside n: in its
// table row, or in its sentence and the one before.
func (c *checker) beside(n *number) []*number {
	var out []*number
	for _, m := range c.d.nums {
		if m == n || m.rel() {
			continue
		}
		if n.table >= 0 {
			// In a table row every number counts: its column names it.
			if m.table == n.table && m.row == n.row && n.row >= 0 {
				out = append(out, m)
			}
			continue
		}
		if m.claim() && m.table < 0 && (m.sentence == n.sentence || m.sentence == n.sentence-1) {
			out = append(out, m)
		}
	}
	return out
}

// numbers checks every number presented as a result against the runs.
func (c *checker) numbers() {
	if len(c.runs) == 0 {
		return
	}
	for _, n := range c.d.nums {
		if n.rel() || !n.claim() {
			continue
		}
		c.counts.Numbers++
		if len(c.match(n)) > 0 || c.difference(n) || c.runsDifference(n) {
			continue
		}
		what := n.text(c.d)
		if n.labelAs != "" {
			what = n.labelAs + " " + what
		}
		msg := fmt.Sprintf("%s matches no %s", what, c.source())
		if hint := c.closest(n); hint != "" {
			msg += " (" + hint + ")"
		}
		if c.unread != "" {
			msg += " (or in the output at " + c.unread + ", which could not be read)"
		}
		c.add(c.d.line(n.off), KindNumber, "%s", msg)
	}
}

// difference accepts a number that is the difference of two matched
// numbers beside it ("faster by 4,636.35 tok/s").
func (c *checker) difference(n *number) bool {
	bs := c.beside(n)
	h := n.half + 1e-9
	for _, a := range bs {
		if len(c.match(a)) == 0 || a.unit != n.unit && a.unit != "" && n.unit != "" {
			continue
		}
		for _, b := range bs {
			if a == b || len(c.match(b)) == 0 {
				continue
			}
			av, ah := a.value()
			bv, bh := b.value()
			if math.Abs(math.Abs(av-bv)-math.Abs(n.v)) <= h+ah+bh {
				return true
			}
		}
	}
	return false
}

// reDiffWord marks a sentence that presents a number as a difference
// ("FP8 adds 11,806.40 tok/s over vLLM", "cuts TTFT by 150.05 ms").
var reDiffWord = regexp.MustCompile(`(?i)\b(?:adds?|added|more|less|fewer|faster|slower|higher|lower|by|over|gains?|saves?|saved|cuts?|improv\w*|increas\w*|decreas\w*|reduc\w*|drops?|than|up|down)\b`)

// runsDifference accepts a number in a sentence about a difference that is
// the difference between two runs (of one profile, on a report page) in a
// metric of its unit, when the runs compared are not written beside it.
func (c *checker) runsDifference(n *number) bool {
	if n.table >= 0 || n.unit == "" || !reDiffWord.MatchString(c.sentenceText(n)) {
		return false
	}
	h := n.half + 1e-9*math.Max(1, math.Abs(n.v))
	for _, a := range c.runs {
		for _, b := range c.runs {
			if a == b || a.profile != b.profile {
				continue
			}
			for _, x := range a.values {
				if !unitOK(n.unit, x) || (n.metrics != nil && !slices.Contains(n.metrics, x.metric)) {
					continue
				}
				if y := b.get(x.metric); y != 0 && math.Abs(math.Abs(x.v-y)-math.Abs(n.v)) <= h {
					return true
				}
			}
		}
	}
	return false
}

// closest names the nearest value of the same metric, for the message.
func (c *checker) closest(n *number) string {
	best, bestD := "", math.Inf(1)
	for _, r := range c.runs {
		for _, v := range r.values {
			if !unitOK(n.unit, v) || (n.metrics != nil && !slices.Contains(n.metrics, v.metric)) || v.v == 0 {
				continue
			}
			if d := math.Abs(v.v-n.v) / math.Abs(v.v); d < bestD {
				bestD = d
				best = fmt.Sprintf("closest: %s at %s", strconv.FormatFloat(v.v, 'f', -1, 64), r.where)
			}
		}
	}
	if bestD > 0.05 { // a hint only when it is a near miss
		return ""
	}
	return best
}

// percentages checks each percentage against the numbers it stands
// beside.
func (c *checker) percentages() {
	for _, n := range c.d.nums {
		if !n.rel() || n.ratio {
			continue
		}
		if a := n.attached; a != nil && a.table >= 0 {
			if p := c.partner(a); p != nil {
				c.counts.Percentages++
				c.pair(n, p, a)
			}
			// Without the same metric elsewhere in the row the baseline is
			// not on the table: nothing to compare.
			continue
		}
		if n.quote && n.attached == nil {
			continue // "lower than previous +9.75%"
		}
		bs := c.beside(n)
		if n.attached != nil && !containsNum(bs, n.attached) {
			bs = append(bs, n.attached)
		}
		if len(bs) >= 2 {
			c.counts.Percentages++
			if !c.besideMatch(n, bs) && !c.columnChange(n) && !c.laterSentence(n, bs) && !c.otherMetric(n, bs) {
				var list []string
				for _, b := range bs {
					list = append(list, b.text(c.d))
				}
				what := "change"
				if n.times {
					what = "ratio"
				}
				if n.attached == nil && c.columnPairs(n) > 0 {
					c.add(c.d.line(n.off), KindPercent, "%s matches no change of a column of its row from the baseline row", n.text(c.d))
					continue
				}
				c.add(c.d.line(n.off), KindPercent, "%s matches no %s between the numbers beside it (%s)", n.text(c.d), what, strings.Join(list, ", "))
			}
			continue
		}
		if n.table >= 0 && c.baseRow(n.table) >= 0 {
			// A cell of its own ("| SGLang | 3024.68 | +22.5% |"): the
			// change of a column from the baseline row.
			if c.columnPairs(n) > 0 {
				c.counts.Percentages++
				if !c.columnChange(n) {
					c.add(c.d.line(n.off), KindPercent, "%s matches no change of a column of its row from the baseline row", n.text(c.d))
				}
			}
			continue
		}
		if c.page.Campaign != nil && n.table < 0 && c.campaignChange(n) {
			c.counts.Percentages++
		}
	}
}

// baseRow returns the row of a table holding its baseline configuration:
// the row whose first cell says baseline, else the first row when the
// first column names configurations; -1 when the table has none.
func (c *checker) baseRow(ti int) int {
	t := c.d.tables[ti]
	cellText := func(cl cell) string { return strings.ToLower(c.d.masked[cl.start:cl.end]) }
	for ri, row := range t.rows {
		if len(row) > 0 && strings.Contains(cellText(row[0]), "baseline") {
			return ri
		}
	}
	if len(t.header) == 0 || !reConfigColumn.MatchString(cellText(t.header[0])) {
		return -1
	}
	return 0
}

// columnPairs counts the values of n's row that have a baseline in their
// column (columnPartner), so that columnChange has something to compare;
// in the baseline row itself, its values (the percentage is their change
// from themselves).
func (c *checker) columnPairs(n *number) int {
	if n.table < 0 || n.row < 0 {
		return 0
	}
	base := c.baseRow(n.table)
	k := 0
	for _, a := range c.d.nums {
		if a.table != n.table || a.row != n.row || a.rel() {
			continue
		}
		// A step table (one percentage per row, no values) has none.
		if base == n.row || c.columnPartner(a) != nil {
			k++
		}
	}
	return k
}

// columnChange says whether a percentage (or a factor) in a table with
// one configuration per row is the change (the ratio) of one of its row's
// values from the same column of the baseline row, as a "vs. baseline"
// column prints it; in the baseline row, 0% (1x).
func (c *checker) columnChange(n *number) bool {
	if n.table < 0 || n.row < 0 {
		return false
	}
	if base := c.baseRow(n.table); base < 0 {
		return false
	} else if base == n.row {
		want := 0.0
		if n.times {
			want = 1
		}
		return math.Abs(n.v-want) <= 0.5*pow10(-n.dec)+1e-9
	}
	for _, a := range c.d.nums {
		if a.table != n.table || a.row != n.row || a.rel() {
			continue
		}
		if b := c.columnPartner(a); b != nil && c.besideMatch(n, []*number{b, a}) {
			return true
		}
	}
	return false
}

// otherMetric accepts a percentage whose clause names a metric that none
// of the numbers beside it measures ("TTFT dropped from 512.30 ms to
// 333.00 ms, while total throughput rose 22.5%": the milliseconds are not
// its inputs) when it is the change between two runs in that metric.
func (c *checker) otherMetric(n *number, bs []*number) bool {
	if n.table >= 0 {
		return false
	}
	// The clause: from the number before it in its sentence.
	from := strings.LastIndexAny(c.d.masked[:n.off], ";!?\n") + 1
	for _, m := range c.d.nums {
		if m != n && m.end <= n.off && m.end > from {
			from = m.end
		}
	}
	clause := strings.ToLower(c.d.masked[from:n.off])
	var units []string
	switch {
	case strings.Contains(clause, "interactiv"):
		units = []string{"tok/s/user"}
	case strings.Contains(clause, "tpot"), strings.Contains(clause, "ttft"), strings.Contains(clause, "itl"), strings.Contains(clause, "latency"):
		units = []string{"ms", "s"}
	case strings.Contains(clause, "throughput"), strings.Contains(clause, "tps"):
		units = []string{"tok/s", "req/s"}
	default:
		return false
	}
	for _, b := range bs {
		if b.unit == "" || slices.Contains(units, b.unit) {
			return false // a number of its metric, or of none known, beside it
		}
	}
	about, ok := c.runsChangeIn(n, clause)
	return about && ok
}

// laterSentence accepts a percentage whose own sentence holds none of the
// numbers it was compared with (they are the sentence before, about
// another comparison: "… 2,468.90 to 3,024.68 tok/s. On long prompts it is
// 1.5x faster.") when it is the change between two runs in the metric its
// sentence names.
func (c *checker) laterSentence(n *number, bs []*number) bool {
	if n.table >= 0 {
		return false
	}
	for _, b := range bs {
		if b.sentence == n.sentence {
			return false
		}
	}
	about, ok := c.runsChange(n)
	return about && ok
}

func containsNum(list []*number, n *number) bool {
	for _, x := range list {
		if x == n {
			return true
		}
	}
	return false
}

// partner finds the number a table value is compared with: the same
// label in another cell of its row, the baseline column first.
func (c *checker) partner(a *number) *number {
	if a.label == "" || a.row < 0 {
		return nil
	}
	t := c.d.tables[a.table]
	var first, base *number
	for _, m := range c.d.nums {
		if m == a || m.rel() || m.table != a.table || m.row != a.row || m.col == a.col || m.label != a.label {
			continue
		}
		if first == nil {
			first = m
		}
		if base == nil && m.col < len(t.header) && strings.Contains(strings.ToLower(c.d.masked[t.header[m.col].start:t.header[m.col].end]), "baseline") {
			base = m
		}
	}
	if base != nil {
		return base
	}
	if first != nil {
		return first
	}
	return c.columnPartner(a)
}

var reConfigColumn = regexp.MustCompile(`(?i)config|engine|option|experiment|setup|setting|variant|step|parallel`)

// columnPartner finds the baseline of a table with one configuration per
// row: the same column in the row whose first cell says baseline, else in
// the first row, when the first column names configurations (not
// benchmark cases, whose baseline may be off the table).
func (c *checker) columnPartner(a *number) *number {
	baseRow := c.baseRow(a.table)
	if baseRow < 0 {
		return nil
	}
	if baseRow == a.row {
		return nil
	}
	for _, m := range c.d.nums {
		if m.table == a.table && m.row == baseRow && m.col == a.col && !m.rel() && m.label == a.label {
			return m
		}
	}
	return nil
}

// pair checks the percentage n printed beside value a against the change
// from base to a.
func (c *checker) pair(n, base, a *number) {
	av, ah := a.value()
	bv, bh := base.value()
	if bv == 0 {
		return
	}
	line := c.d.line(n.off)
	if n.times {
		ratio := av / bv
		tol := 0.5*pow10(-n.dec) + ah/math.Abs(bv) + math.Abs(av)*bh/(bv*bv) + 1e-9
		if math.Abs(ratio-n.v) > tol {
			c.add(line, KindPercent, "%s is not the ratio of %s to %s, which is %sx", n.text(c.d), a.text(c.d), base.text(c.d), strconv.FormatFloat(ratio, 'f', n.dec, 64))
			return
		}
		c.compared(line, base, a)
		return
	}
	change := (av/bv - 1) * 100
	tol := 0.5*pow10(-n.dec) + 100*(ah/math.Abs(bv)+math.Abs(av)*bh/(bv*bv)) + 1e-9
	if math.Abs(math.Abs(change)-math.Abs(n.v)) > tol && c.pctPerGPU(n) {
		// "+31.6%/GPU": the change per GPU, the runs' GPU counts from
		// their commands; unverifiable without them.
		ok, known := c.perGPUChange(n, base, a)
		switch {
		case ok:
			c.compared(line, base, a)
		case known:
			c.add(line, KindPercent, "%s is not the change per GPU from %s to %s", n.text(c.d), base.text(c.d), a.text(c.d))
		}
		return
	}
	switch {
	case math.Abs(math.Abs(change)-math.Abs(n.v)) > tol:
		c.add(line, KindPercent, "%s is not the change from %s to %s, which is %s", n.text(c.d), base.text(c.d), a.text(c.d), signed(change, n.dec))
		return
	case n.sign != 0 && (n.v < 0) != (change < 0) && math.Abs(change) > tol:
		c.add(line, KindPercent, "%s has the wrong sign: %s to %s is %s", n.text(c.d), base.text(c.d), a.text(c.d), signed(change, n.dec))
		return
	}
	c.compared(line, base, a)
}

// compared looks at a verified comparison of two values for a comparison
// of a configuration with itself and for a gain bounded by the offered
// load.
func (c *checker) compared(line int, x, y *number) {
	rx, ry := c.match(x), c.match(y)
	if len(rx) == 1 && len(ry) == 1 {
		a, b := rx[0], ry[0]
		switch {
		case a == b:
			c.add(line, KindSelf, "compares %s with itself: both numbers come from the run at %s", x.text(c.d), a.where)
		case sameConfig(a, b):
			c.add(line, KindSelf, "compares a configuration with itself: the runs at %s and %s have the same serving command (%s)", a.where, b.where, normCommand(a.command))
		}
	}
	if !throughputMetric(x) {
		return
	}
	xv, _ := x.value()
	yv, _ := y.value()
	hi := ry
	if xv > yv {
		hi = rx
	}
	for _, r := range hi {
		if r.rate > 0 && r.reqPerS >= 0.9*r.rate {
			c.add(line, KindLoad, "the throughput gain is bounded by the offered load: the run at %s served %s req/s of the %s req/s offered, so it measured the load, not the configuration",
				r.where, strconv.FormatFloat(r.reqPerS, 'f', -1, 64), strconv.FormatFloat(r.rate, 'f', -1, 64))
			return
		}
	}
}

func throughputMetric(n *number) bool {
	if n.unit == "tok/s" || n.unit == "req/s" {
		return true
	}
	for _, m := range n.metrics {
		if strings.HasSuffix(m, "_tps") {
			return true
		}
	}
	return false
}

func sameConfig(a, b *run) bool {
	if a.command == "" || normCommand(a.command) != normCommand(b.command) || a.profile != b.profile || !sameProfile(a, b) {
		return false
	}
	// Blocks under one serving command (several profiles of one
	// configuration) are not two configurations.
	return a.cmdLine != b.cmdLine || a.cmdLine == 0
}

var reCont = regexp.MustCompile(`\\\n`)

func normCommand(s string) string {
	return strings.Join(strings.Fields(reCont.ReplaceAllString(s, " ")), " ")
}

// besideMatch says whether a percentage equals the change (or the ratio,
// for a percentage printed right after a difference) between two of the
// numbers beside it.
func (c *checker) besideMatch(n *number, bs []*number) bool {
	hp := 0.5*pow10(-n.dec) + 1e-9
	p := math.Abs(n.v)
	for _, a := range bs {
		for _, b := range bs {
			if a == b {
				continue
			}
			av, ah := a.value()
			bv, bh := b.value()
			if bv == 0 {
				continue
			}
			if n.times {
				if math.Abs(av/bv-p) <= hp+ah/math.Abs(bv)+math.Abs(av)*bh/(bv*bv) {
					c.compared(c.d.line(n.off), b, a)
					return true
				}
				continue
			}
			tol := hp + 100*(ah/math.Abs(bv)+math.Abs(av)*bh/(bv*bv)) + 100*bh/math.Abs(bv)
			if math.Abs(math.Abs(av-bv)/math.Abs(bv)*100-p) <= tol {
				c.compared(c.d.line(n.off), b, a)
				return true
			}
			if a == n.attached && math.Abs(math.Abs(av/bv)*100-p) <= tol {
				return true
			}
		}
	}
	if c.pctPerGPU(n) {
		// "… 26.8% higher token throughput per GPU": the change per GPU
		// between two of them; a claim whose runs' GPU counts are unknown
		// cannot be checked (and is no finding).
		known := false
		for _, a := range bs {
			for _, b := range bs {
				if a == b {
					continue
				}
				ok, k := c.perGPUChange(n, b, a)
				if ok {
					c.compared(c.d.line(n.off), b, a)
					return true
				}
				known = known || k
			}
		}
		return !known
	}
	return false
}

var rePerGPUAfter = regexp.MustCompile(`(?i)^[^.;!?\n|]*?\b(?:per|each)[ \t]+(?:GPU|card|device)\b`)

// pctPerGPU: a percentage of a change per GPU: "+31.6%/GPU", or "per GPU"
// later in its sentence ("26.8% higher token throughput per GPU").
func (c *checker) pctPerGPU(n *number) bool {
	return n.perGPU || rePerGPUAfter.MatchString(c.d.masked[n.end:])
}

// perGPUChange checks the percentage n against the change per GPU from
// base to a: each value over the GPUs of the run it matches (from its
// command's parallelism flags). known says some pair of runs had GPU
// counts to check against.
func (c *checker) perGPUChange(n, base, a *number) (ok, known bool) {
	av, ah := a.value()
	bv, bh := base.value()
	if bv == 0 {
		return false, false
	}
	p := math.Abs(n.v)
	for _, ra := range c.match(a) {
		for _, rb := range c.match(base) {
			if ra.gpus <= 0 || rb.gpus <= 0 || ra == rb {
				continue
			}
			known = true
			g := float64(rb.gpus) / float64(ra.gpus)
			ratio := av / bv * g
			tol := 0.5*pow10(-n.dec) + 100*g*(ah/math.Abs(bv)+math.Abs(av)*bh/(bv*bv)) + 1e-9
			got := math.Abs(ratio-1) * 100
			if n.times {
				got = ratio
				tol /= 100
			}
			if math.Abs(got-p) <= tol {
				return true, true
			}
		}
	}
	return false, known
}

// campaignChange checks a percentage in a perflab page's prose, beside no
// numbers, against the changes between any two runs of one profile (per
// GPU as well), in the metric its sentence names. It reports whether the
// percentage was about a metric (and so checked).
func (c *checker) campaignChange(n *number) bool {
	about, ok := c.runsChange(n)
	if !about || ok {
		return about
	}
	what := "change"
	if n.times {
		what = "ratio"
	}
	c.add(c.d.line(n.off), KindPercent, "%s matches no %s between two runs of campaign %s", n.text(c.d), what, c.page.Campaign.ID)
	return true
}

// runsChange says whether a percentage is about a metric its sentence
// names, with two runs of one profile to compare, and whether it is the
// change between two of them.
func (c *checker) runsChange(n *number) (about, ok bool) {
	return c.runsChangeIn(n, c.sentenceText(n))
}

// runsChangeIn is runsChange with the metric named in text.
func (c *checker) runsChangeIn(n *number, text string) (about, ok bool) {
	if len(c.runs) < 2 {
		return false, false // nothing collected (yet): nothing to compare
	}
	sent := strings.ToLower(text)
	var want func(string) bool
	switch {
	case strings.Contains(sent, "interactiv") || strings.Contains(sent, "tok/s/user"):
		want = func(m string) bool { return m == "interactivity" }
	case strings.Contains(sent, "tpot"):
		want = func(m string) bool { return strings.HasSuffix(m, "_tpot") }
	case strings.Contains(sent, "ttft"):
		want = func(m string) bool { return strings.HasSuffix(m, "_ttft") }
	case strings.Contains(sent, "itl"):
		want = func(m string) bool { return strings.HasSuffix(m, "_itl") }
	case strings.Contains(sent, "latency"):
		want = func(m string) bool { return strings.HasSuffix(m, "_e2el") || strings.HasSuffix(m, "_latency") }
	case strings.Contains(sent, "throughput") || strings.Contains(sent, "tps") || strings.Contains(sent, "tok/s") || strings.Contains(sent, "faster"):
		want = func(m string) bool { return strings.HasSuffix(m, "_tps") }
	default:
		return false, false // a percentage that is about no metric (accuracy, a share)
	}
	hp := 0.5*pow10(-n.dec) + 1e-9
	p := math.Abs(n.v)
	for _, a := range c.runs {
		for _, b := range c.runs {
			if a == b || a.profile != b.profile && (a.workload == "" || a.workload != b.workload) {
				continue
			}
			for _, x := range a.values {
				if !want(x.metric) {
					continue
				}
				for _, y := range b.values {
					if y.metric != x.metric || y.v == 0 {
						continue
					}
					rel := func(r float64) float64 { // the claim's quantity from a ratio
						if n.times {
							return r
						}
						return math.Abs(r-1) * 100
					}
					if math.Abs(rel(x.v/y.v)-p) <= hp {
						return true, true
					}
					if a.gpus > 0 && b.gpus > 0 && a.gpus != b.gpus && strings.HasSuffix(x.metric, "_tps") {
						if math.Abs(rel((x.v/float64(a.gpus))/(y.v/float64(b.gpus)))-p) <= hp {
							return true, true
						}
					}
				}
			}
		}
	}
	return true, false
}

// sentenceText returns the sentence around a number.
func (c *checker) sentenceText(n *number) string {
	s := c.d.masked
	a := strings.LastIndexAny(s[:n.off], ".;!?\n")
	b := strings.IndexAny(s[n.end:], ".;!?\n")
	if b < 0 {
		b = len(s) - n.end
	}
	return s[a+1 : n.end+b]
}

// pageRate is the offered load the page's benchmark commands give, when
// they all give the same finite one (--request-rate, guidellm's --rate,
// GPUStack's request_rate:, vLLM's "Traffic request rate:" line).
func pageRate(text string) float64 {
	rates := map[float64]bool{}
	for _, key := range []string{"--request-rate", "--rate", "request_rate:", "Traffic request rate:"} {
		for i := 0; ; {
			k := strings.Index(text[i:], key)
			if k < 0 {
				break
			}
			j := i + k + len(key)
			i = j
			if j < len(text) && text[j] == '=' {
				j++
			}
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			if strings.HasPrefix(text[j:], "inf") {
				rates[0] = true // unlimited: with a finite rate elsewhere, which block had which is unknown
				continue
			}
			e := j
			for e < len(text) && (isDigit(text[e]) || text[e] == '.') {
				e++
			}
			if e == j || (e < len(text) && (isLetter(text[e]) || text[e] == '_')) {
				continue // a placeholder (${request_rate})
			}
			if v, err := strconv.ParseFloat(text[j:e], 64); err == nil && v > 0 {
				rates[v] = true
			}
		}
	}
	if len(rates) != 1 {
		return 0 // none, or several: each block's own row must say
	}
	for v := range rates {
		return v
	}
	return 0
}

var (
	reGreater = regexp.MustCompile(`(?:^|[^-=<])>(?:[^=]|$)`)
	reLess    = regexp.MustCompile(`(?:^|[^-=<])<(?:[^=-]|$)`)
)

// order checks rankings written with > or < between two numbers of one
// sentence ("TensorRT-LLM (2659.50 tok/s) > vLLM (2352.82 tok/s)").
func (c *checker) order() {
	var prev *number
	for _, n := range c.d.nums {
		if n.rel() || !n.claim() || n.table >= 0 {
			continue
		}
		a := prev
		prev = n
		if a == nil || a.sentence != n.sentence || a.unit != n.unit || n.off-a.end > 80 {
			continue
		}
		between := c.d.masked[a.end:n.off]
		gt, lt := reGreater.MatchString(between), reLess.MatchString(between)
		if gt == lt {
			continue
		}
		av, ah := a.value()
		bv, bh := n.value()
		if (gt && av+ah < bv-bh) || (lt && av-ah > bv+bh) {
			op := ">"
			if lt {
				op = "<"
			}
			c.add(c.d.line(n.off), KindOrder, "the ranking %s %s %s does not hold", a.text(c.d), op, n.text(c.d))
		}
	}
}
