package bench

import (
	"fmt"
	"math"
)

// Schedule returns the release time of each of n requests, in seconds
// from the start of the run, as vLLM's get_request computes them:
//
//   - rate 0 or +Inf: every request at 0;
//   - burstiness +Inf: constant gaps of 1/rate;
//   - otherwise gaps drawn from Gamma(shape=burstiness,
//     scale=1/(rate*burstiness)) (exponential, i.e. Poisson arrivals, at
//     burstiness 1), summed, then rescaled so that the last request is
//     released exactly at n/rate.
//
// The draws use numpy's legacy generator seeded with seed, so a schedule
// equals the one `vllm bench serve --seed seed` uses.
func Schedule(n int, rate, burstiness float64, seed int64) ([]float64, error) {
	switch {
	case n < 0:
		return nil, fmt.Errorf("schedule: %d requests", n)
	case math.IsNaN(rate) || rate < 0:
		return nil, fmt.Errorf("schedule: request rate %v: must be positive or inf", rate)
	case math.IsNaN(burstiness) || burstiness <= 0:
		return nil, fmt.Errorf("schedule: burstiness %v: must be positive", burstiness)
	case seed < 0 || seed > math.MaxUint32:
		// numpy's np.random.seed rejects these too.
		return nil, fmt.Errorf("schedule: seed %d: must be between 0 and 2**32 - 1", seed)
	}
	t := make([]float64, n)
	if n == 0 || rate == 0 || math.IsInf(rate, 1) {
		return t, nil
	}
	rng := newNumpyRNG(uint32(seed))
	for i := range t {
		var d float64
		if math.IsInf(burstiness, 1) {
			d = 1.0 / rate
		} else {
			d = rng.gamma(burstiness, 1.0/(rate*burstiness))
		}
		if i > 0 {
			d += t[i-1]
		}
		t[i] = d
	}
	if last := t[n-1]; last != 0 {
		f := (float64(n) / rate) / last
		for i := range t {
			t[i] *= f
		}
	}
	return t, nil
}
