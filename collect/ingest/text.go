package ingest

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/schema"
)

// The tokens of a text block. The scanner is positional: it skips any
// whitespace (newlines included) between tokens, so a block whose line
// breaks were lost reads like one that kept them.
var (
	reHeader = regexp.MustCompile(`^=+[ \t]*Serving Benchmark Result[ \t]*=+`)
	reClose  = regexp.MustCompile(`^={10,}`)
	// A section header: dashes, a title on one line that does not start
	// or end with a dash, dashes ("End-to-end Latency" has single dashes
	// inside, which the lazy title skips).
	reSection = regexp.MustCompile(`^-{3,}([^-\n][^\n]*?)-{3,}`)
	// A row: a label up to the first colon and the value after it (which
	// may be missing, as in "Per-position acceptance (%):").
	// SGLang's "Max request concurrency: not set" is the one two-word value.
	reRow = regexp.MustCompile(`^([A-Za-z][^:\n=]*?):[ \t]*(not set\b|[^ \t\n]*)`)
	// Latency rows of the TTFT/TPOT/ITL/E2EL sections (milliseconds).
	reStatRow = regexp.MustCompile(`^(Mean|Median|Std|P(\d+(?:\.\d+)?)) (TTFT|TPOT|ITL|E2EL) \(ms\)$`)
	// Rows of GPUStack's Latency section (seconds).
	reLatencyRow = regexp.MustCompile(`^(Mean|Median|Std|P(\d+(?:\.\d+)?)) Latency ?\(s\)$`)
)

// knownSections are the section titles the parser understands; rows in
// other sections are kept in the raw output only, with a warning.
var knownSections = map[string]bool{
	"Time to First Token":                     true,
	"Time per Output Token (excl. 1st token)": true,
	"Inter-token Latency":                     true,
	"End-to-end Latency":                      true,
	"Latency":                                 true,
	"Client-side Queueing":                    true,
	"Queue-inclusive End-to-end Latency":      true,
	"Speculative Decoding":                    true,
	"Probe Requests":                          true,
}

// ignoredRow reports rows that vLLM prints but the schema has no field for;
// they stay in the raw output without a warning.
func ignoredRow(label string) bool {
	switch {
	case strings.HasPrefix(label, "RTFx"),
		strings.Contains(label, "Client Queue"),
		strings.HasPrefix(label, "Acceptance "),
		label == "Drafts", label == "Draft tokens", label == "Accepted tokens",
		strings.HasPrefix(label, "Per-position acceptance"),
		strings.HasPrefix(label, "Position "),
		strings.HasPrefix(label, "Probe "):
		return true
	}
	return false
}

// token is one element of a text block.
type token struct {
	kind  byte // 'h' header, 's' section, 'r' row, 'c' closing line
	start int  // byte offset in the file
	end   int
	text  string // header/closing text as found; section title; row label
	value string // row value
	full  string // a section header line as found
}

// textBlock is a parsed text block before it becomes an Entry.
type textBlock struct {
	start, end int
	line       int
	raw        string
	gpustack   bool
	// sglang: rows or sections only SGLang's bench_serving prints
	// (sglang.go); such a block is never GPUStack's although it has P95 rows.
	sglang    bool
	hasTotal  bool
	meta      map[string]string
	collapsed bool
	summary   *schema.Summary
	// requestRate is the "Request rate configured (RPS)" row, when present.
	requestRate *float64
	// noFailedRow: the block has no "Failed requests" row (older vLLM,
	// GPUStack), so Summary.Failed = 0 says nothing.
	noFailedRow bool
	notes       []string
}

// nextBlockStart finds the next text block at or after pos: a header line
// or, for blocks printed without their header, the first row.
func nextBlockStart(text string, pos int) int {
	if s := schema.BenchmarkTextStart(text[pos:]); s >= 0 {
		return pos + s
	}
	return -1
}

// scanBlock reads the block starting at start. name is the file name for
// errors. It returns the parsed block; end is the offset just past it.
func scanBlock(name, text string, start int) (*textBlock, error) {
	return scanBlockMode(name, text, start, false)
}

