package bench

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/schema"
)

func TestScheduleRamp(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	// constant gaps (burstiness inf): 1/rate_i summed, no rescaling
	times, rates, err := ScheduleRamp(3, RampUp{"linear", 1, 3}, math.Inf(1), 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []float64{1, 1.5, 1.5 + 1.0/3} {
		if !near(times[i], w) || !near(rates[i], float64(i+1)) {
			t.Fatalf("linear: times %v rates %v", times, rates)
		}
	}
	_, rates, _ = ScheduleRamp(3, RampUp{"exponential", 1, 4}, math.Inf(1), 0)
	if !near(rates[0], 1) || !near(rates[1], 2) || !near(rates[2], 4) {
		t.Fatalf("exponential rates %v", rates)
	}
	// Poisson gaps from numpy's legacy generator: np.random.seed(0) then
	// np.random.gamma(1, 1/2) = 0.5 * -log(1 - 0.5488135039273248)
	times, _, _ = ScheduleRamp(2, RampUp{"linear", 2, 2}, 1, 0)
	if w := 0.5 * -math.Log(1-0.5488135039273248); math.Abs(times[0]-w) > 1e-12 {
		t.Fatalf("first gap %v, want %v", times[0], w)
	}
	for _, bad := range []RampUp{{"sine", 1, 2}, {"exponential", 0, 5}, {"linear", 5, 1}, {"linear", -1, 2},
		// vLLM's first request would run at rate 0: its get_request asserts
		{"linear", 0, 5}, {"linear", 0, 0}} {
		if _, _, err := ScheduleRamp(3, bad, 1, 0); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// TestRPSChanges: the start rate first, then each rise of the integer
// rate at the release time of the request that reached it.
func TestRPSChanges(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.Local)
	rates := []float64{1, 1.5, 2.2, 2.9, 3}
	recs := []schema.Request{{Index: 0}, {Index: 1, ArrivalS: 1}, {Index: 2, ArrivalS: 1.5}, {Index: 3, ArrivalS: 2}, {Index: 4, ArrivalS: 2.25}}
	got := rpsChanges(RampUp{"linear", 1, 3}, rates, recs, start)
	want := []schema.RPSChange{{RPS: 1, Timestamp: "2026-01-02T03:04:05.000000"}, {RPS: 2, Timestamp: "2026-01-02T03:04:06.500000"}, {RPS: 3, Timestamp: "2026-01-02T03:04:07.250000"}}
	if len(got) != len(want) {
		t.Fatalf("%v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%v, want %v", got, want)
		}
	}
	// a rise of several integers at once (a steep ramp, few requests):
	// one event each, at the same release, as vLLM writes them
	got = rpsChanges(RampUp{"linear", 1, 10}, []float64{1, 4.5, 10}, recs[:3], start)
	want = []schema.RPSChange{{RPS: 1, Timestamp: "2026-01-02T03:04:05.000000"}}
	for v := 2; v <= 4; v++ {
		want = append(want, schema.RPSChange{RPS: v, Timestamp: "2026-01-02T03:04:06.000000"})
	}
	for v := 5; v <= 10; v++ {
		want = append(want, schema.RPSChange{RPS: v, Timestamp: "2026-01-02T03:04:06.500000"})
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%v, want %v", got, want)
	}
}
