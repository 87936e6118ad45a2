package diff

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// CommentLimit is the most characters GitHub takes in a pull-request or
// issue comment. WriteMarkdown keeps under it (counting bytes, which are
// never fewer than characters).
const CommentLimit = 65536

// WriteMarkdown writes the table for a pull-request comment, what matters
// first: a summary (the gate's verdict, the counts of regressions,
// improvements, unchanged and untested comparisons), the significant
// changes (regressions first) as a GitHub table per metric, then the
// unchanged and untested rows collapsed in a <details> block per metric,
// and the footer. A comment that would reach CommentLimit leaves out
// collapsed rows, and says how many, never a significant one.
func (t *Table) WriteMarkdown(w io.Writer) error {
	_, err := io.WriteString(w, t.markdown(CommentLimit))
	return err
}

// markdown is the comment, shorter than limit bytes when leaving out
// collapsed rows can make it so.
func (t *Table) markdown(limit int) string {
	var regs, worse, impr, rest []Row
	for _, r := range t.Rows {
		switch {
		case r.Regression:
			regs = append(regs, r)
		case r.Worse:
			worse = append(worse, r)
		case r.Better:
			impr = append(impr, r)
		default:
			rest = append(rest, r)
		}
	}
	var head strings.Builder
	fmt.Fprintf(&head, "**perflab diff**: %s → %s\n", codeSpan(t.Old), codeSpan(t.New))
	if e := t.engines(); e != "" {
		fmt.Fprintf(&head, "\nengines: %s\n", mdEsc(e))
	}
	head.WriteString("\n" + t.verdict() + "\n")
	head.WriteString("\n" + counts(len(regs), len(worse), len(impr), rest) + "\n")
	margin := "margin"
	if t.MarginPct > 0 {
		margin = fmt.Sprintf("%g%% margin", t.MarginPct)
	}
	for _, s := range []struct {
		title string
		rows  []Row
	}{{"Regressions", regs}, {"Worse, within the " + margin, worse}, {"Improvements", impr}} {
		if len(s.rows) == 0 {
			continue
		}
		fmt.Fprintf(&head, "\n### %s (%d)\n", s.title, len(s.rows))
		for _, rows := range byMetric(s.rows) {
			m := rows[0].Metric
			fmt.Fprintf(&head, "\n**%s** (%s, %s)\n\n", m.Name, m.Unit, better(m))
			mdTable(&head, rows)
		}
	}
	var foot strings.Builder
	foot.WriteString("\n")
	for _, l := range t.footer() {
		foot.WriteString(l + "\n\n")
	}
	comment := func(keep int) string {
		out := head.String() + collapsed(rest[:keep], len(rest)-keep) + strings.TrimRight(foot.String(), "\n") + "\n"
		return out
	}
	if out := comment(len(rest)); len(out) < limit {
		return out
	}
	// The most collapsed rows that fit: the comment grows with each.
	keep := sort.Search(len(rest), func(k int) bool { return len(comment(k+1)) >= limit })
	return comment(keep)
}

// verdict is the summary's first line: what --fail-on regression at the
// table's margin decides (or, for a diff run without --fail-on, would
// decide), and why.
func (t *Table) verdict() string {
	gate := "--fail-on regression"
	if t.MarginPct > 0 {
		gate += fmt.Sprintf(":%g%%", t.MarginPct)
	}
	// says is the verdict in the words of a gate run, or of one that
	// would be run: "gate `…`: fails" or "a `…` gate would fail".
	says := func(is, would string) string {
		if t.Gated {
			return "gate `" + gate + "`: " + is
		}
		return "a `" + gate + "` gate " + would
	}
	var why []string
	if n := len(t.Regressions()); n > 0 {
		why = append(why, plural(n, "regression", "regressions"))
	}
	if n := len(t.FailedNew); n > 0 {
		why = append(why, plural(n, "run no longer finishing", "runs no longer finishing"))
	}
	if n := len(t.NewFailures); n > 0 {
		why = append(why, plural(n, "run with new failed requests", "runs with new failed requests"))
	}
	if len(why) > 0 {
		return fmt.Sprintf(":x: **%s** (%s)", says("fails", "would fail"), strings.Join(why, ", "))
	}
	switch {
	case len(t.Rows) == 0:
		return fmt.Sprintf(":grey_question: **%s** (no run on both sides)", says("nothing compared", "would compare nothing"))
	case t.Tests == 0:
		return fmt.Sprintf(":grey_question: **%s** (none of the %d comparisons has enough repeats for the U test: 4 runs a side, or 3+5)", says("passes untested", "would pass untested"), len(t.Rows))
	}
	return fmt.Sprintf(":white_check_mark: **%s**", says("passes", "would pass"))
}

