package migrate

import (
	"regexp"
	"strings"
)

// page is a source page as lines, with the line each comes from in the
// original file (a page that lost its line breaks is re-broken first, and
// every piece keeps the number of the line it came from).
type page struct {
	name    string
	lines   []string
	orig    []int // orig[i] is the 1-based source line of lines[i]
	relined bool
	heads   []heading
	fenced  []bool // fenced[i]: line i is inside a code fence
	// fmEnd is the line closing the page's YAML front matter (lines
	// 0..fmEnd), -1 when it has none.
	fmEnd int
}

type heading struct {
	idx   int // index into lines
	level int
	title string
}

var (
	reHeading    = regexp.MustCompile(`^(#{1,6})[ \t]+(.+?)[ \t#]*$`)
	reAdmonition = regexp.MustCompile(`^(\?\?\?\+?|!!!)[ \t]+([A-Za-z-]+)(?:[ \t]+"([^"]*)")?[ \t]*$`)
	reFenceLine  = regexp.MustCompile("^[ \t]*(```|~~~)([A-Za-z0-9_-]*)[ \t]*$")
)

// newPage splits a source into lines, re-breaking collapsed lines.
func newPage(name, text string) *page {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.TrimPrefix(text, "\ufeff") // a byte order mark is no text
	p := &page{name: name}
	src := strings.Split(text, "\n")
	for _, l := range src {
		if collapsed(l) {
			p.relined = true
		}
	}
	if p.relined {
		for _, pc := range relineText(text) {
			// A piece can hold line breaks of its own (a source line that
			// was already broken inside a collapsed page): one entry per
			// line, so that line numbers counted in the page's text (as
			// ingest counts them) index lines.
			line := strings.Count(text[:pc.off], "\n") + 1
			for k, l := range strings.Split(pc.text, "\n") {
				p.lines = append(p.lines, l)
				p.orig = append(p.orig, line+k)
			}
		}
	} else {
		for i, l := range src {
			p.lines = append(p.lines, l)
			p.orig = append(p.orig, i+1)
		}
	}
	// Front matter: "---" on the first line, closed by "---" or "...".
	p.fmEnd = -1
	if !p.relined && len(p.lines) > 1 && strings.TrimRight(p.lines[0], " \t") == "---" {
		for i := 1; i < len(p.lines); i++ {
			if t := strings.TrimRight(p.lines[i], " \t"); t == "---" || t == "..." {
				p.fmEnd = i
				break
			}
		}
	}
	var fs fenceState
	p.fenced = make([]bool, len(p.lines))
	for i, l := range p.lines {
		if i <= p.fmEnd {
			continue // a "# comment" in the front matter is no heading
		}
		if fs.fenceLine(l) {
			continue
		}
		p.fenced[i] = fs.open != ""
		if fs.open != "" {
			continue
		}
		if m := reHeading.FindStringSubmatch(l); m != nil {
			p.heads = append(p.heads, heading{idx: i, level: len(m[1]), title: strings.TrimSpace(m[2])})
		}
	}
	return p
}

// fenceState follows code fences line by line: a fence opened with ```
// closes only with ``` (a ~~~ line inside it is content), and the other
// way round.
type fenceState struct {
	open string // the opening marker, "" outside a fence
}

// fenceLine reports whether l opens or closes a fence, and follows it.
func (f *fenceState) fenceLine(l string) bool {
	m := reFenceLine.FindStringSubmatch(l)
	if m == nil || (f.open != "" && m[1] != f.open) {
		return false
	}
	if f.open == "" {
		f.open = m[1]
	} else {
		f.open = ""
	}
	return true
}

// text is the page as the parsers see it (re-broken where needed).
func (p *page) text() string { return strings.Join(p.lines, "\n") }

// loc names a line of the page for the report: FILE:LINE of the source.
func (p *page) loc(idx int) string {
	if idx < 0 || idx >= len(p.orig) {
		return p.name
	}
	return p.name + ":" + itoa(p.orig[idx])
}

