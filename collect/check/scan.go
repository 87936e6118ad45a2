package check

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// doc is a page prepared for reading claims: the text as written, a
// same-length copy in which code, HTML tags, link targets and front matter
// are blanked out (so offsets stay valid), and where its tables, headings,
// code blocks and sentences are.
type doc struct {
	name   string
	text   string
	masked string
	lineAt []int // byte offset of each line's start
	codes  []codeSpan
	heads  []heading
	tables []*table
	nums   []*number
}

// codeSpan is a fenced code block (or an inline code span): its body.
type codeSpan struct {
	start, end int // the body, between the fences
	info       string
	fenced     bool
}

type heading struct {
	off   int
	level int
	text  string
}

// table is a GFM table: header cells and rows of cells.
type table struct {
	header []cell
	rows   [][]cell
}

type cell struct {
	start, end int
}

// number is one number written on the page outside code.
type number struct {
	off, end int
	v        float64 // as printed (without a multiplier)
	dec      int     // decimals printed
	mult     float64 // "7787.17x2": 2; 1 without
	half     float64 // half the printed rounding step ("2.35k": 5)
	pct      bool
	times    bool   // a factor: "1.82x faster"
	sign     byte   // '+', '-' or 0
	label    string // the metric label before it ("Total TPS"), lower case
	labelAs  string // the label as written, for messages
	unit     string // tok/s, req/s, ms
	metrics  []string
	// where it stands
	table, row, col int // table index (-1 outside tables)
	sentence        int // sentence index outside tables
	attached        *number
	ratio           bool // a percentage labelled as a share (success rate)
	perGPU          bool // "5500.00 tok/s per GPU"
	quote           bool // a percentage printed earlier on the page
	threshold       bool // a bound, not a result: "TTFT < 500 ms", "under 1 s"
}

// value is the number with its multiplier applied, and the half-width of
// its printed rounding.
func (n *number) value() (float64, float64) {
	return n.v * n.mult, n.half * n.mult
}

// rel reports a relative claim: a percentage or a factor.
func (n *number) rel() bool { return n.pct || n.times }

func (n *number) text(d *doc) string { return strings.TrimSpace(d.text[n.off:n.end]) }

func pow10(e int) float64 {
	r := 1.0
	for ; e > 0; e-- {
		r *= 10
	}
	for ; e < 0; e++ {
		r /= 10
	}
	return r
}

