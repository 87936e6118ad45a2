package dataset

import "math/bits"

// npRandom is numpy's np.random.default_rng(seed) (a PCG64 bit generator
// seeded through SeedSequence) with Generator.integers for int64 results,
// enough for vLLM's random dataset, which draws every length, offset and
// token id from one such generator. With it the same --seed gives the
// same token ids as vLLM. Written from the PCG paper's XSL-RR output, the
// SeedSequence hashing numpy documents, and Lemire's bounded integers;
// checked against numpy's output in the tests.
type npRandom struct {
	hi, lo       uint64 // 128-bit LCG state
	incHi, incLo uint64
	// numpy hands out 32-bit draws in pairs from one 64-bit output.
	hasUint32 bool
	uinteger  uint32
}

// SeedSequence constants (numpy/random/bit_generator.pyx).
const (
	ssInitA    = 0x43b0d7e5
	ssMultA    = 0x931e8875
	ssInitB    = 0x8b51f9dd
	ssMultB    = 0x58f38ded
	ssMixMultL = 0xca01f9dd
	ssMixMultR = 0x4973f715
	ssXShift   = 16
	ssPoolSize = 4
)

// seedSequenceState is SeedSequence(seed).generate_state(nWords, uint64)
// for a non-negative int seed.
func seedSequenceState(seed uint64, nWords int) []uint64 {
	entropy := []uint32{uint32(seed)}
	if hi := uint32(seed >> 32); hi != 0 {
		entropy = append(entropy, hi)
	}
	hashConst := uint32(ssInitA)
	hashmix := func(v uint32) uint32 {
		v ^= hashConst
		hashConst *= ssMultA
		v *= hashConst
		v ^= v >> ssXShift
		return v
	}
	mix := func(x, y uint32) uint32 {
		r := ssMixMultL*x - ssMixMultR*y
		return r ^ r>>ssXShift
	}
	var pool [ssPoolSize]uint32
	for i := range pool {
		v := uint32(0)
		if i < len(entropy) {
			v = entropy[i]
		}
		pool[i] = hashmix(v)
	}
	for src := range pool {
		for dst := range pool {
			if src != dst {
				pool[dst] = mix(pool[dst], hashmix(pool[src]))
			}
		}
	}
	for src := ssPoolSize; src < len(entropy); src++ {
		for dst := range pool {
			pool[dst] = mix(pool[dst], hashmix(entropy[src]))
		}
	}
	hashConst = ssInitB
	words := make([]uint32, 2*nWords)
	for i := range words {
		v := pool[i%ssPoolSize]
		v ^= hashConst
		hashConst *= ssMultB
		v *= hashConst
		v ^= v >> ssXShift
		words[i] = v
	}
	out := make([]uint64, nWords)
	for i := range out {
		out[i] = uint64(words[2*i]) | uint64(words[2*i+1])<<32
	}
	return out
}

// PCG64's 128-bit multiplier.
const (
	pcgMultHi = 2549297995355413924
	pcgMultLo = 4865540595714422341
)

// newNPRandom is np.random.default_rng(seed) for seed >= 0.
func newNPRandom(seed int64) *npRandom {
	st := seedSequenceState(uint64(seed), 4)
	r := &npRandom{}
	// pcg64_set_seed(initstate = st[0]:st[1], initseq = st[2]:st[3]).
	r.incHi = st[2]<<1 | st[3]>>63
	r.incLo = st[3]<<1 | 1
	r.step()
	r.lo, r.hi = add128(r.lo, r.hi, st[1], st[0])
	r.step()
	return r
}

func add128(aLo, aHi, bLo, bHi uint64) (lo, hi uint64) {
	lo, c := bits.Add64(aLo, bLo, 0)
	hi, _ = bits.Add64(aHi, bHi, c)
	return lo, hi
}

// step advances the LCG: state = state*mult + inc (mod 2^128).
func (r *npRandom) step() {
	hi, lo := bits.Mul64(r.lo, pcgMultLo)
	hi += r.hi*pcgMultLo + r.lo*pcgMultHi
	r.lo, r.hi = add128(lo, hi, r.incLo, r.incHi)
}

// uint64 is one PCG64 output (XSL-RR of the new state).
func (r *npRandom) uint64() uint64 {
	r.step()
	return bits.RotateLeft64(r.hi^r.lo, -int(r.hi>>58))
}

// uint32 is numpy's next_uint32: the low then the high half of a 64-bit
// output.
func (r *npRandom) uint32() uint32 {
	if r.hasUint32 {
		r.hasUint32 = false
		return r.uinteger
	}
	v := r.uint64()
	r.hasUint32 = true
	r.uinteger = uint32(v >> 32)
	return uint32(v)
}

// integers is Generator.integers(low, high) for one int64 (high
// exclusive): Lemire's method on 32-bit draws when the range fits, on
// 64-bit draws otherwise; no draw at all for a one-value range.
func (r *npRandom) integers(low, high int64) int64 {
	rng := uint64(high - 1 - low) // inclusive range, as numpy's
	switch {
	case rng == 0:
		return low
	case rng < 0xFFFFFFFF:
		excl := uint32(rng) + 1
		m := uint64(r.uint32()) * uint64(excl)
		if leftover := uint32(m); leftover < excl {
			threshold := (^uint32(0) - uint32(rng)) % excl
			for leftover < threshold {
				m = uint64(r.uint32()) * uint64(excl)
				leftover = uint32(m)
			}
		}
		return low + int64(m>>32)
	case rng == 0xFFFFFFFF:
		return low + int64(r.uint32())
	case rng == ^uint64(0):
		return low + int64(r.uint64())
	default:
		excl := rng + 1
		hi, lo := bits.Mul64(r.uint64(), excl)
		if lo < excl {
			threshold := (^uint64(0) - rng) % excl
			for lo < threshold {
				hi, lo = bits.Mul64(r.uint64(), excl)
			}
		}
		return low + int64(hi)
	}
}
