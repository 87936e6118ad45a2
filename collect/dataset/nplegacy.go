package dataset

// npLegacy is numpy's legacy global generator as vLLM's
// prefix_repetition dataset uses it: np.random.seed(int) (MT19937 seeded
// with Knuth's init_genrand, not init_by_array) then
// np.random.randint(0, n, size) drawing 32-bit words with numpy's masked
// rejection (RandomState's use_masked=True). The MT19937 core is
// pyRandom's: both are the reference algorithm.
type npLegacy struct{ mt pyRandom }

func newNPLegacy(seed int64) *npLegacy {
	r := &npLegacy{}
	r.mt.initGenrand(uint32(seed))
	return r
}

// randint is one np.random.randint(low, high) draw, in [low, high), for
// high-low <= 2**32.
func (r *npLegacy) randint(low, high int) int {
	rng := uint32(high - low - 1)
	if rng == 0 {
		return low
	}
	mask := rng
	for s := uint(1); s < 32; s <<= 1 {
		mask |= mask >> s
	}
	for {
		if v := r.mt.uint32() & mask; v <= rng {
			return low + int(v)
		}
	}
}
