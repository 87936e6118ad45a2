package blocks

import (
	"html/template"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/nav"
	"github.com/perflab/perflab/render/site"
)

// HomeChangeView is one change point in the home page's list.
type HomeChangeView struct {
	// Class is the kind in lower case (the item's class), Word as shown.
	Class, Word string
	// Href is the report's page (the item links to its #history-chart).
	Href, Title, Label string
	Pct                template.HTML
	Round              string
	// Status, for a line whose runs all crashed or failed in Round
	// after a figure in round Prev (failedLatest), says what they did.
	Status, Prev string
	pct          float64
}

// HomeChanges is the home page's "Regressions and improvements" list
// (asv has one): every change the latest round of every report flagged
// (stats.SeriesChange.Latest: at that round, or over single runs a
// change point that round's value revealed), and every line that
// crashed or failed in it after a figure in the round before
// (failedLatest), largest first (those first), each linking to its report's history chart; none when
// nothing changed in any latest round.
func HomeChanges(s *site.Site, links nav.Links) ([]HomeChangeView, error) {
	var items []HomeChangeView
	for _, r := range s.Reports {
		if len(r.Rounds) < 2 {
			continue
		}
		h := historyOf(r)
		if h.err != nil {
			return nil, h.err
		}
		lines, changes := h.lines, h.changes
		last := len(r.Rounds) - 1
		for _, ch := range changes {
			// The latest round's news: a change it flagged (over single
			// runs a change point lies rounds before the round that
			// found it), on a line that has the latest round.
			if !ch.c.Latest || len(lines[ch.line].values[last]) == 0 {
				continue
			}
			it := HomeChangeView{Word: "Regression", Href: links.Href(r.Page.URL), Title: r.Page.NavTitleReport(),
				Label: lines[ch.line].label(), Pct: signedPct(ch.c.Pct), Round: r.Rounds[ch.round].ID, pct: ch.c.Pct}
			if ch.c.Pct > 0 {
				it.Word = "Improvement"
			}
			it.Class = strings.ToLower(it.Word)
			items = append(items, it)
		}
		items = append(items, failedLatest(r, h, links)...)
	}
	sort.SliceStable(items, func(i, j int) bool { return math.Abs(items[i].pct) > math.Abs(items[j].pct) })
	return items, nil
}

// failedLatest are the home page's items for the report's lines whose
// every run crashed or failed in the latest round (a finished one),
// after a figure in the round before it the history shows: the worst
// regression there is, listed first.
func failedLatest(r *Report, h *reportHistory, links nav.Links) []HomeChangeView {
	n := len(h.rounds)
	if n < 2 || h.rounds[n-1] != len(r.Rounds)-1 {
		return nil
	}
	last, prev := h.rounds[n-1], h.rounds[n-2]
	var items []HomeChangeView
	for _, l := range h.lines {
		if !l.wentWrongIn(last) || len(l.values[prev]) == 0 ||
			!slices.Contains(l.notOK[last], schema.StatusCrashed) && !slices.Contains(l.notOK[last], schema.StatusFailed) {
			continue
		}
		items = append(items, HomeChangeView{Class: "regression", Word: "Regression", Href: links.Href(r.Page.URL), Title: r.Page.NavTitleReport(),
			Label: l.label(), Round: r.Rounds[last].ID, Status: l.statusText(last), Prev: r.Rounds[prev].ID, pct: math.Inf(-1)})
	}
	return items
}
