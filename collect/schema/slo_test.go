package schema

import (
	"strings"
	"testing"
)

func TestParseSLO(t *testing.T) {
	s, err := ParseSLO([]string{"ttft_p99:2000 tpot_p99:50", "e2el_median:10000"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 3 || s["ttft_p99"] != 2000 || s["tpot_p99"] != 50 || s["e2el_median"] != 10000 {
		t.Fatalf("got %v", s)
	}
	if got := s.String(); got != "e2el_median:10000 tpot_p99:50 ttft_p99:2000" {
		t.Errorf("String %q", got)
	}
	for _, bad := range []string{"ttft", "ttft_p99", "ttft_p99:x", "ttft_p99:-1", "foo_p99:1", "ttft_q99:1", "ttft_p101:1", "ttft_p0:1", "ttft_p99:nan", "ttft_pnan:1", "ttft_p99:inf"} {
		if _, err := ParseSLO([]string{bad}); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if err := (SLO{"ttft_p99": 0}).Validate(); err == nil || !strings.Contains(err.Error(), "ttft_p99") {
		t.Errorf("Validate: %v", err)
	}
}

func TestSLOCheck(t *testing.T) {
	sum := &Summary{
		TTFT: &Stats{MeanMs: F(900), MedianMs: F(800), Percentiles: []Percentile{{P: 99, ValueMs: 1999}}},
		TPOT: &Stats{MedianMs: F(40), Percentiles: []Percentile{{P: 99, ValueMs: 50.5}}},
	}
	checks, ok := SLO{"ttft_p99": 2000, "tpot_p99": 50}.Check(sum)
	if ok || len(checks) != 2 {
		t.Fatalf("ok %v %+v", ok, checks)
	}
	// Sorted: tpot first; 50.5 > 50 fails, 1999 ≤ 2000 passes.
	if checks[0].Key != "tpot_p99" || checks[0].Met || !checks[1].Met || checks[1].ValueMs != 1999 {
		t.Errorf("%+v", checks)
	}
	if _, ok := (SLO{"ttft_p99": 2000, "tpot_median": 40}).Check(sum); !ok {
		t.Error("limits equal to the value are met")
	}
	// A statistic the run did not record fails the check.
	checks, ok = SLO{"itl_p99": 100}.Check(sum)
	if ok || checks[0].Found {
		t.Errorf("missing itl: %+v", checks)
	}
}
