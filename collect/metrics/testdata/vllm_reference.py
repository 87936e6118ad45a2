"""Reference computation for collect/metrics tests.

Reads a JSON file with per-request records and options (written by
numpy_test.go), computes vLLM `bench serve`'s metrics with numpy the way
vllm/benchmarks/serve.py's calculate_metrics does (written from the spec in
reference/bench-core.md §1.5-1.8, not copied), and prints a JSON object with
the summary values, the text block and the --save-result JSON, so the Go
test can compare them byte for byte.

Needs /usr/bin/python3 with numpy (Debian python3-numpy).
"""

import json
import sys

import numpy as np


def stats(values, percentiles):
    # vLLM: np.mean(x or 0) * 1000 and friends.
    x = values or 0
    return {
        "mean": float(np.mean(x) * 1000),
        "median": float(np.median(x) * 1000),
        "std": float(np.std(x) * 1000),
        "percentiles": [[p, float(np.percentile(x, p) * 1000)] for p in percentiles],
    }


def main():
    with open(sys.argv[1]) as f:
        inp = json.load(f)
    opt = inp["options"]
    hdr = inp["header"]
    recs = inp["records"]
    dur = float(inp["duration_s"])
    pcts = [float(p) for p in opt["percentiles"]]
    rate = float(opt["request_rate"]) if opt["request_rate"] > 0 else float("inf")
    max_conc = opt["max_concurrency"] if opt["max_concurrency"] > 0 else None
    tokenizer = not opt["skip_tokenizer"]
    goodput = opt["goodput"] or {}

    # The request functions' outputs (RequestFuncOutput).
    outputs = []
    for r in recs:
        # Go writes 2.0 as 2; Python must see floats where vLLM has floats.
        for k in ("send_s", "arrival_s", "end_s"):
            r[k] = float(r.get(k, 0.0))
        ev = [float(t) for t in (r.get("event_s") or [])]
        o = {
            "success": r["success"],
            "start_time": r["send_s"],
            "ttft": ev[0] - r["send_s"] if ev else 0.0,
            "itl": [ev[k] - ev[k - 1] for k in range(1, len(ev))],
            "latency": 0.0,
            "output_tokens": r["output_tokens"],
            "prompt_len": r["prompt_tokens"],
            "generated_text": r.get("generated_text", "") if r["success"] else "",
            "error": "" if r["success"] else r.get("error", ""),
            "client_queue_time": r["send_s"] - r["arrival_s"],
        }
        if r.get("usage_prompt_tokens") is not None and not opt["dataset_input_tokens"]:
            o["prompt_len"] = r["usage_prompt_tokens"]
        if r["success"]:
            if opt["latency_to_stream_end"]:
                o["latency"] = r["end_s"] - r["send_s"]
            else:
                o["latency"] = ev[-1] - r["send_s"]
        outputs.append(o)

    # calculate_metrics
    actual_output_lens = []
    total_input = 0
    completed = 0
    good_completed = 0
    itls, tpots, all_tpots, ttfts, e2els = [], [], [], [], []
    for o in outputs:
        if o["success"]:
            output_len = o["output_tokens"]
            if not output_len:
                if not tokenizer:
                    output_len = 1
                else:
                    output_len = len(o["generated_text"].split())  # the test's tokenizer
            actual_output_lens.append(output_len)
            total_input += o["prompt_len"]
            tpot = 0.0
            if output_len > 1:
                tpot = (o["latency"] - o["ttft"]) / (output_len - 1)
                tpots.append(tpot)
            all_tpots.append(tpot)
            itls += o["itl"]
            ttfts.append(o["ttft"])
            e2els.append(o["latency"])
            completed += 1
        else:
            actual_output_lens.append(0)
    if goodput:
        cols, slos = [], []
        for key, col in (("ttft", ttfts), ("tpot", all_tpots), ("e2el", e2els)):
            if key in goodput:
                cols.append(col)
                slos.append(goodput[key] / 1000)
        for req in zip(*cols):
            if all(s >= r for s, r in zip(slos, req)):
                good_completed += 1

    max_tok = 0.0
    max_conc_req = 0
    ok = [o for o in outputs if o["success"]]
    if ok:
        t0 = min(o["start_time"] for o in ok)
        t_end = max(o["start_time"] + o["latency"] for o in ok)
        nb = int(np.ceil(t_end - t0)) + 1
        tok = np.zeros(nb)
        conc = np.zeros(nb)
        for o in ok:
            times = [o["start_time"] + o["ttft"]]
            cur = times[0]
            for g in o["itl"]:
                cur += g
                times.append(cur)
            for t in times:
                b = int(t - t0)
                if 0 <= b < nb:
                    tok[b] += 1
            s = int(o["start_time"] - t0)
            e = int((o["start_time"] + o["latency"]) - t0)
            for sec in range(s, e + 1):
                if 0 <= sec < nb:
                    conc[sec] += 1
        edges = []
        for o in ok:
            edges.append((o["start_time"], 1))
            edges.append((o["start_time"] + o["latency"], -1))
        edges.sort(key=lambda x: (x[0], x[1]))
        cur = peak = 0
        for _, d in edges:
            cur += d
            peak = max(peak, cur)
        max_tok = float(np.max(tok))
        max_conc_req = int(np.max(conc)) if opt["bucketed_peak_concurrency"] else peak

    total_output = sum(actual_output_lens)
    summary = {
        "completed": completed,
        "failed": len(outputs) - completed,
        "total_input": total_input,
        "total_output": total_output,
        "request_throughput": completed / dur,
        "request_goodput": good_completed / dur,
        "output_throughput": total_output / dur,
        "total_token_throughput": (total_input + total_output) / dur,
        "max_output_tokens_per_s": max_tok,
        "max_concurrent_requests": max_conc_req,
        "ttft": stats(ttfts, pcts),
        "tpot": stats(tpots, pcts),
        "itl": stats(itls, pcts),
        "e2el": stats(e2els, pcts),
    }
    queue_times = e2el_q = None
    if max_conc is not None:
        queue_times = [o["client_queue_time"] for o in outputs if o["success"]]
        summary["client_queue_time"] = stats(queue_times, pcts)
        if rate != float("inf"):
            e2el_q = [o["latency"] + o["client_queue_time"] for o in outputs if o["success"]]
            summary["e2el_including_client_queue"] = stats(e2el_q, pcts)

    # The text block.
    lines = []
    p = lines.append
    p("{s:{c}^{n}}".format(s=" Serving Benchmark Result ", n=50, c="="))
    p("{:<40} {:<10}".format("Successful requests:", completed))
    p("{:<40} {:<10}".format("Failed requests:", summary["failed"]))
    if max_conc is not None:
        p("{:<40} {:<10}".format("Maximum request concurrency:", max_conc))
    if rate != float("inf"):
        p("{:<40} {:<10.2f}".format("Request rate configured (RPS):", rate))
    p("{:<40} {:<10.2f}".format("Benchmark duration (s):", dur))
    p("{:<40} {:<10}".format("Total input tokens:", total_input))
    if tokenizer:
        p("{:<40} {:<10}".format("Total generated tokens:", total_output))
    p("{:<40} {:<10.2f}".format("Request throughput (req/s):", summary["request_throughput"]))
    if goodput:
        p("{:<40} {:<10.2f}".format("Request goodput (req/s):", summary["request_goodput"]))
    if tokenizer:
        p("{:<40} {:<10.2f}".format("Output token throughput (tok/s):", summary["output_throughput"]))
        p("{:<40} {:<10.2f}".format("Peak output token throughput (tok/s):", max_tok))
    p("{:<40} {:<10.2f}".format("Peak concurrent requests:", max_conc_req))
    if tokenizer:
        label = "Total Token throughput (tok/s):" if opt["capital_token_label"] else "Total token throughput (tok/s):"
        p("{:<40} {:<10.2f}".format(label, summary["total_token_throughput"]))

    mid = hdr["layout"] == "mid"
    result = {
        "duration": dur,
        "completed": completed,
        "failed": summary["failed"],
        "total_input_tokens": total_input,
        "total_output_tokens": total_output,
        "request_throughput": summary["request_throughput"],
        "request_goodput": summary["request_goodput"] if goodput else None,
        "output_throughput": summary["output_throughput"],
        "total_token_throughput": summary["total_token_throughput"],
        "input_lens": [o["prompt_len"] for o in outputs],
        "output_lens": actual_output_lens,
        "ttfts": [o["ttft"] for o in outputs],
        "itls": [o["itl"] for o in outputs],
    }
    if not mid:
        result["latencies"] = [o["latency"] for o in outputs]
        result["start_times"] = [o["start_time"] for o in outputs]
        result["queue_times"] = [o["client_queue_time"] for o in outputs]
    result["generated_texts"] = [o["generated_text"] for o in outputs]
    result["errors"] = [o["error"] for o in outputs]
    result["max_output_tokens_per_s"] = max_tok
    result["max_concurrent_requests"] = max_conc_req
    if not mid:
        result["rtfx"] = 0.0

    selected = opt["metrics"]
    groups = []
    if tokenizer:
        groups += [("ttft", "TTFT", "Time to First Token"),
                   ("tpot", "TPOT", "Time per Output Token (excl. 1st token)"),
                   ("itl", "ITL", "Inter-token Latency")]
    groups.append(("e2el", "E2EL", "End-to-end Latency"))
    if queue_times is not None:
        groups.append(("client_queue_time", "Client Queue Time", "Client-side Queueing"))
    if e2el_q is not None:
        groups.append(("e2el_including_client_queue", "E2EL incl. Client Queue",
                       "Queue-inclusive End-to-end Latency"))
    for key, name, header in groups:
        if key not in selected:
            continue
        # The mid layout's JSON predates the client-queue groups; the text
        # block is the newest one in every case.
        in_json = not (mid and key in ("client_queue_time", "e2el_including_client_queue"))
        st = summary[key]
        p("{s:{c}^{n}}".format(s=header, n=50, c="-"))
        p("{:<40} {:<10.2f}".format(f"Mean {name} (ms):", st["mean"]))
        p("{:<40} {:<10.2f}".format(f"Median {name} (ms):", st["median"]))
        if in_json:
            result[f"mean_{key}_ms"] = st["mean"]
            result[f"median_{key}_ms"] = st["median"]
            result[f"std_{key}_ms"] = st["std"]
        for pc, value in st["percentiles"]:
            word = str(int(pc)) if int(pc) == pc else str(pc)
            p("{:<40} {:<10.2f}".format(f"P{word} {name} (ms):", value))
            if in_json:
                result[f"p{word}_{key}_ms"] = value
    p("=" * 50)

    head = {
        "date": hdr["date"],
        "endpoint_type": hdr["backend"],
        "backend": hdr["backend"],
        "label": hdr["label"] or None,
        "model_id": hdr["model_id"],
        "tokenizer_id": hdr["tokenizer_id"] or None,
        "num_prompts": hdr["num_prompts"],
    }
    for k, v in hdr["metadata"]:
        head[k.strip()] = v.strip()
    head["request_rate"] = rate if rate < float("inf") else "inf"
    head["burstiness"] = float(opt["burstiness"] or 1.0)
    head["max_concurrency"] = max_conc
    detailed = {**head, **result}
    plain = dict(detailed)
    for k in ["input_lens", "output_lens", "start_times", "ttfts", "itls", "generated_texts", "errors"]:
        plain.pop(k, None)

    json.dump({
        "summary": summary,
        "text": "\n".join(lines) + "\n",
        "json": json.dumps(plain),
        "json_detailed": json.dumps(detailed),
        "numpy": np.__version__,
    }, sys.stdout)


main()
