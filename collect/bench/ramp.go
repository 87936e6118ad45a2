package bench

import (
	"fmt"
	"math"
	"time"

	"github.com/perflab/perflab/collect/schema"
)

// RampUp is vLLM's --ramp-up-strategy with its start and end rates: the
// rate of request i of N goes from StartRPS to EndRPS, linearly
// (start + (end-start)·i/(N-1)) or exponentially (start·(end/start)^(i/(N-1))).
type RampUp struct {
	Strategy         string // linear or exponential
	StartRPS, EndRPS int
}

// rate is request i's rate of n.
func (ru RampUp) rate(i, n int) float64 {
	f := float64(i) / float64(max(n-1, 1))
	s, e := float64(ru.StartRPS), float64(ru.EndRPS)
	if ru.Strategy == "exponential" {
		return s * math.Pow(e/s, f)
	}
	return s + (e-s)*f
}

// Validate checks ru as vLLM does.
func (ru RampUp) Validate() error {
	switch {
	case ru.Strategy != "linear" && ru.Strategy != "exponential":
		return fmt.Errorf("ramp-up strategy %q: want linear or exponential", ru.Strategy)
	case ru.StartRPS < 0 || ru.EndRPS < 0:
		return fmt.Errorf("ramp-up rates %d and %d must not be negative", ru.StartRPS, ru.EndRPS)
	case ru.Strategy == "exponential" && ru.StartRPS == 0:
		return fmt.Errorf("exponential ramp-up needs a start rate above 0")
	case ru.StartRPS == 0:
		// vLLM accepts it on the command line, then its first request's
		// rate is 0 and get_request stops the run after the warmups
		// (AssertionError "Obtained non-positive request rate 0.0");
		// vllm-bench's first gap is infinite. Refused before anything is
		// sent rather than sending the first request at once.
		return fmt.Errorf("linear ramp-up from 0 rps: the first request's rate would be 0 (vLLM stops with \"Obtained non-positive request rate 0.0\"): start at 1 rps or more")
	case ru.StartRPS > ru.EndRPS:
		return fmt.Errorf("ramp-up start rate %d is above the end rate %d", ru.StartRPS, ru.EndRPS)
	}
	return nil
}

// ScheduleRamp is Schedule with a ramp-up, as vLLM's get_request: each
// gap drawn at its request's rate (Gamma with shape burstiness and scale
// 1/(rate·burstiness), or 1/rate at burstiness +Inf), summed, not
// rescaled; every rate is above 0 (Validate). It also returns each request's rate.
func ScheduleRamp(n int, ru RampUp, burstiness float64, seed int64) (times, rates []float64, err error) {
	if err := ru.Validate(); err != nil {
		return nil, nil, fmt.Errorf("schedule: %w", err)
	}
	if _, err := Schedule(0, 0, burstiness, seed); err != nil {
		return nil, nil, err // the same checks on burstiness and seed
	}
	rng := newNumpyRNG(uint32(seed))
	times, rates = make([]float64, n), make([]float64, n)
	for i := range times {
		rate := ru.rate(i, n)
		rates[i] = rate
		var d float64
		switch {
		case math.IsInf(rate, 1):
			d = 0
		case math.IsInf(burstiness, 1):
			d = 1 / rate
		default:
			d = rng.gamma(burstiness, 1/(rate*burstiness))
		}
		if i > 0 {
			d += times[i-1]
		}
		times[i] = d
	}
	return times, rates, nil
}

// rpsChanges are vLLM's rps_change_events: the start rate at the run's
// start, then each time a released request's integer rate rises above the
// last one, one event per integer rate passed (1 → 4: 2, 3 and 4), stamped
// with its release time (local ISO time, as Python's
// datetime.now().isoformat()).
func rpsChanges(ru RampUp, rates []float64, recs []schema.Request, start time.Time) []schema.RPSChange {
	const iso = "2006-01-02T15:04:05.000000"
	last := ru.StartRPS
	out := []schema.RPSChange{{RPS: last, Timestamp: start.Local().Format(iso)}}
	for _, rec := range recs {
		if rec.Index >= len(rates) {
			continue
		}
		if r := int(rates[rec.Index]); r > last {
			// every integer rate passed gets its event, all at this
			// release (vLLM: for rps_val in range(last + 1, current + 1))
			at := start.Add(time.Duration(rec.ArrivalS * float64(time.Second))).Local().Format(iso)
			for v := last + 1; v <= r; v++ {
				out = append(out, schema.RPSChange{RPS: v, Timestamp: at})
			}
			last = r
		}
	}
	return out
}