// section returns the line range [from, to) of the content under the first
// heading whose title matches (case-insensitive, after a leading "N. "),
// or -1, -1.
func (p *page) section(match func(title string) bool) (int, int) {
	for k := range p.heads {
		if match(cleanTitle(p.heads[k].title)) {
			return p.sectionAt(&p.heads[k])
		}
	}
	return -1, -1
}

// sectionAt returns the content range of a heading.
func (p *page) sectionAt(h *heading) (int, int) {
	for k := range p.heads {
		if p.heads[k].idx == h.idx {
			end := len(p.lines)
			for _, n := range p.heads[k+1:] {
				if n.level <= h.level {
					end = n.idx
					break
				}
			}
			return h.idx + 1, end
		}
	}
	return -1, -1
}

// sectionNamed is section with an exact (case-insensitive) title.
func (p *page) sectionNamed(names ...string) (int, int) {
	return p.section(func(t string) bool {
		for _, n := range names {
			if strings.EqualFold(t, n) {
				return true
			}
		}
		return false
	})
}

// enclosing returns the nearest heading of the given level above line idx
// (nil when none, or when a heading of a higher level comes between).
func (p *page) enclosing(idx, level int) *heading {
	var best *heading
	for k := range p.heads {
		h := &p.heads[k]
		if h.idx >= idx {
			break
		}
		if h.level < level {
			best = nil
		}
		if h.level == level {
			best = h
		}
	}
	return best
}

