// Package stats holds the statistics that perflab's command line
// (bench --num-runs, --compare) and its pages (repeats, significance,
// curves) share: a sample's spread, the Mann-Whitney U test that decides
// whether two samples differ, and interactivity. It is a leaf: it imports
// nothing of perflab's, so collect and render may both use it (render
// imports nothing else of collect's but collect/schema).
//
// Definitions:
//
//   - Sample.StdDev is the sample standard deviation (n−1 in the
//     denominator); CV = StdDev / Mean, a fraction (0.031 = 3.1 %). A
//     single value has StdDev 0 and CV 0.
//   - Compare tests two samples with the two-sided Mann-Whitney U test
//     (exact distribution for small samples, normal approximation with
//     tie correction for large ones: github.com/aclements/go-moremath's
//     implementation, the one benchstat used) at significance level
//     Alpha. Like benchstat, a difference whose p-value is not below
//     Alpha is printed as "~", and the line says (p=… n=…+…).
//   - With n runs per side the smallest two-sided p-value the exact test
//     can give is 2/C(2n, n): 1.0 for 1+1, 0.333 for 2+2, 0.1 for 3+3,
//     0.029 for 4+4, 0.008 for 5+5. So at Alpha = 0.05 at least four
//     runs per side are needed before any difference can be called
//     significant; Delta.Tested is false below that and the line says
//     why instead of printing "~".
//   - Interactivity (tok/s/user) = 1000 / median TPOT in ms, the figure
//     InferenceMAX plots throughput per GPU against.
package stats
