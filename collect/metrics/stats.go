package metrics

import (
	"fmt"
	"math"
	"slices"

	"github.com/perflab/perflab/collect/schema"
)

// The statistics kernel reproduces numpy's float64 arithmetic operation by
// operation (numpy 1.24 source, unchanged in 2.x for these paths), so that
// a number printed here is the number `vllm bench serve` prints for the
// same samples, usually to the last bit. It is written here rather than
// taken from a library because no Go statistics package follows numpy's
// pairwise summation and _lerp rule.
//
// Products that feed an addition are wrapped in float64(...) so that the
// compiler cannot fuse them into an FMA on arm64/ppc64/s390x (the Go spec
// allows fusion only where no explicit conversion rounds the product).

// pairwiseBlock is numpy's PW_BLOCKSIZE: blocks up to this size are summed
// with 8 accumulators, larger ones are split in two.
const pairwiseBlock = 128

// pairwiseSum is numpy's pairwise_sum_DOUBLE for a contiguous array.
func pairwiseSum(a []float64) float64 {
	n := len(a)
	switch {
	case n < 8:
		res := 0.0
		for _, v := range a {
			res += v
		}
		return res
	case n <= pairwiseBlock:
		var r [8]float64
		copy(r[:], a[:8])
		i := 8
		for ; i < n-n%8; i += 8 {
			r[0] += a[i]
			r[1] += a[i+1]
			r[2] += a[i+2]
			r[3] += a[i+3]
			r[4] += a[i+4]
			r[5] += a[i+5]
			r[6] += a[i+6]
			r[7] += a[i+7]
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += a[i]
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwiseSum(a[:n2]) + pairwiseSum(a[n2:])
	}
}

// pairwiseSumSqDev is pairwiseSum over (a[i]-m)², the array numpy's _var
// builds before summing, without allocating it.
func pairwiseSumSqDev(a []float64, m float64) float64 {
	sq := func(v float64) float64 { d := v - m; return float64(d * d) }
	n := len(a)
	switch {
	case n < 8:
		res := 0.0
		for _, v := range a {
			res += sq(v)
		}
		return res
	case n <= pairwiseBlock:
		var r [8]float64
		for j := range r {
			r[j] = sq(a[j])
		}
		i := 8
		for ; i < n-n%8; i += 8 {
			r[0] += sq(a[i])
			r[1] += sq(a[i+1])
			r[2] += sq(a[i+2])
			r[3] += sq(a[i+3])
			r[4] += sq(a[i+4])
			r[5] += sq(a[i+5])
			r[6] += sq(a[i+6])
			r[7] += sq(a[i+7])
		}
		res := ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
		for ; i < n; i++ {
			res += sq(a[i])
		}
		return res
	default:
		n2 := n / 2
		n2 -= n2 % 8
		return pairwiseSumSqDev(a[:n2], m) + pairwiseSumSqDev(a[n2:], m)
	}
}

// numpyBufSize is numpy's default iterator buffer size. Before numpy 2.3
// a reduction handed the summation loop at most this many elements at a
// time, so np.sum added the pairwise sums of 8192-element chunks one after
// the other; from 2.3 on (numpy PR 27883, GROWINNER honoured for
// reductions) a contiguous array is summed pairwise in one piece.
const numpyBufSize = 8192

// sumOf is np.add.reduce: the reduction starts from the identity 0.0 and
// adds the pairwise sum of each chunk (chunk 0: the whole array).
func sumOf(x []float64, chunk int, pw func([]float64) float64) float64 {
	if chunk <= 0 || len(x) <= chunk {
		return 0.0 + pw(x)
	}
	acc := 0.0
	for i := 0; i < len(x); i += chunk {
		acc += pw(x[i:min(i+chunk, len(x))])
	}
	return acc
}

func meanOf(x []float64, chunk int) float64 {
	if len(x) == 0 {
		return 0
	}
	return sumOf(x, chunk, pairwiseSum) / float64(len(x))
}

// stdOf is numpy's _var then sqrt: the mean, the squared deviations summed
// like np.sum, divided by n (ddof 0).
func stdOf(x []float64, chunk int) float64 {
	if len(x) == 0 {
		return 0
	}
	m := meanOf(x, chunk)
	sq := func(a []float64) float64 { return pairwiseSumSqDev(a, m) }
	return math.Sqrt(sumOf(x, chunk, sq) / float64(len(x)))
}

// Sum is np.sum(x) for a float64 array (numpy ≤ 2.2: pairwise sums of
// 8192-element chunks added in order, started from 0.0).
func Sum(x []float64) float64 { return sumOf(x, numpyBufSize, pairwiseSum) }

// Mean is np.mean(x) (numpy ≤ 2.2 summation); 0 for an empty x (vLLM
// passes `x or 0`).
func Mean(x []float64) float64 { return meanOf(x, numpyBufSize) }

// Std is np.std(x) with ddof=0, the population standard deviation (numpy
// ≤ 2.2 summation); 0 for an empty x.
func Std(x []float64) float64 { return stdOf(x, numpyBufSize) }

// Median is np.median(x); 0 for an empty x. x is not modified.
func Median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return medianSorted(sortedCopy(x))
}

