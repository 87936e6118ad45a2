package bench

import "math"

// numpyRNG reproduces numpy's legacy global generator (np.random.seed(int)
// then np.random.gamma), which vLLM's get_request draws the arrival delays
// from. With it, a schedule is the one `vllm bench serve --seed S` uses,
// to within a few ulps (Go's math.Log and glibc's log may round the last
// bit differently; the random bits are identical), tested against numpy.
// Written here because no Go module reproduces numpy's legacy streams.
type numpyRNG struct {
	mt       [624]uint32
	pos      int
	hasGauss bool
	gauss    float64
}

// newNumpyRNG seeds like numpy's mt19937_seed (Knuth's init_genrand), the
// path np.random.seed takes for an integer seed.
func newNumpyRNG(seed uint32) *numpyRNG {
	r := &numpyRNG{pos: 624}
	r.mt[0] = seed
	for i := 1; i < 624; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	return r
}

func (r *numpyRNG) next32() uint32 {
	if r.pos >= 624 {
		const upper, lower = 0x80000000, 0x7fffffff
		for i := 0; i < 624; i++ {
			y := r.mt[i]&upper | r.mt[(i+1)%624]&lower
			v := r.mt[(i+397)%624] ^ y>>1
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			r.mt[i] = v
		}
		r.pos = 0
	}
	y := r.mt[r.pos]
	r.pos++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// double is numpy's legacy_double: 53 random bits in [0, 1).
func (r *numpyRNG) double() float64 {
	a, b := r.next32()>>5, r.next32()>>6
	return (float64(a)*67108864.0 + float64(b)) / 9007199254740992.0
}

func (r *numpyRNG) exponential() float64 { return -math.Log(1.0 - r.double()) }

// gaussLegacy is numpy's legacy_gauss (Marsaglia's polar method, caching
// the second value).
func (r *numpyRNG) gaussLegacy() float64 {
	if r.hasGauss {
		r.hasGauss = false
		g := r.gauss
		r.gauss = 0
		return g
	}
	var x1, x2, r2 float64
	for {
		x1 = 2.0*r.double() - 1.0
		x2 = 2.0*r.double() - 1.0
		r2 = x1*x1 + x2*x2
		if r2 < 1.0 && r2 != 0.0 {
			break
		}
	}
	f := math.Sqrt(-2.0 * math.Log(r2) / r2)
	r.gauss, r.hasGauss = f*x1, true
	return f * x2
}

// standardGamma is numpy's legacy_standard_gamma.
func (r *numpyRNG) standardGamma(shape float64) float64 {
	switch {
	case shape == 1.0:
		return r.exponential()
	case shape == 0.0:
		return 0.0
	case shape < 1.0:
		for {
			u := r.double()
			v := r.exponential()
			if u <= 1.0-shape {
				x := math.Pow(u, 1.0/shape)
				if x <= v {
					return x
				}
			} else {
				y := -math.Log((1 - u) / shape)
				x := math.Pow(1.0-shape+shape*y, 1.0/shape)
				if x <= v+y {
					return x
				}
			}
		}
	default:
		b := shape - 1.0/3.0
		c := 1.0 / math.Sqrt(9*b)
		for {
			var x, v float64
			for {
				x = r.gaussLegacy()
				v = 1.0 + c*x
				if v > 0.0 {
					break
				}
			}
			v = v * v * v
			u := r.double()
			if u < 1.0-0.0331*(x*x)*(x*x) {
				return b * v
			}
			if math.Log(u) < 0.5*x*x+b*(1.0-v+math.Log(v)) {
				return b * v
			}
		}
	}
}

// gamma is np.random.gamma(shape, scale).
func (r *numpyRNG) gamma(shape, scale float64) float64 {
	return scale * r.standardGamma(shape)
}
