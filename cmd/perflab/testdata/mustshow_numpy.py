"""Recompute `vllm bench serve`'s statistics from a --save-detailed JSON.

Usage: mustshow_numpy.py RESULT.json

Prints one JSON object: "printed" maps each label of the text block to the
value vLLM's calculate_metrics computes from the per-request lists, with
numpy's definitions (np.mean, np.median, np.std, np.percentile; seconds
scaled to ms after the statistic, as vLLM does); "json" maps the summary
keys of the result file to the same values. Used by TestMustShowMockRandom
(mustshow_e2e_test.go); see ../../shared/reference/bench-core.md §1.6.
"""
import json
import sys

import numpy as np


def main(path):
    with open(path) as f:
        d = json.load(f)
    n = len(d["errors"])
    ok = [i for i in range(n) if not d["errors"][i]]
    ttfts = [d["ttfts"][i] for i in ok]
    lats = [d["latencies"][i] for i in ok]
    outs = [d["output_lens"][i] for i in ok]
    ins = [d["input_lens"][i] for i in ok]
    starts = [d["start_times"][i] for i in ok]
    itls = []
    tpots = []
    for k, i in enumerate(ok):
        itls += d["itls"][i]
        if outs[k] > 1:
            tpots.append((lats[k] - ttfts[k]) / (outs[k] - 1))
    dur = d["duration"]

    printed = {
        "Successful requests": len(ok),
        "Failed requests": n - len(ok),
        "Benchmark duration (s)": dur,
        "Total input tokens": sum(ins),
        "Total generated tokens": sum(outs),
        "Request throughput (req/s)": len(ok) / dur,
        "Output token throughput (tok/s)": sum(outs) / dur,
        "Total token throughput (tok/s)": (sum(ins) + sum(outs)) / dur,
    }
    if d["max_concurrency"] is not None:
        printed["Maximum request concurrency"] = d["max_concurrency"]
    js = {
        "completed": len(ok),
        "failed": n - len(ok),
        "total_input_tokens": sum(ins),
        "total_output_tokens": sum(outs),
        "request_throughput": len(ok) / dur,
        "output_throughput": sum(outs) / dur,
        "total_token_throughput": (sum(ins) + sum(outs)) / dur,
    }

    # Peak output token throughput: token events per whole second since the
    # first start (start + ttft + cumulative ITLs, as vLLM rebuilds them).
    t0 = min(starts)
    t_end = max(s + l for s, l in zip(starts, lats))
    tokens = np.zeros(int(np.ceil(t_end - t0)) + 1)
    for k, i in enumerate(ok):
        t = starts[k] + ttfts[k]
        times = [t]
        for g in d["itls"][i]:
            t += g
            times.append(t)
        for t in times:
            b = int(t - t0)
            if 0 <= b < len(tokens):
                tokens[b] += 1
    printed["Peak output token throughput (tok/s)"] = float(np.max(tokens))
    js["max_output_tokens_per_s"] = float(np.max(tokens))

    # Peak concurrent requests: newest vLLM's sweep line over [start, end),
    # departures before arrivals at equal times.
    edges = sorted([(s, 1) for s in starts] + [(s + l, -1) for s, l in zip(starts, lats)])
    cur = peak = 0
    for _, e in edges:
        cur += e
        peak = max(peak, cur)
    printed["Peak concurrent requests"] = peak
    js["max_concurrent_requests"] = peak

    groups = [("ttft", "TTFT", ttfts), ("tpot", "TPOT", tpots), ("itl", "ITL", itls), ("e2el", "E2EL", lats)]
    for key, label, xs in groups:
        stats = {
            "mean": np.mean(xs or 0) * 1000,
            "median": np.median(xs or 0) * 1000,
            "std": np.std(xs or 0) * 1000,
            "p99": np.percentile(xs or 0, 99) * 1000,
        }
        printed["Mean %s (ms)" % label] = stats["mean"]
        printed["Median %s (ms)" % label] = stats["median"]
        printed["P99 %s (ms)" % label] = stats["p99"]
        for s, v in stats.items():
            js["%s_%s_ms" % (s, key)] = v

    out = {"printed": printed, "json": js}
    json.dump({g: {k: float(v) for k, v in m.items()} for g, m in out.items()}, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
