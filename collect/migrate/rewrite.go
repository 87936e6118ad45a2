package migrate

import (
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
)

// replacement swaps lines [from, to] of the page for lines.
type replacement struct {
	from, to int
	lines    []string
}

var (
	reImage    = regexp.MustCompile(`!\[[^\]]*\]\([^)\s]+\.(?i:png|jpe?g|svg|gif|webp)\)`)
	reTableSep = regexp.MustCompile(`^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$`)
)

func block(indent string, kv ...string) []string {
	out := []string{indent + "```perflab"}
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, indent+kv[i]+": "+kv[i+1])
	}
	return append(out, indent+"```")
}

func indentOf(s string) string { return s[:len(s)-len(strings.TrimLeft(s, " \t"))] }

// rewrite makes the report page: front matter naming the campaign, the
// narrative as it was, raw outputs as generated raw blocks, result tables
// and chart images as generated blocks (the original tables collapsed
// below them).
func (m *migration) rewrite(c *schema.Campaign) []byte {
	p := m.p
	var reps []replacement
	// Outputs, grouped by the fence that holds them.
	type group struct {
		open, close int
		entries     []int
	}
	var groups []*group
	for i, e := range m.entries {
		idx := e.Line - 1
		open, close := m.fenceAround(idx)
		if open < 0 {
			end := idx
			if e.End > 0 {
				end = strings.Count(p.text()[:e.End], "\n")
			}
			open, close = idx, end
		}
		if n := len(groups); n > 0 && groups[n-1].open == open {
			groups[n-1].entries = append(groups[n-1].entries, i)
			continue
		}
		groups = append(groups, &group{open: open, close: close, entries: []int{i}})
	}
	curves := map[string]bool{} // sweep profiles whose curves are placed
	for _, g := range groups {
		from, to := g.open, g.close
		ind := indentOf(p.lines[g.open])
		// An admonition holding nothing but this fence goes too.
		if a := prevNonBlank(p, g.open); a >= 0 && reAdmonition.MatchString(strings.TrimSpace(p.lines[a])) &&
			len(indentOf(p.lines[a])) < len(ind) && nextNonBlankIndentLE(p, g.close, len(indentOf(p.lines[a]))) {
			from = a
			ind = indentOf(p.lines[a])
		}
		var lines []string
		for k, ei := range g.entries {
			pl := m.places[ei]
			if k > 0 {
				lines = append(lines, "")
			}
			pr, _ := c.Profile(pl.profile)
			if pr == nil || pr.Sweep() == "" {
				lines = append(lines, block(ind, "block", "raw", "experiment", pl.exp.ID, "profile", pl.profile)...)
				continue
			}
			// A sweep's outputs: its curves before the first, each output
			// the raw block of its own point.
			if !curves[pl.profile] {
				curves[pl.profile] = true
				lines = append(lines, block(ind, "block", "curve", "profile", pl.profile)...)
				lines = append(lines, "")
				lines = append(lines, block(ind, "block", "latency-curve", "profile", pl.profile)...)
				lines = append(lines, "")
				m.note(g.open, "the outputs of sweep profile %s: generated curve and latency-curve blocks before the first", pl.profile)
			}
			pt := entryPoint(&m.entries[ei], pr.Sweep())
			lines = append(lines, block(ind, "block", "raw", "experiment", pl.exp.ID, "profile", pl.profile, "point", pt.Slug())...)
		}
		reps = append(reps, replacement{from, to, lines})
	}
	// Tables.
	for i := 0; i+1 < len(p.lines); i++ {
		t := strings.TrimSpace(p.lines[i])
		if !strings.HasPrefix(t, "|") || !reTableSep.MatchString(strings.TrimSpace(p.lines[i+1])) || insideFence(p, i) {
			continue
		}
		end := i + 1
		for end+1 < len(p.lines) && strings.HasPrefix(strings.TrimSpace(p.lines[end+1]), "|") {
			end++
		}
		kind := ""
		head := strings.ToLower(t)
		h := p.enclosing(i, 3)
		switch {
		case strings.Contains(head, "baseline") && strings.Contains(head, "optimi"):
			if st := m.stepOf(i); st != nil && len(st.Experiments) > 0 {
				// A step's own before/after table: the campaign's
				// comparison block would show other runs. Kept.
				m.note(i, "table kept: it compares runs within step %s, which no generated block shows as such", st.ID)
				break
			}
			kind = "comparison"
			if h != nil && strings.Contains(strings.ToLower(h.title), "summary of optimization") {
				kind = "summary"
			}
		case h != nil && strings.Contains(strings.ToLower(h.title), "summary of optimization"):
			kind = "summary"
		}
		if kind == "" {
			i = end
			continue
		}
		ind := indentOf(p.lines[i])
		lines := block(ind, "block", kind)
		lines = append(lines, "", ind+`??? note "Original table (as published, before migration)"`)
		for k := i; k <= end; k++ {
			lines = append(lines, ind+"    "+strings.TrimSpace(p.lines[k]))
		}
		m.note(i, "hand-made table replaced by a generated %q block (the original kept collapsed)", kind)
		reps = append(reps, replacement{i, end, lines})
		i = end
	}
	// Chart images.
	for i, l := range p.lines {
		if insideFence(p, i) || !reImage.MatchString(l) {
			continue
		}
		if h := m.setupSection(i); h != "" {
			// A diagram of the setup (the GPUs' topology) is no chart.
			m.note(i, "image kept: it is in the %q section, not a result chart", h)
			continue
		}
		ind := indentOf(l)
		metric := "total_token_throughput"
		if c.Objective == "latency" {
			metric = "mean_ttft"
		}
		// The text around the image keeps its place: what comes before
		// it stays before the chart, what follows it comes after.
		loc := reImage.FindStringIndex(l)
		var lines []string
		if before := strings.TrimSpace(l[:loc[0]]); before != "" {
			lines = append(lines, ind+before, "")
		}
		lines = append(lines, block(ind, "block", "chart", "metric", metric)...)
		if rest := strings.TrimSpace(reImage.ReplaceAllString(l[loc[0]:], "")); rest != "" {
			lines = append(lines, "", ind+rest)
		}
		m.note(i, "chart image replaced by a generated chart block")
		reps = append(reps, replacement{i, i, lines})
	}
	sort.Slice(reps, func(a, b int) bool { return reps[a].from < reps[b].from })
	// Front matter: the page's own title and description (MkDocs' other
	// keys dropped), else the title heading's; the campaign.
	fm := map[string]any{}
	for k, v := range m.fm {
		fm[k] = v
	}
	m.dropFrontMatterKeys(fm)
	if t, ok := fm["title"].(string); !ok || t == "" {
		fm["title"] = c.Title
	}
	fm["campaign"] = "campaign.yaml"
	out := append(frontMatterLines(fm), "")
	next := p.fmEnd + 1
	// The page's title (its first level-1 heading, outside code fences)
	// goes to the front matter; a "# comment" in a fence is no title.
	h1 := -1
	for _, h := range p.heads {
		if h.level == 1 {
			h1 = h.idx
			break
		}
	}
	for _, r := range reps {
		if r.from < next {
			continue // overlapping (a table inside an output's admonition): keep the first
		}
		out = appendLines(out, p.lines, next, r.from, h1)
		// A generated block stands apart from the text around it.
		if n := len(out); n > 0 && strings.TrimSpace(out[n-1]) != "" {
			out = append(out, "")
		}
		out = append(out, r.lines...)
		next = r.to + 1
		if next < len(p.lines) && strings.TrimSpace(p.lines[next]) != "" {
			out = append(out, "")
		}
	}
	out = appendLines(out, p.lines, next, len(p.lines), h1)
	return []byte(strings.TrimRight(strings.Join(out, "\n"), "\n") + "\n")
}