var (
	reInline = regexp.MustCompile("`[^`\n]+`")
	reTag    = regexp.MustCompile(`<[^>\n]{1,200}>`)
	// "(k tok/s)": values in thousands, not read (left unchecked).
	reHeaderKilo = regexp.MustCompile(`(?i)\bk[ \t]*(?:tok|req)/s`)
	reComment    = regexp.MustCompile(`(?s)<!--.*?-->`)
	reLinkURL    = regexp.MustCompile(`\]\([^)\s]*\)`)
	// A delimiter row: cells of three dashes or more anywhere (seed 000
	// lost its line breaks), or of one or more on a line of their own
	// ("|:--|--:|", as GFM allows).
	reDelimRow = regexp.MustCompile(`\|(?:[ \t]*:?-{3,}:?[ \t]*\|)+|(?m:^[ \t]*\|(?:[ \t]*:?-+:?[ \t]*\|)+[ \t]*$)`)
	reUnit     = regexp.MustCompile(`^[ \t]*(?i:(tok(?:ens)?/s(?:ec)?(?:/user|[ \t]+per[ \t]+user)?|req(?:uests)?/s(?:ec)?|ms\b|tps\b))`)
	reMult     = regexp.MustCompile(`^[ \t]*[x×][ \t]*(\d+)\b`)
	rePct      = regexp.MustCompile(`^[ \t]*%`)
	reTimes    = regexp.MustCompile(`^(?:x|×)`)
	// What follows a count of devices, not a factor: "8x H100", "2× A100
	// 80GB", "4x GPUs", "2x NVIDIA RTX 4090".
	reDevices = regexp.MustCompile(`^[ \t]*(?i:(?:nvidia|amd|intel)[ \t]+)?(?:[A-Za-z]{1,4}[0-9]{2,4}[A-Za-z]{0,3}\b|(?i:gpus?|cards?|nodes?|accelerators?|devices?|rtx|geforce|tesla|radeon|instinct)\b)`)
	rePerGPU  = regexp.MustCompile(`^[ \t]*(?i:(?:per|each)[ \t]+(?:GPU|card|device|[A-Z]{1,4}[0-9]{2,4}[A-Z]{0,3})|/[ \t]*GPU)\b`)
	// Metric labels that may stand before a number ("Total TPS: 2352.82",
	// "Mean TPOT = 25.89 ms"), read backwards from the number.
	reLabel       = regexp.MustCompile(`(?i)((?:total|output|request|peak output)?[ \t]*(?:token[ \t]+)?(?:tps|throughput)|(?:mean|median|p\d+(?:\.\d+)?)[ \t]*(?:ttft|tpot|itl|e2el|e2e latency|latency)|ttft|tpot|itl)[ \t]*(?:\((?:ms|s|tok/s|req/s)\))?[ \t]*[:=][ \t]*$`)
	reHeaderLabel = regexp.MustCompile(`(?i)^[ \t*]*((?:total|output|request|peak output)?[ \t]*(?:token[ \t]+)?(?:tps|throughput)|(?:mean|median|p\d+(?:\.\d+)?)[ \t]*(?:ttft|tpot|itl|e2el|e2e latency)|ttft|tpot|itl)[ \t]*(?:\((tok/s|req/s|ms)\))?[ \t*]*$`)
	reHeaderUnit  = regexp.MustCompile(`(?i)(?:\(|\[|[ \t*]|^)(tok/s|req/s|ms)(?:[ \t]*/[ \t]*GPU)?[)\]]?[ \t*]*$`)
	// A column of per-GPU values: "| Output throughput per GPU (tok/s) |",
	// "| Total TPS (tok/s/GPU) |".
	reHeaderPerGPU = regexp.MustCompile(`(?i)\bper[ \t]+GPU\b|/[ \t]*GPU\b`)
	// Words of a share (a percentage of something, not a change) and of a
	// change, for percentages in prose; what follows a share.
	reShareWord  = regexp.MustCompile(`\b(?:util\w*|usage|occupancy|succe\w*|success|accuracy|hit rate|acceptance|memory)`)
	reChangeWord = regexp.MustCompile(`\b(?:faster|slower|higher|lower|more|less|fewer|increas\w*|decreas\w*|improv\w*|gain\w*|reduc\w*|drop\w*|rise|rises|rose|fell|falls?|cuts?|speed\w*|better|worse|up|down|boost\w*|than|over|vs|versus|chang\w*|delta|differ\w*)\b`)
	reShareAfter = regexp.MustCompile(`^[ \t]*(?i:of[ \t]+(?:the[ \t]+)?)?(?i:GPU[ \t]+memory|memory|of[ \t]+requests|utili[sz]ation|usage|success)`)
	reRatioLabel = regexp.MustCompile(`(?i)(success|rate|share|accuracy|util\w*|hit|acceptance|of)[ \t]*[:=]?[ \t]*$`)
)

