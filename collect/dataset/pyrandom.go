package dataset

import "math/bits"

// pyRandom is CPython's random.Random (MT19937 seeded with
// init_by_array), enough of it for vLLM's ShareGPT sampling:
// random.seed(int), random.shuffle and random.choices. With it the same
// --seed picks the same ShareGPT conversations in the same order as vLLM.
// Written from the MT19937 paper's reference algorithm and CPython's
// documented seeding; checked against CPython's output in the tests.
type pyRandom struct {
	mt  [624]uint32
	idx int
}

const (
	mtN       = 624
	mtM       = 397
	mtMatrixA = 0x9908b0df
	mtUpper   = 0x80000000
	mtLower   = 0x7fffffff
)

// newPyRandom is random.seed(seed) for an int seed.
func newPyRandom(seed int64) *pyRandom {
	n := uint64(seed)
	if seed < 0 {
		n = uint64(-seed) // CPython seeds with abs(n)
	}
	key := []uint32{uint32(n)}
	if hi := uint32(n >> 32); hi != 0 {
		key = append(key, hi)
	}
	r := &pyRandom{}
	r.initByArray(key)
	return r
}

func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < mtN; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.idx = mtN
}

func (r *pyRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	for k := max(mtN, len(key)); k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := mtN - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= mtN {
			r.mt[0] = r.mt[mtN-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

func (r *pyRandom) uint32() uint32 {
	if r.idx >= mtN {
		for k := 0; k < mtN; k++ {
			y := (r.mt[k] & mtUpper) | (r.mt[(k+1)%mtN] & mtLower)
			v := r.mt[(k+mtM)%mtN] ^ (y >> 1)
			if y&1 != 0 {
				v ^= mtMatrixA
			}
			r.mt[k] = v
		}
		r.idx = 0
	}
	y := r.mt[r.idx]
	r.idx++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// float64 is random.random(): 53 random bits in [0, 1).
func (r *pyRandom) float64() float64 {
	a, b := r.uint32()>>5, r.uint32()>>6
	return (float64(a)*67108864.0 + float64(b)) * (1.0 / 9007199254740992.0)
}

// below is random._randbelow(n) for 0 < n < 2^32: rejection sampling on
// getrandbits(n.bit_length()).
func (r *pyRandom) below(n int) int {
	k := bits.Len(uint(n))
	for {
		v := int(r.uint32() >> (32 - k))
		if v < n {
			return v
		}
	}
}

// shuffle is random.shuffle on n items, through swap.
func (r *pyRandom) shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		swap(i, r.below(i+1))
	}
}

// choiceIndex is one draw of random.choices(population) without weights:
// floor(random() * n).
func (r *pyRandom) choiceIndex(n int) int { return int(r.float64() * float64(n)) }
