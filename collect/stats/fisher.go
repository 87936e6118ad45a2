package stats

import "math"

// FisherGreater is the one-sided p-value of Fisher's exact test that the
// rate of a (a events in n trials) is greater than the rate of b (b in
// m): the chance, with the a+b events spread at random over the n+m
// trials, that n of them hold a or more. It is what `perflab diff` asks of
// failed requests (a few more failures in NEW than in OLD are noise, many
// are not). Written here: the test is a sum of hypergeometric terms, which
// needs only math.Lgamma (gonum's distuv has no hypergeometric law).
func FisherGreater(a, n, b, m int) float64 {
	if a < 0 || b < 0 || a > n || b > m {
		return math.NaN()
	}
	k, total := a+b, n+m // events, trials
	lchoose := func(x, y int) float64 {
		lx, _ := math.Lgamma(float64(x + 1))
		ly, _ := math.Lgamma(float64(y + 1))
		lxy, _ := math.Lgamma(float64(x - y + 1))
		return lx - ly - lxy
	}
	denom := lchoose(total, k)
	hi := min(k, n)
	p := 0.0
	for x := a; x <= hi; x++ {
		if k-x > m {
			continue
		}
		p += math.Exp(lchoose(n, x) + lchoose(m, k-x) - denom)
	}
	return min(p, 1)
}
