// Package metrics turns per-request records (schema.Request) into the
// summary that `vllm bench serve` reports, with the definitions of its
// newest version, and writes that summary as vLLM's "Serving Benchmark
// Result" text block and as its --save-result JSON. It is pure: no I/O but
// the writers, no clock, no package state.
//
// # Records
//
// All record times are seconds since the run's t=0, the moment the
// dispatch loop started (vLLM's benchmark_start_time). For request i:
// send_i is Request.SendS (after the concurrency cap admitted it), e_i,k
// its token events Request.EventS (SSE events with non-empty choices, in
// arrival order) and arrival_i Request.ArrivalS. S is the set of
// successful requests (Request.Success); a successful request must have at
// least one event. Failed requests count in Failed and nowhere else
// (except the per-request lists of the detailed JSON).
//
//	ttft_i    = e_i,0 − send_i
//	latency_i = e_i,last − send_i            (E2EL; trailing usage chunk and [DONE] excluded)
//	itl_i,k   = e_i,k − e_i,k−1              (k ≥ 1; one sample per event, not per token)
//	out_i     = OutputTokens; if 0: 1 with SkipTokenizer, else CountTokens(GeneratedText) if set
//	in_i      = *UsagePromptTokens if the server reported it, else PromptTokens
//	tpot_i    = (latency_i − ttft_i)/(out_i − 1)   for out_i > 1 (else excluded; 0 for goodput)
//	queue_i   = send_i − arrival_i
//
// # Summary fields (schema.Summary)
//
//	DurationS             s      Options.DurationS; when 0, max over all requests of
//	                             max(SendS, EndS, last event): from t=0 to the last
//	                             moment any request was seen (vLLM: perf_counter after
//	                             gather − before the dispatch loop; same span).
//	Completed             count  |S|
//	Failed                count  N − |S|
//	TotalInputTokens      tok    Σ_{i∈S} in_i
//	TotalOutputTokens     tok    Σ_{i∈S} out_i
//	RequestThroughput     req/s  |S| / DurationS
//	RequestGoodput        req/s  good / DurationS; a request in S is good when every
//	                             --goodput SLO holds: slo_ms/1000 ≥ value in s, for
//	                             ttft_i, tpot_i (0 when out_i ≤ 1), latency_i. Nil
//	                             without SLOs.
//	OutputThroughput      tok/s  TotalOutputTokens / DurationS
//	TotalTokenThroughput  tok/s  (TotalInputTokens + TotalOutputTokens) / DurationS
//	MaxOutputTokensPerS   tok/s  Peak output token throughput: t0 = min send_i over S,
//	                             B = ceil(max(send_i + latency_i) − t0) + 1 one-second
//	                             buckets; each token EVENT of each request in S, at
//	                             time send_i + ttft_i + itl_i,1 + … (summed in that
//	                             order, as vLLM does), adds 1 to bucket int(t − t0)
//	                             (truncated); the largest bucket. It counts events,
//	                             not tokens, so multi-token events (speculative
//	                             decoding) lower it. 0 when S is empty.
//	MaxConcurrentRequests count  Peak concurrent requests: the exact maximum number of
//	                             requests of S in flight over half-open intervals
//	                             [send_i, send_i + latency_i) (a sweep over sorted
//	                             (time, ±1) edges, departures first at equal times).
//	                             With BucketedPeakConcurrency, vLLM ≤ 0.28's count:
//	                             request i counts in every bucket from int(send_i − t0)
//	                             to int(send_i + latency_i − t0) inclusive; the largest.
//	MaxConcurrency        count  the configured cap (Options.MaxConcurrency), nil if none.
//	TTFT, TPOT, ITL, E2EL ms     Stats of ttft_i, tpot_i, the pooled itl_i,k and
//	                             latency_i over S. Always computed; Options.Metrics
//	                             only selects what the writers print.
//	ClientQueue           ms     Stats of queue_i over S; only with a concurrency cap.
//	E2ELInclQueue         ms     Stats of latency_i + queue_i over S; only with a cap
//	                             and a finite rate.
//
// # Statistics (schema.Stats)
//
// Each statistic is computed on the samples in seconds and then multiplied
// by 1000, exactly as vLLM's np.mean(x)*1000, so that the milliseconds
// match vLLM's bit for bit:
//
//	MeanMs    np.mean: the sum divided by n. The sum is numpy's: started from 0.0,
//	          pairwise (blocks of ≤ 128 summed with 8 accumulators, larger ranges
//	          halved at a multiple of 8), over 8192-element chunks added in order as
//	          numpy up to 2.2 does (Options.Numpy23Sum: over the whole array, as
//	          numpy ≥ 2.3).
//	MedianMs  np.median: the middle sorted value, or the mean of the two middle ones.
//	StdMs     np.std, ddof = 0: sqrt(Σ(x − mean)² / n), the sum as for the mean.
//	P         np.percentile(x, p), method "linear": sorted x, h = (n−1)·p/100,
//	          lo = floor(h), g = h − lo, x[lo] + (x[lo+1] − x[lo])·g, computed as
//	          x[lo+1] − (x[lo+1] − x[lo])·(1 − g) when g ≥ 0.5 (numpy's _lerp).
//
// An empty sample gives 0 for every statistic (vLLM passes `x or 0`). The
// percentiles are Options.Percentiles in order (default [99]). NewStats,
// Mean, Std, Median and Percentile expose the same kernel.
//
// The package's tests recompute every statistic of random runs with numpy
// (Debian's python3-numpy 1.24) and require identical bits, and compare
// the text block and JSON with ones Python itself formats, byte for byte.
//
// Percentile labels follow vLLM: "P99" for an integral p, "P99.9"
// otherwise (Python's str(float)); JSON keys p99_ttft_ms, p99.9_ttft_ms.
//
// # Outputs
//
// WriteText writes the text block byte for byte (label padded to 40, one
// space, value padded to 10 — so lines end in spaces —, centred section
// headers, floats with two decimals, "Peak concurrent requests" as a float).
// WriteFailures writes the failure lines vLLM prints before it.
// WriteVLLMJSON writes the --save-result file (keys in vLLM's order,
// Python float repr, "inf" for an infinite rate, null for None) and with
// detailed the --save-detailed lists; VLLMFileName is vLLM's default name.
//
// # Versions
//
// The default is the newest vLLM (serve.py at 009e6d4a, after 0.28.0).
// Older behaviour is a named switch: Options.DatasetInputTokens (input
// tokens from the dataset), BucketedPeakConcurrency (≤ 0.28),
// LatencyToStreamEnd (2024: E2EL to [DONE]), CapitalTokenLabel ("Total
// Token throughput", 2024 – autumn 2025) and VLLMHeader.Layout = LayoutMid
// (the late-2025 JSON key set). Numpy23Sum selects the numpy ≥ 2.3
// summation for a vLLM installed with a newer numpy than its lock files. Not reproduced: speculative-decoding,
// diffusion, probe and RTFx rows (perflab never measures them; rtfx is
// written as 0.0), ramp-up keys, the 2024 block without the "Failed
// requests" and "Peak" rows, and the 2024 swap of E2EL mean and median.
//
// # Steady state (vllm-bench)
//
// SteadyState measures a closed-loop run (a cap, rate inf) over its
// plateau: the window from the first moment the in-flight count (each
// request from SendS to EndS, departures first at equal times) reaches
// ceil(threshold × cap) until the last moment it falls below it. Inside
// the window: requests sent and finished (TTFT, TPOT, count), requests
// finished per second, token events per second (a multi-token event
// counts its share of the request's output tokens), prompt tokens of the
// requests sent per second. schema.SteadyState documents the fields;
// WriteSteadyText prints them after the block and VLLMHeader.SteadyStateKey
// adds vllm-bench's "steady_state" key (null when not computed) to the JSON.
//
// ParseMetrics, ParsePercentiles, ParseGoodput and ParseMetadata read the
// corresponding vLLM flag values with vLLM's rules.
//
// # guidellm
//
// guidellm uses the same words for other quantities; GuidellmDefinitions
// labels them by guidellm's definitions (its TPOT includes the TTFT, its
// ITL is vLLM's TPOT weighted by tokens) and GuidellmPercentile is its
// weighted, non-interpolating percentile. They are kept apart from the
// vLLM definitions above and never feed the vLLM outputs.
package metrics
