package dataset

import (
	"slices"
	"testing"
)

// The expected values were printed by numpy 1.24 (Debian's python3-numpy):
//
//	import numpy as np
//	np.random.SeedSequence(0).generate_state(4, np.uint64)
//	b = np.random.PCG64(0); [b.random_raw() for _ in range(3)]
//	r = np.random.default_rng(0); r.integers(0, 151643, 5); r.integers(10, 20, 3); ...
func TestNumpyRandomMatchesNumpy(t *testing.T) {
	if got, want := seedSequenceState(0, 4), []uint64{15793235383387715774, 12390638538380655177, 2361836109651742017, 3188717715514472916}; !slices.Equal(got, want) {
		t.Errorf("SeedSequence(0) state %v, want %v", got, want)
	}
	// A seed above 2^32 is two entropy words.
	if got, want := seedSequenceState(1<<40+3, 4), []uint64{6059815089232835828, 7748354339778573394, 7469072271128384145, 3873464148347455775}; !slices.Equal(got, want) {
		t.Errorf("SeedSequence(2^40+3) state %v, want %v", got, want)
	}
	r := newNPRandom(0)
	if got, want := []uint64{r.uint64(), r.uint64(), r.uint64()}, []uint64{11749869230777074271, 4976686463289251617, 755828109848996024}; !slices.Equal(got, want) {
		t.Errorf("PCG64(0) raw %v, want %v", got, want)
	}

	r = newNPRandom(0)
	draw := func(low, high int64, n int) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = r.integers(low, high)
		}
		return out
	}
	cases := []struct {
		low, high int64
		want      []int64
	}{
		{0, 151643, []int64{128991, 96590, 77510, 40911, 46680}},
		{10, 20, []int64{10, 10, 10}},
		{5, 6, []int64{5, 5}},                              // one value: no draw
		{0, 1 << 40, []int64{894200084524, 1003585370534}}, // 64-bit Lemire
		{0, 1 << 32, []int64{2163061375, 2605480817}},      // a whole 32-bit draw
		{-5, 5, []int64{4, 2, 1, 0}},
	}
	for _, c := range cases { // in order: the draws share one generator
		if got := draw(c.low, c.high, len(c.want)); !slices.Equal(got, c.want) {
			t.Errorf("integers(%d, %d) = %v, want %v", c.low, c.high, got, c.want)
		}
	}
	r = newNPRandom(42)
	if got, want := draw(100, 1000, 6), []int64{180, 796, 689, 494, 489, 872}; !slices.Equal(got, want) {
		t.Errorf("seed 42: integers(100, 1000) = %v, want %v", got, want)
	}
}

// TestRandomDrawsMatchVLLM checks the numbers Random draws before building
// prompts against vLLM's RandomDataset.get_sampling_params and get_prefix,
// run with numpy 1.24:
//
//	rng = np.random.default_rng(7)   # --seed 7, input 100, output 20, ratio 0.3, prefix 10
//	rng.integers(70, 131, size=5); rng.integers(14, 27, size=5); rng.integers(0, 151643, size=5)
//	allowed = np.array(list(set(np.arange(151643)) - set(special_ids)))
//	allowed[rng.integers(0, len(allowed), size=10)]
//	rng.integers(0, 151643, size=3)  # the first padding ids gen_prompt_decode_to_target_len would draw
func TestRandomDrawsMatchVLLM(t *testing.T) {
	allowed := make([]int, 151643)
	for i := range allowed {
		allowed[i] = i
	}
	rng := newNPRandom(7)
	cfg := RandomConfig{NumPrompts: 5, InputLen: 100, OutputLen: 20, RangeRatio: 0.3, PrefixLen: 10, Seed: 7}
	d, err := drawRandom(cfg, 0, 151643, allowed, rng)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, got, want []int) {
		if !slices.Equal(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("input lens", d.inLens, []int{127, 108, 111, 124, 105})
	check("output lens", d.outLens, []int{24, 24, 16, 14, 17})
	check("offsets", d.offsets, []int{43228, 132468, 138392, 798, 75789})
	check("prefix", d.prefix, []int{124533, 19932, 120869, 18058, 70959, 123811, 45952, 51801, 42221, 109102})
	check("next draws", []int{int(rng.integers(0, 151643)), int(rng.integers(0, 151643)), int(rng.integers(0, 151643))}, []int{38649, 150196, 67492})
}
