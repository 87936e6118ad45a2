// Writes sharegpt-sample.json: a small ShareGPT-format file written for
// this project (no third-party text) for tests and demos. Deterministic:
// run `node make-sharegpt-sample.js`; the output is committed.
//
// Besides ordinary two-to-six-turn conversations it holds the cases vLLM's
// loader must handle: an entry without "conversations", one with a single
// turn, a too-short prompt, a too-short reply, a prompt over 1024 tokens,
// and a pair over 2048 tokens together.
"use strict";
const fs = require("fs");

let state = 12345;
const rnd = (n) => { state = (state * 1103515245 + 12345) % 2147483648; return state % n; };
const pick = (xs) => xs[rnd(xs.length)];

const topics = ["batch size", "KV cache", "tensor parallelism", "quantization", "speculative decoding", "prefix caching",
  "continuous batching", "paged attention", "FP8 weights", "request scheduling", "time to first token", "memory bandwidth"];
const asks = [
  "Can you explain how %s affects serving latency?",
  "What is %s and when should I use it?",
  "Write a short note on %s for a new engineer.",
  "Compare two ways of tuning %s on a single GPU.",
  "Why does %s matter for throughput? Give an example with numbers.",
  "用中文简单解释一下%s。",
  "List three pitfalls of %s.",
];
const sentences = [
  "It changes how many requests share one forward pass.",
  "Larger values raise throughput until memory runs out.",
  "The effect is easiest to see at high concurrency.",
  "Measure it with a fixed request rate and compare the p99 latency.",
  "Most engines expose it as a command-line flag.",
  "On a 2-core test machine the client itself can become the bottleneck.",
  "这通常会提高吞吐量，但会增加首个令牌的延迟。",
  "For example, doubling it from 128 to 256 raised output tokens per second by 31% in one run.",
  "Keep the random seed fixed so that runs can be compared.",
  "```python\nfor bs in (1, 8, 64):\n    run(batch_size=bs)\n```",
];
const para = (n) => { const out = []; for (let i = 0; i < n; i++) out.push(pick(sentences)); return out.join(" "); };
const conv = (turns) => {
  const c = [];
  for (let i = 0; i < turns; i++) {
    c.push(i % 2 === 0
      ? { from: "human", value: pick(asks).replace("%s", pick(topics)) + (rnd(3) === 0 ? "\n\n" + para(1 + rnd(3)) : "") }
      : { from: "gpt", value: para(2 + rnd(12)) });
  }
  return c;
};

const data = [];
for (let i = 0; i < 60; i++) data.push({ id: "perflab_" + i, conversations: conv(2 + rnd(5)) });
data.splice(5, 0, { id: "no_conversations", messages: [] });
data.splice(9, 0, { id: "single_turn", conversations: [{ from: "human", value: "Only one turn here." }] });
data.splice(14, 0, { id: "short_prompt", conversations: [{ from: "human", value: "Hi" }, { from: "gpt", value: para(3) }] });
data.splice(20, 0, { id: "short_reply", conversations: [{ from: "human", value: pick(asks).replace("%s", "KV cache") }, { from: "gpt", value: "Yes." }] });
data.splice(30, 0, { id: "long_prompt", conversations: [{ from: "human", value: para(120) }, { from: "gpt", value: para(3) }] });
data.splice(40, 0, { id: "long_pair", conversations: [{ from: "human", value: para(40) }, { from: "gpt", value: para(110) }] });

fs.writeFileSync(__dirname + "/sharegpt-sample.json", JSON.stringify(data, null, 1) + "\n");
console.log(`wrote ${data.length} entries`);
