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
//     Alpha. Like benchstat, a difference whose p-value is above Alpha
//     is printed as "~", and the line says (p=… n=…+…).
//   - With n1 and n2 runs the smallest two-sided p-value the exact test
//     can give is 2/C(n1+n2, n1) (MinP): 1.0 for 1+1, 0.333 for 2+2, 0.1
//     for 3+3, 0.057 for 3+4, 0.029 for 4+4, 0.036 for 3+5, 0.044 for
//     2+8. So at Alpha = 0.05 four runs per side are needed (or unequal
//     counts such as 3+5) before any difference can be called
//     significant; Delta.Tested is false below that and the line says
//     why instead of printing "~".
//   - Interactivity (tok/s/user) = 1000 / median TPOT in ms, the figure
//     InferenceMAX plots throughput per GPU against.
package stats