func newDoc(name string, text string) *doc {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	d := &doc{name: name, text: text}
	d.lineAt = append(d.lineAt, 0)
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			d.lineAt = append(d.lineAt, i+1)
		}
	}
	m := []byte(text)
	blank := func(a, b int) {
		for i := a; i < b && i < len(m); i++ {
			if m[i] != '\n' {
				m[i] = ' '
			}
		}
	}
	// Front matter: its keys are not prose, its title and description are
	// (they are shown on the site).
	if strings.HasPrefix(text, "---\n") {
		if i := strings.Index(text[4:], "\n---"); i >= 0 {
			end := 4 + i + 4
			for off := 0; off < end; {
				nl := strings.IndexByte(text[off:end], '\n')
				if nl < 0 {
					nl = end - off
				}
				line := text[off : off+nl]
				if !strings.HasPrefix(line, "title:") && !strings.HasPrefix(line, "description:") {
					blank(off, off+nl)
				} else {
					blank(off, off+strings.IndexByte(line, ':')+1)
				}
				off += nl + 1
			}
		}
	}
	// Fenced code. A fence at the start of a line closes only with a
	// fence of the same character at least as long (CommonMark), so a
	// ````markdown block may hold ``` lines; on a page that lost its line
	// breaks the fences stand mid-line, and each one toggles.
	marks := fenceMarks(text)
	atLineStart := func(off int) bool {
		i := off - 1
		for i >= 0 && (text[i] == ' ' || text[i] == '\t') {
			i--
		}
		return i < 0 || text[i] == '\n'
	}
	var open []int
	for _, mk := range marks {
		if open == nil {
			open = mk
			continue
		}
		ol, cl := open[3]-open[2], mk[3]-mk[2]
		if atLineStart(open[0]) && (!atLineStart(mk[0]) || text[mk[2]] != text[open[2]] || cl < ol || mk[5] > mk[4]) {
			continue // not a closing fence of this block
		}
		d.codes = append(d.codes, codeSpan{start: open[1], end: mk[0], info: text[open[4]:open[5]], fenced: true})
		blank(open[0], mk[1])
		open = nil
	}
	if open != nil { // an unclosed fence runs to the end
		d.codes = append(d.codes, codeSpan{start: open[1], end: len(text), info: text[open[4]:open[5]], fenced: true})
		blank(open[0], len(text))
	}
	for _, loc := range reInline.FindAllStringIndex(string(m), -1) {
		d.codes = append(d.codes, codeSpan{start: loc[0] + 1, end: loc[1] - 1})
		blank(loc[0], loc[1])
	}
	// An HTML comment, one line or many, is not shown: no claim.
	for _, loc := range reComment.FindAllStringIndex(string(m), -1) {
		blank(loc[0], loc[1])
	}
	ms := string(m)
	for _, loc := range reTag.FindAllStringIndex(ms, -1) {
		blank(loc[0], loc[1])
	}
	for _, loc := range reLinkURL.FindAllStringIndex(string(m), -1) {
		blank(loc[0]+1, loc[1])
	}
	d.masked = string(m)
	sort.Slice(d.codes, func(i, j int) bool { return d.codes[i].start < d.codes[j].start })
	d.heads = findHeadings(d.masked, collapsed(text))
	d.findTables()
	d.findNumbers()
	return d
}

// collapsed reports a page that lost its line breaks (GPUStack pages
// copied out of a browser): a line of more than 2000 bytes.
func collapsed(text string) bool {
	for len(text) > 2000 {
		i := strings.IndexByte(text, '\n')
		if i < 0 || i > 2000 {
			return true
		}
		text = text[i+1:]
	}
	return false
}

// findHeadings reads ATX headings. On a collapsed page they stand
// mid-line, and a heading's text runs to the next heading marker.
func findHeadings(s string, collapsed bool) []heading {
	var out []heading
	for i := 0; i < len(s); i++ {
		if s[i] != '#' {
			continue
		}
		j := i
		for j < len(s) && s[j] == '#' {
			j++
		}
		k := i - 1
		for k >= 0 && (s[k] == ' ' || s[k] == '\t') {
			k--
		}
		lineStart := k < 0 || s[k] == '\n'
		mid := collapsed && k < i-1
		if (!lineStart && !mid) || j-i > 6 || j >= len(s) || (s[j] != ' ' && s[j] != '\t') {
			i = j - 1
			continue
		}
		end := strings.IndexByte(s[j:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += j
		}
		if collapsed {
			if m := nextMarker(s[j:end]); m >= 0 {
				end = j + m
			}
		}
		text := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s[j:end]), "#"))
		if !strings.HasPrefix(text, "perflab:") { // an import directive, not a heading
			out = append(out, heading{off: i, level: j - i, text: text})
		}
		i = end - 1
	}
	return out
}

