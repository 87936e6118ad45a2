package dataset

import (
	"slices"
	"testing"
)

// The expected values were printed by CPython 3.11's random module, e.g.
// python3 -c "import random; random.seed(0); print(random.random())".
func TestPyRandomMatchesCPython(t *testing.T) {
	r := newPyRandom(0)
	if got := []float64{r.float64(), r.float64()}; !slices.Equal(got, []float64{0.8444218515250481, 0.7579544029403025}) {
		t.Errorf("seed 0: random() = %v", got)
	}
	if got := newPyRandom(42).float64(); got != 0.6394267984578837 {
		t.Errorf("seed 42: random() = %v", got)
	}
	// A seed above 2^32 uses two key words.
	if got := newPyRandom(1<<40 + 7).float64(); got != 0.6137037779936511 {
		t.Errorf("seed 2^40+7: random() = %v", got)
	}

	shuffled := func(seed int64, n int) []int {
		x := make([]int, n)
		for i := range x {
			x[i] = i
		}
		newPyRandom(seed).shuffle(n, func(i, j int) { x[i], x[j] = x[j], x[i] })
		return x
	}
	if got, want := shuffled(0, 20), []int{10, 18, 16, 14, 0, 17, 11, 2, 3, 9, 5, 7, 4, 19, 6, 15, 8, 1, 13, 12}; !slices.Equal(got, want) {
		t.Errorf("shuffle(range(20)) seed 0 = %v, want %v", got, want)
	}
	if got, want := shuffled(123, 1000)[:10], []int{178, 830, 641, 410, 255, 470, 433, 580, 257, 450}; !slices.Equal(got, want) {
		t.Errorf("shuffle(range(1000)) seed 123 starts %v, want %v", got, want)
	}

	r = newPyRandom(5)
	var choices []int
	for range 10 {
		choices = append(choices, r.choiceIndex(7))
	}
	if want := []int{4, 5, 5, 6, 5, 6, 0, 3, 6, 4}; !slices.Equal(choices, want) {
		t.Errorf("choices(range(7), k=10) seed 5 = %v, want %v", choices, want)
	}
}
