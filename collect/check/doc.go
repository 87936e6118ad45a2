// Package check finds the numbers on a performance-lab page that disagree
// with the page's own data.
//
// A page of pasted outputs (a GPUStack-style MkDocs page: serving
// commands, `vllm bench serve` blocks, hand-made tables) is checked
// against the benchmark blocks on it, read with collect/ingest. A perflab
// report page (a bundle with a campaign) is checked against its campaign's
// results. Check reports, each as FILE:LINE and what is wrong:
//
//   - a number presented as a result (a metric label before it, "Total
//     TPS: 4068.16", or a unit after it, "2659.50 tok/s") that matches no
//     run at its printed precision; the difference of two numbers beside
//     it ("faster by 4,636.35 tok/s") counts as matched, and so, in a
//     sentence about a difference ("adds", "more", "by"), does the
//     difference of two runs (of one profile) written alone; units are
//     tok/s, req/s, ms, tok/s/user (interactivity, 1000 / median TPOT, as
//     collect/stats defines it), a k suffix ("2.35k tok/s", rounded to
//     its printed digits) and "per GPU" ("per H100") after the number or
//     in its column's header, "(tok/s/GPU)" (the run's value over the
//     GPUs its command's parallelism flags, or its campaign, give); on a
//     report page the median and the mean of a run's repeats count too;
//   - a percentage (or a factor, "1.82x") that is not the change (the
//     ratio) between the numbers it stands beside, compared at its
//     printed precision with the inputs' rounding taken into account: in
//     a table, the value it follows and the same metric in another cell
//     of its row (the baseline column first) or, in a table with one
//     configuration per row, in the baseline row (a "vs. baseline" cell
//     of its own: the change of one of its row's values from the same
//     column of the baseline row, 0% or 1x in the baseline row itself); in
//     prose, any two numbers of its sentence and the one before (when only
//     the sentence before holds numbers, or when its clause names a metric
//     none of them measures, "… 333.00 ms, while throughput rose 22.5%",
//     the change between two runs in that metric counts too); on a
//     perflab page, a percentage beside no numbers must be the change
//     between two runs of one profile in the metric its sentence names
//     (none is checked before the campaign has results); a percentage of
//     a change per GPU ("+31.6%/GPU", "… 26.8% higher throughput per
//     GPU") is the change of each value over the GPUs of the run it
//     matches (its command's parallelism flags), and is not checked when
//     those runs' GPU counts are unknown;
//   - step percentages (a table with one percentage per row and no other
//     numbers) that do not compound to the total: the table's Total row,
//     or the first percentage of the baseline-vs-optimized table above it
//     (the case the steps were measured on; another row's percentage
//     matches a summary about that case);
//   - a command (`vllm serve`, `sglang.launch_server --model-path`,
//     `trtllm-serve`, `vllm bench serve --model`) naming a different model
//     than the page's (the campaign's, or the Model section's and the
//     title's; served variants such as …-FP8 count as the page's model),
//     a model of the page's family but another size named in its prose
//     (not in a sentence about a draft model), and on a report page a
//     result whose run served another model;
//   - a serving command launching another engine than its section's
//     heading names;
//   - a ranking written with > or < ("TensorRT-LLM (2659.50 tok/s) > vLLM
//     (2352.82 tok/s)") that its numbers contradict;
//   - a comparison of a configuration with itself: both numbers of a
//     verified comparison from one run or from two runs of the same
//     serving command and profile, identical Baseline and Optimized
//     serving scripts, a campaign whose baseline and optimized experiments
//     launch the same thing, or two experiments of one step that do;
//   - a throughput gain bounded by the offered load: the better run of a
//     comparison served at least 90% of the requests per second offered
//     (the block's "Request rate configured", or the one rate all the
//     page's benchmark commands give), so it measured the load generator;
//     on a report page, the baseline-vs-optimized comparison of a profile
//     with a request rate whose optimized run served the offered load.
//
// Run also returns Counts (runs read; numbers, percentages, step tables
// and model names checked), so that a clean page can be told from one with
// nothing to check.
//
// Load fails with a *PageError when the page, its campaign or its results
// cannot be read; its Lines name the file at fault (FILE:LINE: what, the
// page it serves after it), so that a caller can report it and go on with
// the other pages (perflab check does, with exit status 3).
//
// What is not checked, to keep findings real: percentages labelled as a
// share ("Success rate: 51.6%", "GPU utilization stayed at 95%", "90% GPU
// memory"), percentages repeating one printed earlier ("lower than
// previous +9.75%"), numbers without a metric label or unit (input
// lengths, prompt counts, flags, device counts such as "8x H100"), bounds
// such as an SLO's ("mean TTFT < 500 ms", "under 1,000 ms"), and
// everything inside code blocks (raw outputs are the data, not claims).
package check