// appendLines appends lines[from:to], leaving out line skip.
func appendLines(out, lines []string, from, to, skip int) []string {
	for i := from; i < to; i++ {
		if i != skip {
			out = append(out, lines[i])
		}
	}
	return out
}

func yamlString(s string) string {
	if s == "" || strings.ContainsAny(s, ":#'\"{}[]&*!|>%@`") {
		return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
	}
	return s
}

var (
	reInlineLink = regexp.MustCompile(`(\]\()([^)\s]+)`)
	reHTMLLink   = regexp.MustCompile(`((?:href|src)=")([^"]+)`)
	reRefDef     = regexp.MustCompile(`^(\s*\[[^\]]+\]:\s*)(\S+)`)
	reScheme     = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// deeperLinks rewrites the relative link destinations of a page that moves
// one folder down (a/b.md becomes a/b/index.md): links resolve against
// the page's folder, so "../index.md" must become "../../index.md" to
// name the same file. Code fences are left alone.
func deeperLinks(text []byte) []byte {
	shift := func(dest string) string {
		if dest == "" || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "/") || reScheme.MatchString(dest) {
			return dest
		}
		return "../" + strings.TrimPrefix(dest, "./")
	}
	lines := strings.Split(string(text), "\n")
	var fs fenceState
	for i, l := range lines {
		if fs.fenceLine(l) || fs.open != "" {
			continue
		}
		repl := func(re *regexp.Regexp, l string) string {
			return re.ReplaceAllStringFunc(l, func(m string) string {
				sm := re.FindStringSubmatch(m)
				return sm[1] + shift(sm[2])
			})
		}
		l = repl(reInlineLink, l)
		l = repl(reHTMLLink, l)
		l = repl(reRefDef, l)
		lines[i] = l
	}
	return []byte(strings.Join(lines, "\n"))
}