// scanBlockMode is scanBlock; with cut, a block that ends before its
// closing "=====" line (the end of the file, a new header, a line that
// is no row) ends after its last row instead of being an error, and says
// so in a note.
func scanBlockMode(name, text string, start int, cut bool) (*textBlock, error) {
	var toks []token
	pos := start
	closed := false
	var cutNote string
	stop := func(err error) error {
		if !cut || len(toks) == 0 || toks[len(toks)-1].kind == 'h' {
			return err
		}
		cutNote = fmt.Sprintf("the block is cut short at line %d (no closing \"=====\" line): only the rows before it are read", lineAt(text, pos))
		pos = toks[len(toks)-1].end
		closed = true
		return nil
	}
	for !closed {
		// Skip whitespace, including line breaks.
		for pos < len(text) && (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r') {
			pos++
		}
		rest := text[pos:]
		if rest == "" {
			if stop(nil) == nil && closed {
				break
			}
			return nil, fmt.Errorf("%s:%d: truncated benchmark block (it starts at line %d): expected a \"label: value\" row or the closing \"=====\" line, found the end of the file",
				name, lineAt(text, pos), lineAt(text, start))
		}
		switch {
		case reHeader.MatchString(rest):
			loc := reHeader.FindStringIndex(rest)
			if len(toks) > 0 {
				if err := stop(fmt.Errorf("%s:%d: truncated benchmark block (it starts at line %d): a new \"Serving Benchmark Result\" header begins before the closing \"=====\" line",
					name, lineAt(text, pos), lineAt(text, start))); err != nil || closed {
					if err != nil {
						return nil, err
					}
					continue
				}
			}
			toks = append(toks, token{kind: 'h', start: pos, end: pos + loc[1], text: rest[:loc[1]]})
			pos += loc[1]
		case reClose.MatchString(rest):
			loc := reClose.FindStringIndex(rest)
			toks = append(toks, token{kind: 'c', start: pos, end: pos + loc[1], text: rest[:loc[1]]})
			pos += loc[1]
			closed = true
		case reSection.MatchString(rest):
			m := reSection.FindStringSubmatchIndex(rest)
			toks = append(toks, token{kind: 's', start: pos, end: pos + m[1], text: strings.TrimSpace(rest[m[2]:m[3]]), full: rest[:m[1]]})
			pos += m[1]
		case reRow.MatchString(rest):
			m := reRow.FindStringSubmatchIndex(rest)
			toks = append(toks, token{kind: 'r', start: pos, end: pos + m[1],
				text: strings.Join(strings.Fields(rest[m[2]:m[3]]), " "), value: rest[m[4]:m[5]]})
			pos += m[1]
		default:
			if err := stop(fmt.Errorf("%s:%d: benchmark block (it starts at line %d) is cut short: expected a \"label: value\" row or the closing \"=====\" line, found %q",
				name, lineAt(text, pos), lineAt(text, start), excerpt(rest))); err != nil {
				return nil, err
			}
		}
	}
	b := &textBlock{start: start, end: pos, line: lineAt(text, start)}
	// Line breaks are lost when two tokens share a line.
	for i := 1; i < len(toks); i++ {
		if !strings.Contains(text[toks[i-1].end:toks[i].start], "\n") {
			b.collapsed = true
			break
		}
	}
	if b.collapsed {
		b.raw = rebreak(toks)
		b.notes = append(b.notes, "the source had lost the block's line breaks; the raw output was re-broken at row boundaries (values unchanged)")
	} else {
		// Keep the rest of the closing line (vLLM's trailing spaces), and
		// remove the indentation the block has in its source (Markdown
		// admonitions indent fenced blocks by four spaces).
		end := pos
		for end < len(text) && (text[end] == ' ' || text[end] == '\t') {
			end++
		}
		b.raw = dedent(text, start, end)
	}
	if cutNote != "" {
		b.notes = append(b.notes, cutNote)
	}
	if err := b.fill(name, text, toks); err != nil {
		return nil, err
	}
	return b, nil
}

