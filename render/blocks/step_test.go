package blocks

import (
	"testing"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/site"
)

// TestSkipRemark: the reason a step's best try is not carried forward
// names a regression first and partial success as well.
func TestSkipRemark(t *testing.T) {
	run := func(done int) *schema.Result {
		return &schema.Result{Status: schema.StatusOK, Load: schema.Load{NumPrompts: 1000}, Summary: &schema.Summary{Completed: done}}
	}
	tests := []struct {
		name string
		res  *schema.Result
		inc  Delta
		want string
	}{
		// The 235B FP8 (TP8+EP) try: -3.8% and 984 of 1000, like every run there.
		{"worse and partial", run(984), site.Compare(8424.86, 8102.36, true), "worse than the configuration before it; only 984 of 1000 requests succeeded; not carried forward"},
		// The Qwen3.5 MTP try: +46.8%, but only 516 of 1000 succeeded.
		{"better but partial", run(516), site.Compare(10570.88, 15514.15, true), "only 516 of 1000 requests succeeded; not carried forward"},
		{"worse", run(1000), site.Compare(10570.88, 10363.77, true), "worse than the configuration before it; not carried forward"},
		{"no reason in the data", run(1000), site.Compare(100, 101, true), "not carried forward"},
	}
	for _, tt := range tests {
		if got := skipRemark(tt.res, tt.inc); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
