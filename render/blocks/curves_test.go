package blocks

import (
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

func TestSLOTextKeepsTheLimit(t *testing.T) {
	for _, tc := range []struct {
		slo  schema.SLO
		want string
	}{
		{schema.SLO{"itl_p99": 0.25}, "ITL p99 ≤ 0.25 ms"},
		{schema.SLO{"ttft_p99": 1000, "tpot_p99": 12.5}, "TPOT p99 ≤ 12.5 ms, TTFT p99 ≤ 1000 ms"},
	} {
		if got := sloText(tc.slo); got != tc.want {
			t.Errorf("sloText(%v) = %q, want %q", tc.slo, got, tc.want)
		}
	}
}