// Percentile is np.percentile(x, p) with the default method "linear"; 0
// for an empty x. p is in [0, 100]. x is not modified.
func Percentile(x []float64, p float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return percentileSorted(sortedCopy(x), p)
}

func sortedCopy(x []float64) []float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s
}

// medianSorted: the middle element, or the np.mean of the two middle ones
// ((0 + a) + b) / 2 for an even count.
func medianSorted(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (0.0 + s[n/2-1] + s[n/2]) / 2
}

// percentileSorted is numpy's _quantile with method "linear" on a sorted
// slice: q = p/100, virtual index h = (n-1)·q, neighbours floor(h) and
// floor(h)+1 clipped to the ends, and numpy's _lerp, which computes
// b − (b−a)·(1−g) instead of a + (b−a)·g when g ≥ 0.5. At the top end numpy
// sets the lower index to −1 before taking g = h − index, so g ≥ 1 there
// and the result is the last element.
func percentileSorted(s []float64, p float64) float64 {
	n := len(s)
	if n == 0 {
		return 0
	}
	q := p / 100
	h := float64(n-1) * q
	var lo, hi int
	var prev float64
	switch {
	case h >= float64(n-1):
		lo, hi, prev = n-1, n-1, -1
	case h < 0:
		lo, hi, prev = 0, 0, 0
	default:
		prev = math.Floor(h)
		lo = int(prev)
		hi = lo + 1
	}
	g := h - prev
	a, b := s[lo], s[hi]
	diff := b - a
	if g >= 0.5 {
		return b - float64(diff*(1-g))
	}
	return a + float64(diff*g)
}

// NewStats summarises samples that are already in the wanted unit
// (milliseconds, for the schema's Stats) with numpy's mean, median, std
// (ddof 0, summed as numpy ≤ 2.2) and linear percentiles, one per entry of percentiles, in that
// order. An empty sample gives zeros, as vLLM prints. samples is not
// modified. It fails for a percentile outside [0, 100] or a NaN sample.
func NewStats(samples []float64, percentiles []float64) (*schema.Stats, error) {
	if err := checkPercentiles(percentiles); err != nil {
		return nil, err
	}
	for i, v := range samples {
		if math.IsNaN(v) {
			return nil, fmt.Errorf("metrics: stats: sample %d is NaN", i)
		}
	}
	return describe(slices.Clone(samples), percentiles, 1, numpyBufSize), nil
}

// describe computes the stats of x (in seconds for vLLM's metrics) and
// multiplies each statistic by scale afterwards, as vLLM does
// (np.mean(x)*1000). It sorts x in place after the mean and std, which
// depend on the original order through the pairwise summation. chunk is
// the summation chunk (numpyBufSize: numpy ≤ 2.2, 0: numpy ≥ 2.3).
func describe(x []float64, percentiles []float64, scale float64, chunk int) *schema.Stats {
	st := &schema.Stats{
		MeanMs: schema.F(meanOf(x, chunk) * scale),
		StdMs:  schema.F(stdOf(x, chunk) * scale),
	}
	sortFloats(x)
	st.MedianMs = schema.F(medianSorted(x) * scale)
	st.Percentiles = make([]schema.Percentile, len(percentiles))
	for i, p := range percentiles {
		st.Percentiles[i] = schema.Percentile{P: p, ValueMs: percentileSorted(x, p) * scale}
	}
	return st
}

func checkPercentiles(ps []float64) error {
	for _, p := range ps {
		if !(p >= 0 && p <= 100) {
			return fmt.Errorf("metrics: percentile %v: want a number in [0, 100]", p)
		}
	}
	return nil
}