// nextMarker finds the next " ## " heading marker in t.
func nextMarker(t string) int {
	for k := 0; k+2 < len(t); k++ {
		if (t[k] == ' ' || t[k] == '\t') && t[k+1] == '#' {
			e := k + 1
			for e < len(t) && t[e] == '#' {
				e++
			}
			if e-k-1 <= 6 && e < len(t) && (t[e] == ' ' || t[e] == '\t') {
				return k
			}
		}
	}
	return -1
}

// line returns the 1-based line of an offset.
func (d *doc) line(off int) int {
	return sort.Search(len(d.lineAt), func(i int) bool { return d.lineAt[i] > off })
}

// section returns the headings in force at off, outermost first.
func (d *doc) section(off int) []heading {
	var path []heading
	for _, h := range d.heads {
		if h.off > off {
			break
		}
		for len(path) > 0 && path[len(path)-1].level >= h.level {
			path = path[:len(path)-1]
		}
		path = append(path, h)
	}
	return path
}

// findTables reads GFM tables as a stream of cells, which also reads a
// table whose line breaks were lost ("| a | b | | c | d |") or whose cells
// hold line breaks where <br> was.
func (d *doc) findTables() {
	s := d.masked
	for _, loc := range reDelimRow.FindAllStringIndex(s, -1) {
		ncol := strings.Count(s[loc[0]:loc[1]], "|") - 1
		if ncol < 1 {
			continue
		}
		// The header: ncol+1 pipes before the delimiter row.
		i := loc[0] - 1
		for i >= 0 && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
			i--
		}
		if i < 0 || s[i] != '|' {
			continue
		}
		pipes := []int{i}
		for j := i - 1; j >= 0 && len(pipes) < ncol+1; j-- {
			if s[j] == '|' {
				pipes = append(pipes, j)
			}
			if s[j] == '\n' && j > 0 && s[j-1] == '\n' {
				break
			}
		}
		if len(pipes) < ncol+1 {
			continue
		}
		t := &table{}
		for k := len(pipes) - 1; k > 0; k-- {
			t.header = append(t.header, cell{pipes[k] + 1, pipes[k-1]})
		}
		pos := loc[1]
		for {
			// Next row: optional spaces, at most one line break, a pipe.
			j := pos
			nl := 0
			for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\n') {
				if s[j] == '\n' {
					nl++
				}
				j++
			}
			if j >= len(s) || s[j] != '|' || nl > 1 {
				break
			}
			row, end := readRow(s, j, ncol)
			if row == nil {
				break
			}
			t.rows = append(t.rows, row)
			pos = end
		}
		d.tables = append(d.tables, t)
	}
}

// readRow reads ncol cells from the pipe at start; a row that ends at a
// line break early (fewer cells) is kept as read.
func readRow(s string, start, ncol int) ([]cell, int) {
	var row []cell
	pos := start + 1
	for len(row) < ncol {
		k := strings.IndexByte(s[pos:], '|')
		if k < 0 {
			return nil, 0
		}
		// A blank line inside a cell ends the table.
		if strings.Contains(s[pos:pos+k], "\n\n") {
			return nil, 0
		}
		row = append(row, cell{pos, pos + k})
		pos += k + 1
	}
	return row, pos
}

