# Draws the numbers vLLM's RandomDataset would draw (numpy default_rng,
# vLLM's order) for the configuration below, for vllm-random.js, which
# replays vLLM's prompt construction with the JavaScript Qwen3 tokenizer.
# Run with numpy (Debian's python3-numpy): /usr/bin/python3 vllm-random.py > /tmp/draws.json
import json, math, sys
import numpy as np

cfg = dict(seed=0, num_prompts=40, input_len=512, output_len=64, range_ratio=0.5, prefix_len=16)
vocab_size, num_special = 151643, 0  # Qwen3: base vocab, no BOS
special_ids = []  # Qwen3's special ids are all >= vocab_size

rng = np.random.default_rng(cfg["seed"])
real = max(0, cfg["input_len"] - num_special)
r = cfg["range_ratio"]
in_lo, in_hi = math.floor(real * (1 - r)), math.ceil(real * (1 + r))
out_lo, out_hi = max(1, math.floor(cfg["output_len"] * (1 - r))), max(1, math.ceil(cfg["output_len"] * (1 + r)))
n = cfg["num_prompts"]
input_lens = rng.integers(in_lo, in_hi + 1, size=n)
output_lens = rng.integers(out_lo, out_hi + 1, size=n)
offsets = rng.integers(0, vocab_size, size=n)
allowed = np.array(list(set(np.arange(vocab_size)) - set(special_ids)))
prefix = allowed[rng.integers(0, len(allowed), size=cfg["prefix_len"])]
# Every later draw is rng.integers(0, vocab_size): padding ids, consumed in order.
pad = rng.integers(0, vocab_size, size=20000)
json.dump(dict(config=cfg, vocab_size=vocab_size, input_lens=input_lens.tolist(), output_lens=output_lens.tolist(),
               offsets=offsets.tolist(), prefix=prefix.tolist(), pad=pad.tolist()), sys.stdout)
