# Regenerates schedule_numpy.json: the arrival times vLLM's get_request
# computes (newest serve.py: gamma delays, cumulative, rescaled to N/rate)
# with numpy's legacy global RNG seeded by np.random.seed(seed).
# Run with Debian's numpy: /usr/bin/python3 schedule_numpy.py > schedule_numpy.json
import json
import numpy as np

cases = []
for seed, n, rate, burst in [(0, 10, 4.0, 1.0), (42, 50, 100.0, 1.0), (7, 20, 2.5, 0.5),
                             (1, 20, 10.0, 3.0), (0, 5, 1.0, float("inf")), (3, 1, 5.0, 1.0)]:
    np.random.seed(seed)
    delays = []
    for _ in range(n):
        if burst == float("inf"):
            delays.append(1.0 / rate)
        else:
            theta = 1.0 / (rate * burst)
            delays.append(np.random.gamma(shape=burst, scale=theta))
    for i in range(1, len(delays)):
        delays[i] += delays[i - 1]
    if delays[-1] != 0:
        f = (n / rate) / delays[-1]
        delays = [d * f for d in delays]
    cases.append({"seed": seed, "n": n, "rate": rate,
                  "burstiness": "inf" if burst == float("inf") else burst,
                  "times_s": [float(d) for d in delays]})
np.random.seed(0)
first = [float(np.random.random_sample()) for _ in range(3)]
print(json.dumps({"random_sample_seed0": first, "cases": cases}, indent=1))