// setupSection names the setup section (Model, Hardware, Engine Version,
// Benchmark …) line i is in, "" when it is in none.
func (m *migration) setupSection(i int) string {
	for level := 4; level >= 2; level-- {
		h := m.p.enclosing(i, level)
		if h == nil {
			continue
		}
		switch t := strings.ToLower(cleanTitle(h.title)); {
		case t == "conclusion" || t == "conclusions" || t == "optimization objective" || t == "objective":
			return ""
		case notResults(t) || strings.HasPrefix(t, "benchmark ") && !strings.Contains(t, "result") || t == "environment" || t == "test environment":
			return cleanTitle(h.title)
		}
	}
	return ""
}

// localLinks lists the relative link destinations of a page that name
// files other than pages (images, downloads), outside code fences, with
// fragments and queries cut off.
func localLinks(text []byte) (dests []string) {
	var fs fenceState
	for _, l := range strings.Split(string(text), "\n") {
		if fs.fenceLine(l) || fs.open != "" {
			continue
		}
		for _, re := range []*regexp.Regexp{reInlineLink, reHTMLLink, reRefDef} {
			for _, sm := range re.FindAllStringSubmatch(l, -1) {
				d := sm[2]
				if k := strings.IndexAny(d, "#?"); k >= 0 {
					d = d[:k]
				}
				if d == "" || strings.HasPrefix(d, "/") || reScheme.MatchString(d) || strings.EqualFold(path.Ext(d), ".md") {
					continue
				}
				dests = append(dests, d)
			}
		}
	}
	return dests
}

// fenceAround returns the fence lines around line idx, or -1, -1.
func (m *migration) fenceAround(idx int) (int, int) {
	p := m.p
	if !insideFence(p, idx) {
		return -1, -1
	}
	open, close := idx, idx
	for open >= 0 && insideFence(p, open) {
		open--
	}
	for close < len(p.lines) && insideFence(p, close) {
		close++
	}
	if open < 0 || close >= len(p.lines) {
		return -1, -1
	}
	return open, close
}

func prevNonBlank(p *page, i int) int {
	for k := i - 1; k >= 0; k-- {
		if strings.TrimSpace(p.lines[k]) != "" {
			return k
		}
	}
	return -1
}

// nextNonBlankIndentLE: the line after i that is not blank is indented no
// more than n (the admonition ends with the fence).
func nextNonBlankIndentLE(p *page, i, n int) bool {
	for k := i + 1; k < len(p.lines); k++ {
		if strings.TrimSpace(p.lines[k]) != "" {
			return len(indentOf(p.lines[k])) <= n
		}
	}
	return true
}

var _ = ingest.FormatCrash
