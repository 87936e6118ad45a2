package blocks

import (
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// TestHistoryStatusText: what a history cell says of a round's runs
// that gave no figure: the status where all of them did it, with the
// requests of a failed run that counted them, how many of the round's
// runs otherwise; and a cell with a figure notes them beside its
// failed requests (a cell without one says statusText alone).
func TestHistoryStatusText(t *testing.T) {
	crashed, failed := schema.StatusCrashed, schema.StatusFailed
	l := historyLine{
		values: [][]float64{nil, nil, nil, {10, 11}, {10}, nil},
		failed: [][2]int{{0, 0}, {0, 0}, {500, 500}, {3, 1500}, {0, 500}, {0, 0}},
		notOK:  [][]schema.Status{{crashed}, {failed, crashed}, {failed}, {crashed}, nil, nil},
	}
	for _, c := range []struct {
		ri         int
		text, note string
		wrong      bool
	}{
		{0, "crashed", "", true},
		{1, "1 of 2 runs failed, 1 of 2 runs crashed", "", true},
		{2, "failed (500 of 500 requests)", "", true},
		{3, "1 of 3 runs crashed", "✗ 1 of 3 runs crashed; ✗ 3 of 1500 requests failed", false},
		{4, "", "", false},
		{5, "", "", false},
	} {
		if got := l.statusText(c.ri); got != c.text {
			t.Errorf("round %d: statusText %q, want %q", c.ri, got, c.text)
		}
		if got := l.cellNote(c.ri); len(l.values[c.ri]) > 0 && got != c.note { // a cell with a figure's
			t.Errorf("round %d: cellNote %q, want %q", c.ri, got, c.note)
		}
		if got := l.wentWrongIn(c.ri); got != c.wrong {
			t.Errorf("round %d: wentWrongIn %v, want %v", c.ri, got, c.wrong)
		}
	}
}
