package metrics

import (
	"math"
	"slices"
)

// radixMin is the size from which sortFloats uses the radix sort; below
// it pdqsort is as fast and allocates nothing.
const radixMin = 4096

// sortFloats sorts x ascending. The values must not be NaN. Large inputs
// (the pooled ITLs: millions of samples) use an LSD radix sort on the
// order-preserving bit pattern of each float, several times faster than
// a comparison sort; the result is the same sorted multiset either way.
func sortFloats(x []float64) {
	if len(x) < radixMin {
		slices.Sort(x)
		return
	}
	keys := make([]uint64, len(x))
	for i, v := range x {
		keys[i] = floatKey(v)
	}
	tmp := make([]uint64, len(x))
	const bits = 11
	const buckets = 1 << bits
	var count [buckets]int
	for shift := uint(0); shift < 64; shift += bits {
		clear(count[:])
		for _, k := range keys {
			count[(k>>shift)&(buckets-1)]++
		}
		if count[(keys[0]>>shift)&(buckets-1)] == len(keys) {
			continue // every key has the same digit here: nothing to move
		}
		pos := 0
		for i, c := range count {
			count[i] = pos
			pos += c
		}
		for _, k := range keys {
			d := (k >> shift) & (buckets - 1)
			tmp[count[d]] = k
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	for i, k := range keys {
		x[i] = keyFloat(k)
	}
}

// floatKey maps a float to an integer with the same order: negative
// numbers have all bits flipped, others only the sign bit.
func floatKey(v float64) uint64 {
	b := math.Float64bits(v)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

func keyFloat(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}