// findNumbers reads every number outside code and notes where it stands.
func (d *doc) findNumbers() {
	s := d.masked
	locate := func(off int) (int, int, int) {
		for ti, t := range d.tables {
			for ri, row := range t.rows {
				for ci, c := range row {
					if off >= c.start && off < c.end {
						return ti, ri, ci
					}
				}
			}
			for ci, c := range t.header {
				if off >= c.start && off < c.end {
					return ti, -1, ci
				}
			}
		}
		return -1, 0, 0
	}
	bounds := sentenceBounds(s)
	sentenceOf := func(off int) int {
		return sort.Search(len(bounds), func(i int) bool { return bounds[i] >= off })
	}
	seenPct := map[string]bool{}
	var prev *number
	for _, m := range scanNumbers(s) {
		start, end := m[0], m[1]
		numStart := m[4]
		if start > 0 && isWordByte(s[start-1]) {
			continue
		}
		if numStart > 0 && (isWordByte(s[numStart-1]) || s[numStart-1] == '.') {
			continue
		}
		scale := 1.0
		if end < len(s) && (s[end] == 'k' || s[end] == 'K') && (end+1 == len(s) || !isLetter(s[end+1]) && !isDigit(s[end+1])) {
			scale = 1000 // "2.35k tok/s"
		} else if end < len(s) && (isLetter(s[end]) && !(s[end] == 'x' || s[end] == 'm' || s[end] == 't' || s[end] == 'T' || s[end] == 'r')) {
			continue // 2nd, 80GB
		}
		if end < len(s) && s[end] == '.' && end+1 < len(s) && isDigit(s[end+1]) {
			continue // a version (0.11.0)
		}
		n := &number{off: start, end: end, mult: 1, table: -1}
		if m[2] < m[3] {
			n.sign = s[m[2]]
			if n.sign != '+' {
				n.sign = '-' // '-' or U+2212
			}
		}
		intPart := strings.ReplaceAll(s[m[4]:m[5]], ",", "")
		txt := intPart
		if m[6] >= 0 {
			txt += "." + s[m[6]:m[7]]
			n.dec = m[7] - m[6]
		}
		v, err := strconv.ParseFloat(txt, 64)
		if err != nil {
			continue
		}
		n.v = v * scale
		if n.sign == '-' {
			n.v = -n.v
		}
		n.half = 0.5 * pow10(-n.dec) * scale
		if scale != 1 {
			end++
			n.end = end
		}
		rest := s[end:]
		if loc := reMult.FindStringSubmatchIndex(rest); loc != nil {
			k, _ := strconv.Atoi(rest[loc[2]:loc[3]])
			if k > 0 {
				n.mult = float64(k)
				n.end = end + loc[1]
				rest = s[n.end:]
			}
		}
		if loc := rePct.FindStringIndex(rest); loc != nil {
			n.pct = true
			n.end += loc[1]
		} else if loc := reTimes.FindStringIndex(rest); loc != nil && n.mult == 1 && scale == 1 && (len(rest) == loc[1] || !isLetter(rest[loc[1]]) && !isDigit(rest[loc[1]])) && !reDevices.MatchString(rest[loc[1]:]) {
			n.times = true
			n.end += loc[1]
		} else if loc := reUnit.FindStringSubmatchIndex(rest); loc != nil {
			n.unit = normUnit(rest[loc[2]:loc[3]])
			n.end += loc[1]
		}
		if loc := rePerGPU.FindStringIndex(s[n.end:]); loc != nil {
			n.perGPU = true
		}
		back := s[max(0, start-48):start]
		if l := reLabel.FindStringSubmatch(back); !n.rel() && strings.ContainsAny(back, ":=") && l != nil {
			n.label = strings.Join(strings.Fields(strings.ToLower(l[1])), " ")
			n.labelAs = strings.TrimSpace(l[1])
		}
		if n.pct {
			if reRatioLabel.MatchString(back) {
				n.ratio = true
			}
			key := strings.TrimLeft(s[numStart:n.end], "+-")
			if seenPct[key] {
				n.quote = true
			}
			seenPct[key] = true
		}
		// Attached to the number right before it: "4068.16 (+10.7%)",
		// "**4068.16** (+10.7%)".
		if n.rel() && prev != nil && !prev.rel() && strings.Trim(s[prev.end:start], " \t(*_") == "" && !strings.Contains(s[prev.end:start], "\n") {
			n.attached = prev
		}
		n.table, n.row, n.col = locate(start)
		if n.table >= 0 && n.row >= 0 && n.label == "" && n.unit == "" && !n.rel() && n.col < len(d.tables[n.table].header) {
			// A bare number under a metric column ("| Total TPS (tok/s) |").
			h := d.tables[n.table].header[n.col]
			if l := reHeaderLabel.FindStringSubmatch(s[h.start:h.end]); l != nil {
				n.label = strings.Join(strings.Fields(strings.ToLower(l[1])), " ")
				n.labelAs = strings.Trim(strings.TrimSpace(s[h.start:h.end]), "*")
				if l[2] != "" {
					n.unit = normUnit(l[2])
				}
			} else if u := reHeaderUnit.FindStringSubmatch(s[h.start:h.end]); u != nil && !reHeaderKilo.MatchString(s[h.start:h.end]) {
				// "| vLLM (tok/s) |": the column gives the unit only.
				n.unit = normUnit(u[1])
				n.labelAs = strings.Trim(strings.TrimSpace(s[h.start:h.end]), "*")
			}
			if n.unit != "" && reHeaderPerGPU.MatchString(s[h.start:h.end]) {
				n.perGPU = true
			}
		}
		n.sentence = sentenceOf(start)
		n.threshold = !n.rel() && isThreshold(s[max(0, start-48):start])
		if n.pct && !n.ratio && n.table < 0 {
			// A share in prose: "GPU utilization stayed at 95% while …",
			// "succeeded (100%)", "90% GPU memory".
			from := 0
			if n.sentence > 0 {
				from = bounds[n.sentence-1] + 1
			}
			before := strings.ToLower(s[from:start])
			after := strings.ToLower(s[n.end:min(len(s), n.end+24)])
			if loc := reShareWord.FindAllStringIndex(before, -1); loc != nil && !reChangeWord.MatchString(before[loc[len(loc)-1][1]:]) && !reChangeWord.MatchString(after) {
				n.ratio = true // not "with more memory, 22.5% faster"
			}
			if reShareAfter.MatchString(s[n.end:]) {
				n.ratio = true
			}
		}
		n.metrics = claimMetrics(n)
		d.nums = append(d.nums, n)
		prev = n
	}
	// "from 2352.82 to 4284.68 tok/s": the first number has the unit of
	// the second.
	for i := len(d.nums) - 2; i >= 0; i-- {
		a, b := d.nums[i], d.nums[i+1]
		// Integers only with a thousands separator ("from 2,469 to 3,025
		// tok/s"): "from 64 to 128" may be any count.
		if a.unit == "" && a.label == "" && !a.rel() && (a.dec > 0 || strings.Contains(s[a.off:a.end], ",")) && b.unit != "" && a.table == b.table &&
			reUnitJoin.MatchString(s[a.end:b.off]) {
			a.unit, a.perGPU = b.unit, b.perGPU
			a.metrics = claimMetrics(a)
		}
	}
}