var (
	reStepNumber = regexp.MustCompile(`^\d+[.)]\s+`)
	reHeadAttrs  = regexp.MustCompile(`\s*\{[:#.][^}]*\}\s*$`)
	reMDLink     = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// cleanTitle drops a leading step number ("3. Enable …") and the heading's
// markup: an attribute list ("{#vllm}"), links (their text stays), code
// spans and emphasis.
func cleanTitle(t string) string {
	t = reHeadAttrs.ReplaceAllString(t, "")
	t = reMDLink.ReplaceAllString(t, "$1")
	t = strings.NewReplacer("`", "", "**", "", "__", "").Replace(t)
	return strings.TrimSpace(reStepNumber.ReplaceAllString(strings.TrimSpace(t), ""))
}

// collapsed reports a line that holds a whole Markdown page whose line
// breaks were lost: long, with headings and code fences inside.
func collapsed(l string) bool {
	return len(l) > 400 && strings.Contains(l, "```") &&
		(strings.Contains(l, " ## ") || strings.Contains(l, " ### ") || strings.Contains(l, " #### "))
}

// knownTitles are the section titles of GPUStack's pages; in a collapsed
// page a heading's title ends where one of them ends.
var knownTitles = []string{
	"Conclusion", "Optimization Objective", "Experimental Setup", "Model", "Hardware",
	"Engine Version", "Benchmark Method", "Benchmark Dataset", "Benchmark Script",
	"Benchmark Profiles", "Open-Source Replacement", "Experiment Results",
	"Summary of Optimization Options", "Other Benchmark Cases",
}

var (
	reAdmHead   = regexp.MustCompile(`^(\?\?\?\+?|!!!)[ \t]+[A-Za-z-]+(?:[ \t]+"[^"]*")?`)
	reFenceTok  = regexp.MustCompile("^```[A-Za-z0-9_-]*")
	reNumItem   = regexp.MustCompile(`^\d+\. [A-Z]`)
	reHashSpace = regexp.MustCompile(`^#{1,6}[ \t]`)
)

// piece is one re-broken line and the byte offset it starts at.
type piece struct {
	text string
	off  int
}

// relineText re-breaks a page whose line breaks were lost: before
// headings, admonitions, list items and table rows, and around code fences;
// inside a fence after shell line continuations. An admonition's body is
// indented by four spaces, as MkDocs wants it. Table cells that held line
// breaks get <br> back.
func relineText(text string) []piece {
	var out []piece
	indent, admFence := false, false
	emit := func(s string, off int) {
		s = strings.TrimSpace(s)
		if s == "" {
			return
		}
		if indent {
			s = "    " + s
		}
		out = append(out, piece{s, off})
	}
	blank := func(off int) {
		if len(out) > 0 && out[len(out)-1].text != "" {
			out = append(out, piece{"", off})
		}
	}
	pos := 0
	for pos < len(text) {
		f := strings.Index(text[pos:], "```")
		segEnd := len(text)
		if f >= 0 {
			segEnd = pos + f
		}
		// Outside a fence: split at markers that follow whitespace.
		seg := text[pos:segEnd]
		inTable := false
		last := 0
		flush := func(to int) {
			p := seg[last:to]
			off := pos + last
			if strings.TrimSpace(p) == "" {
				return
			}
			t := strings.TrimSpace(p)
			switch {
			case reHeading.MatchString(t):
				indent = false
				blank(off)
				m := regexp.MustCompile(`^#{1,6}[ \t]+`).FindString(t)
				title, rest := t[len(m):], ""
				for _, k := range knownTitles {
					if strings.HasPrefix(title, k+" ") {
						title, rest = k, title[len(k):]
						break
					}
				}
				emit(m+title, off)
				blank(off)
				if strings.TrimSpace(rest) != "" {
					emit(strings.ReplaceAll(rest, "\n", " "), off)
					blank(off)
				}
			case reAdmHead.MatchString(t):
				indent = false
				blank(off)
				h := reAdmHead.FindString(t)
				emit(h, off)
				indent = true
				admFence = false
				if rest := strings.TrimSpace(t[len(h):]); rest != "" {
					emit(rest, off)
				}
			case strings.HasPrefix(t, "|"):
				if !inTable {
					blank(off)
				}
				inTable = true
				emit(strings.ReplaceAll(t, "\n", "<br>"), off)
			default:
				emit(strings.ReplaceAll(t, "\n", " "), off)
			}
		}
		for i := 0; i < len(seg); i++ {
			if i > 0 && seg[i-1] != ' ' && seg[i-1] != '\t' && seg[i-1] != '\n' {
				continue
			}
			r := seg[i:]
			mark := strings.HasPrefix(r, "#") && reHeading.MatchString(strings.SplitN(r, "\n", 2)[0]) && reHashSpace.MatchString(r) ||
				reAdmHead.MatchString(r) || strings.HasPrefix(r, "- ") || reNumItem.MatchString(r) ||
				(strings.HasPrefix(r, "| ") && !inTable) ||
				(inTable && strings.HasPrefix(r, "|") && i >= 2 && seg[i-2] == '|')
			if !mark {
				continue
			}
			if strings.HasPrefix(r, "|") {
				if !inTable {
					flush(i)
					inTable = true
					last = i
					continue
				}
			} else if inTable && !strings.HasPrefix(r, "- ") && !reNumItem.MatchString(r) {
				flush(i)
				inTable = false
				last = i
				continue
			}
			if inTable && !strings.HasPrefix(r, "|") {
				continue // list-like text inside a table cell
			}
			flush(i)
			last = i
		}
		flush(len(seg))
		if f < 0 {
			break
		}
		// A fence: "```lang" … "```".
		open := reFenceTok.FindString(text[segEnd:])
		if indent && len(out) > 0 && reAdmHead.MatchString(strings.TrimSpace(out[len(out)-1].text)) {
			admFence = true
		}
		if !indent {
			blank(segEnd)
		}
		emit(open, segEnd)
		bodyStart := segEnd + len(open)
		c := strings.Index(text[bodyStart:], "```")
		if c < 0 {
			c = len(text) - bodyStart
		}
		body := text[bodyStart : bodyStart+c]
		off := bodyStart
		for _, l := range strings.SplitAfter(body, "\\ ") {
			emit(l, off)
			off += len(l)
		}
		pos = bodyStart + c
		if pos < len(text) {
			emit("```", pos)
			pos += 3
		}
		if admFence {
			indent, admFence = false, false
		}
		blank(pos)
	}
	return out
}

func itoa(n int) string { return fmtInt(n) }