// rebreak lays the tokens of a block that lost its line breaks out again,
// one per line, with rows in vLLM's "%-40s %s" layout.
func rebreak(toks []token) string {
	var sb strings.Builder
	for _, t := range toks {
		switch t.kind {
		case 'r':
			sb.WriteString(strings.TrimRight(fmt.Sprintf("%-40s %s", t.text+":", t.value), " "))
		case 's':
			sb.WriteString(t.full)
		default:
			sb.WriteString(t.text)
		}
		sb.WriteByte('\n')
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// dedent returns text[start:end] without the indentation that the block's
// first line has in the file, removed from every following line too.
func dedent(text string, start, end int) string {
	ls := strings.LastIndexByte(text[:start], '\n') + 1
	indent := text[ls:start]
	if strings.TrimLeft(indent, " \t") != "" {
		indent = "" // the block starts mid-line
	}
	lines := strings.Split(text[start:end], "\n")
	for i := 1; i < len(lines); i++ {
		l := lines[i]
		n := 0
		for n < len(indent) && n < len(l) && (l[n] == ' ' || l[n] == '\t') {
			n++
		}
		lines[i] = strings.TrimRight(l[n:], "\r")
	}
	return strings.Join(lines, "\n")
}

// fill turns the rows into the summary.
func (b *textBlock) fill(name, text string, toks []token) error {
	s := &schema.Summary{}
	stats := map[string]*schema.Stats{}
	seen := map[string]int{}
	section := ""
	line, prev := b.line, b.start
	for _, t := range toks {
		// Lines counted incrementally: lineAt per row would rescan the file.
		line += strings.Count(text[prev:t.start], "\n")
		prev = t.start
		switch t.kind {
		case 's':
			section = t.text
			if section == "Latency" {
				b.gpustack = true
			}
			if sglangSections[section] {
				b.sglang = true
			}
			if !knownSections[section] && !sglangSections[section] {
				b.notes = append(b.notes, fmt.Sprintf("section %q is not known to perflab import; its rows are kept in the raw output only", section))
			}
			continue
		case 'r':
		default:
			continue
		}
		label, val := t.text, t.value
		if prev, ok := seen[label]; ok {
			return fmt.Errorf("%s:%d: row %q appears twice in one block (first at line %d)", name, line, label+":", prev)
		}
		seen[label] = line
		if ignoredRow(label) || (section != "" && !knownSections[section] && !sglangSections[section]) {
			continue
		}
		if m := reStatRow.FindStringSubmatch(label); m != nil {
			if m[2] == "95" { // vLLM prints P99 by default; GPUStack adds P95
				b.gpustack = true
			}
			v, ok, err := number(name, line, label, val)
			if err != nil {
				return err
			}
			if !ok {
				b.notes = append(b.notes, fmt.Sprintf("%q is %q: not measured", label, val))
				continue
			}
			addStat(stats, m[3], m[1], m[2], v)
			continue
		}
		if m := reLatencyRow.FindStringSubmatch(label); m != nil {
			b.gpustack = true
			v, ok, err := number(name, line, label, val)
			if err != nil {
				return err
			}
			if !ok {
				b.notes = append(b.notes, fmt.Sprintf("%q is %q: not measured", label, val))
				continue
			}
			addStat(stats, "E2EL", m[1], m[2], secondsToMs(val, v))
			continue
		}
		if ok, err := b.sglangRow(name, line, label, val, s, stats); ok || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		var err error
		switch strings.ToLower(label) {
		case "successful requests":
			s.Completed, err = integer(name, line, label, val)
		case "failed requests":
			s.Failed, err = integer(name, line, label, val)
		case "maximum request concurrency":
			var n int
			if n, err = integer(name, line, label, val); err == nil {
				s.MaxConcurrency = schema.I(n)
			}
		case "request rate configured (rps)":
			var v float64
			var ok bool
			if v, ok, err = number(name, line, label, val); err == nil && ok {
				b.requestRate = &v
			}
		case "benchmark duration (s)":
			s.DurationS, err = required(name, line, label, val)
		case "total input tokens":
			s.TotalInputTokens, err = integer(name, line, label, val)
		case "total generated tokens":
			s.TotalOutputTokens, err = integer(name, line, label, val)
		case "request throughput (req/s)":
			s.RequestThroughput, err = required(name, line, label, val)
		case "request goodput (req/s)":
			s.RequestGoodput, err = optional(name, line, label, val)
		case "output token throughput (tok/s)":
			s.OutputThroughput, err = required(name, line, label, val)
		case "peak output token throughput (tok/s)":
			s.MaxOutputTokensPerS, err = optional(name, line, label, val)
		case "peak concurrent requests":
			var n int
			if n, err = integer(name, line, label, val); err == nil {
				s.MaxConcurrentRequests = schema.I(n)
			}
		case "total token throughput (tok/s)":
			s.TotalTokenThroughput, err = required(name, line, label, val)
		default:
			b.notes = append(b.notes, fmt.Sprintf("row %q is not known to perflab import; it is kept in the raw output only", label+":"))
		}
		if err != nil {
			return err
		}
	}
	for _, req := range []string{"Successful requests", "Benchmark duration (s)", "Total input tokens", "Request throughput (req/s)"} {
		if _, ok := seen[req]; !ok {
			return fmt.Errorf("%s:%d: benchmark block is missing its %q row", name, b.line, req+":")
		}
	}
	if _, ok := seen["Failed requests"]; !ok {
		b.noFailedRow = true
	}
	if _, ok := seenFold(seen, "Total token throughput (tok/s)"); !ok && !b.hasTotal {
		b.notes = append(b.notes, "the block has no total token throughput row (vLLM omits it without a tokenizer)")
	}
	for _, st := range stats {
		sort.Slice(st.Percentiles, func(i, j int) bool { return st.Percentiles[i].P < st.Percentiles[j].P })
	}
	if b.sglang {
		b.gpustack = false // SGLang prints P95 rows too
	}
	s.TTFT, s.TPOT, s.ITL, s.E2EL = stats["TTFT"], stats["TPOT"], stats["ITL"], stats["E2EL"]
	b.summary = s
	return nil
}

func seenFold(seen map[string]int, label string) (int, bool) {
	for k, v := range seen {
		if strings.EqualFold(k, label) {
			return v, true
		}
	}
	return 0, false
}

// addStat records one latency row.
func addStat(stats map[string]*schema.Stats, metric, kind, pct string, v float64) {
	st := stats[metric]
	if st == nil {
		st = &schema.Stats{}
		stats[metric] = st
	}
	switch kind {
	case "Mean":
		st.MeanMs = schema.F(v)
	case "Median":
		st.MedianMs = schema.F(v)
	case "Std":
		st.StdMs = schema.F(v)
	default:
		p, _ := strconv.ParseFloat(pct, 64) // the regexp admits numbers only
		st.Percentiles = append(st.Percentiles, schema.Percentile{P: p, ValueMs: v})
	}
}

// secondsToMs converts a value printed in seconds to milliseconds without
// adding binary noise: the result is rounded to the digits the text had.
func secondsToMs(text string, v float64) float64 {
	places := 0
	if i := strings.IndexByte(text, '.'); i >= 0 {
		places = len(text) - i - 1 - 3
	}
	if places < 0 {
		places = 0
	}
	scale := math.Pow10(places)
	return math.Round(v*1000*scale) / scale
}

// number parses a row value. ok is false for values that say "not
// measured" ("nan", "N/A"); anything else that is not a finite number is an
// error naming the file, line and row.
func number(name string, line int, label, val string) (float64, bool, error) {
	switch strings.ToLower(val) {
	case "nan", "n/a", "none", "-":
		return 0, false, nil
	case "":
		return 0, false, fmt.Errorf("%s:%d: row %q has no value: expected a number", name, line, label+":")
	}
	v, err := strconv.ParseFloat(val, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false, fmt.Errorf("%s:%d: row %q: value %q is not a number", name, line, label+":", val)
	}
	return v, true, nil
}

// required parses a value the summary cannot do without.
func required(name string, line int, label, val string) (float64, error) {
	v, ok, err := number(name, line, label, val)
	if err == nil && !ok {
		err = fmt.Errorf("%s:%d: row %q: value %q is not a number", name, line, label+":", val)
	}
	return v, err
}

// optional parses a value that may be "not measured" (nil).
func optional(name string, line int, label, val string) (*float64, error) {
	v, ok, err := number(name, line, label, val)
	if err != nil || !ok {
		return nil, err
	}
	return schema.F(v), nil
}

// integer parses a count. vLLM prints some counts as floats ("984.00"),
// which is accepted when the value is whole.
func integer(name string, line int, label, val string) (int, error) {
	if n, err := strconv.Atoi(val); err == nil {
		return n, nil
	}
	v, err := required(name, line, label, val)
	if err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
		return 0, fmt.Errorf("%s:%d: row %q: value %q is not a whole number", name, line, label+":", val)
	}
	return int(v), nil
}

// lineAt returns the 1-based line of a byte offset.
func lineAt(text string, off int) int {
	if off > len(text) {
		off = len(text)
	}
	return strings.Count(text[:off], "\n") + 1
}

// excerpt shortens s for an error message.
func excerpt(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return s
}