var reUnitJoin = regexp.MustCompile(`^[ \t]*(?:to|and|vs\.?|versus|->|→|/|or)[ \t]*$`)

func isWordByte(b byte) bool { return isLetter(b) || isDigit(b) || b == '_' || b == '/' }
func isLetter(b byte) bool   { return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') }
func isDigit(b byte) bool    { return b >= '0' && b <= '9' }

func normUnit(u string) string {
	u = strings.ToLower(u)
	switch {
	case strings.HasSuffix(u, "user"):
		return "tok/s/user"
	case strings.HasPrefix(u, "tok"), u == "tps":
		return "tok/s"
	case strings.HasPrefix(u, "req"):
		return "req/s"
	}
	return u
}

// claim reports whether a number is presented as a result: a percentage,
// or a number with a metric label or a unit.
func (n *number) claim() bool {
	return !n.threshold && (n.rel() || n.label != "" || n.unit != "")
}

var (
	reBoundOp   = regexp.MustCompile(`(?:<=?|>=?|≤|≥|&lt;=?|&gt;=?)[ \t]*$`)
	reBoundWord = regexp.MustCompile(`(?i)\b(?:under|below|at most|within|up to)[ \t]*$`)
	reWordEnd   = regexp.MustCompile(`([A-Za-z][A-Za-z/]*)[ \t*]*$`)
)

// isThreshold says whether the text before a number makes it a bound (an
// SLO, a target): "mean TTFT < 500 ms", "TPOT <= 50 ms", "under 400 ms";
// not a ranking of two numbers, "3,024.68 tok/s > 2,468.90 tok/s".
func isThreshold(back string) bool {
	if reBoundWord.MatchString(back) {
		return true
	}
	loc := reBoundOp.FindStringIndex(back)
	if loc == nil {
		return false
	}
	w := reWordEnd.FindStringSubmatch(back[:loc[0]])
	if w == nil {
		return false // after a number or a parenthesis: a ranking
	}
	switch normUnit(w[1]) {
	case "tok/s", "req/s", "tok/s/user", "ms", "s":
		return false // "… tok/s > …"
	}
	return true
}

// The scanners below replace regular expressions that were most of the
// check's time (no literal prefix to search for); they return what
// FindAllStringSubmatchIndex returned.

// fenceMarks finds runs of three or more backticks or tildes and the info
// string glued to them: [start, end, mark start, mark end, info start,
// info end].
func fenceMarks(s string) [][]int {
	var out [][]int
	for i := 0; i+2 < len(s); i++ {
		c := s[i]
		if (c != '`' && c != '~') || s[i+1] != c || s[i+2] != c {
			continue
		}
		j := i + 3
		for j < len(s) && s[j] == c {
			j++
		}
		k := j
		for k < len(s) && (isLetter(s[k]) || isDigit(s[k]) || s[k] == '_' || s[k] == '+' || s[k] == '-') {
			k++
		}
		out = append(out, []int{i, k, i, j, j, k})
		i = k - 1
	}
	return out
}

// scanNumbers finds numbers: an optional sign, digits (with thousands
// separators "4,636"), optional decimals: [start, end, sign start, sign
// end, int start, int end, decimals start, decimals end] (-1 for no
// decimals).
func scanNumbers(s string) [][]int {
	var out [][]int
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			continue
		}
		start, sign := i, i
		if i > 0 && (s[i-1] == '+' || s[i-1] == '-') {
			start, sign = i-1, i-1
		} else if strings.HasSuffix(s[:i], "−") {
			start, sign = i-len("−"), i-len("−") // a typeset minus, "−35.0%"
		}
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j-i <= 3 {
			for j+3 < len(s) && s[j] == ',' && isDigit(s[j+1]) && isDigit(s[j+2]) && isDigit(s[j+3]) && (j+4 == len(s) || !isDigit(s[j+4])) {
				j += 4
			}
		}
		intEnd := j
		ds, de := -1, -1
		if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
			k := j + 1
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			ds, de = j+1, k
			j = k
		}
		out = append(out, []int{start, j, sign, i, i, intEnd, ds, de})
		i = j - 1
	}
	return out
}

// sentenceBounds returns where sentences end: a full stop, semicolon,
// question or exclamation mark before a space or line break, a blank line,
// or the start of a list item.
func sentenceBounds(s string) []int {
	var out []int
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.', ';', '!', '?':
			if i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t' || s[i+1] == '\n' {
				out = append(out, i)
			}
		case '\n':
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if j < len(s) && s[j] == '\n' {
				out = append(out, i)
				continue
			}
			if j+1 < len(s) && (s[j] == '-' || s[j] == '*' || s[j] == '+') && (s[j+1] == ' ' || s[j+1] == '\t') {
				out = append(out, i)
				continue
			}
			k := j
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			if k > j && k+1 < len(s) && s[k] == '.' && (s[k+1] == ' ' || s[k+1] == '\t') {
				out = append(out, i)
			}
		}
	}
	return out
}
