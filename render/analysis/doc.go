// Package analysis turns recorded results into the numbers a page shows
// about them, without any HTML: comparisons of repeated runs (spread and
// the Mann-Whitney test, via collect/stats), curves of sweep points
// (throughput per GPU against interactivity, latency percentiles against
// load), the Pareto frontier across experiments and the answer to "the
// most load that meets the SLO" with its throughput per GPU, cost per
// million tokens and tokens per joule. render formats these as tables,
// chart options, CSV and JSON (benchstat's shape: compute once, format
// many).
//
// It imports collect/schema and collect/stats only.
//
// Definitions:
//
//   - A point's figures are means over its repeats (runs with status ok
//     and completed requests); skipped and failed runs are left out.
//   - Throughput per GPU = total (or output) tok/s ÷ the experiment's
//     GPU count; interactivity = 1000 / median TPOT (tok/s/user).
//   - A point meets the SLO when, for every limit, the mean over its
//     repeats of the limited statistic is at most the limit.
//   - Cost per million tokens = price per GPU-hour ÷ (3600 × throughput
//     per GPU) × 10⁶, for the throughput's kind of tokens.
//   - Tokens per joule = output tokens ÷ the GPUs' energy (NVML).
package analysis
