// Package sweep holds what `perflab bench` does with more than one run:
// the load points of a sweep (--sweep-max-concurrency,
// --sweep-request-rate), the sweep summary table, the spread of repeated
// runs (--num-runs), the comparison of two sets of runs (--compare) and
// the search for the most load that meets a latency SLO (--slo with
// --slo-search). It runs nothing itself: the caller runs the benchmark
// (a Probe for the search) and hands over the summaries.
//
// Definitions:
//
//   - A point's interactivity is tok/s/user = 1000 / median TPOT (ms)
//     (collect/stats.Interactivity).
//   - The best-throughput point has the highest output token throughput;
//     with an SLO, the best point within it is the one with the highest
//     output throughput among the points that meet every limit; with
//     --goodput alone, the best-goodput point has the highest request
//     goodput.
//   - Repeats and comparisons use collect/stats: mean, sample standard
//     deviation, min, max, CV; the two-sided Mann-Whitney U test at
//     α = 0.05 ("~" when p > α, as benchstat), which needs 4 runs per
//     side (or unequal counts such as 3+5) to be able to call any
//     difference significant.
//   - The SLO search (Search) brackets, then bisects; see Search.
package sweep