// counts is the summary's second line.
func counts(regs, worse, better int, rest []Row) string {
	unchanged, untested := 0, 0
	for _, r := range rest {
		if r.Tested {
			unchanged++
		} else {
			untested++
		}
	}
	parts := []string{plural(regs, "regression", "regressions")}
	if worse > 0 {
		parts = append(parts, fmt.Sprintf("%d worse within the margin", worse))
	}
	parts = append(parts, plural(better, "improvement", "improvements"), fmt.Sprintf("%d unchanged (`~`)", unchanged), fmt.Sprintf("%d untested (too few repeats)", untested))
	return strings.Join(parts, " · ")
}

// collapsed writes the rows that did not change significantly (and those
// not tested) in a <details> block per metric, and says how many rows
// were left out to fit the comment.
func collapsed(rows []Row, left int) string {
	var b strings.Builder
	for _, rs := range byMetric(rows) {
		m := rs[0].Metric
		var un, ut int
		for _, r := range rs {
			if r.Tested {
				un++
			} else {
				ut++
			}
		}
		var what []string
		if un > 0 {
			what = append(what, fmt.Sprintf("%d unchanged", un))
		}
		if ut > 0 {
			what = append(what, fmt.Sprintf("%d untested", ut))
		}
		// GFM ends the HTML block at the blank line, so the table after
		// it is Markdown again.
		fmt.Fprintf(&b, "\n<details><summary>%s (%s, %s): %s</summary>\n\n", m.Name, m.Unit, better(m), strings.Join(what, ", "))
		mdTable(&b, rs)
		b.WriteString("\n</details>\n")
	}
	if left > 0 {
		fmt.Fprintf(&b, "\n%s left out to keep this comment under GitHub's %d characters: `--format json` or `--format text` shows every row.\n", plural(left, "unchanged or untested row", "unchanged or untested rows"), CommentLimit)
	}
	return b.String()
}

// byMetric splits rows (in the table's order: metric by metric) into a
// slice per metric.
func byMetric(rows []Row) [][]Row {
	var out [][]Row
	for i, r := range rows {
		if i == 0 || r.Metric.Key != rows[i-1].Metric.Key {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], r)
	}
	return out
}

// mdTable writes rows as a GitHub table, regressions in bold.
func mdTable(b *strings.Builder, rows []Row) {
	b.WriteString("| run | old | new | delta | |\n|---|--:|--:|--:|---|\n")
	for _, r := range rows {
		d, note := r.DeltaText()
		if r.Regression {
			d = "**" + d + "** :warning:"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", mdEsc(r.Run), sample(r.Old), sample(r.New), d, mdEsc(note))
	}
}

// mdEsc escapes | in a table cell.
func mdEsc(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// codeSpan is s as a Markdown code span, shown as it is: its content is
// not unescaped (a \| would show its backslash), so s goes in verbatim,
// fenced by one backtick more than its longest run of them.
func codeSpan(s string) string {
	longest, n := 0, 0
	for _, c := range s {
		if c == '`' {
			n++
			longest = max(longest, n)
		} else {
			n = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
