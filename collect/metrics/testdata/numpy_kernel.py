"""Kernel reference for collect/metrics: np.mean, np.median, np.std and
np.percentile of each sample list in the input file, as JSON (Python repr
floats, so every bit survives)."""

import json
import sys

import numpy as np

with open(sys.argv[1]) as f:
    inp = json.load(f)
out = []
for xs in inp["samples"]:
    x = [float(v) for v in xs]
    out.append({
        "mean": float(np.mean(x)),
        "median": float(np.median(x)),
        "std": float(np.std(x)),
        "percentiles": [float(np.percentile(x, float(p))) for p in inp["percentiles"]],
    })
json.dump(out, sys.stdout)
