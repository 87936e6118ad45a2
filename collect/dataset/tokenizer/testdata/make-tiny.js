// Writes tiny/tokenizer.json: a small byte-level BPE tokenizer trained
// here on corpus.json (300 merges), in the same format as Qwen's files, so
// that tests run without the downloaded tokenizers. Run once with
// `node make-tiny.js`; the output is committed.
"use strict";
const fs = require("fs");
// Trained on the hand-written texts only (not the fuzz-* ones).
const corpus = JSON.parse(fs.readFileSync(__dirname + "/corpus.json", "utf8")).filter((c) => !c.name.startsWith("fuzz-"));
const pattern = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const jsPattern = new RegExp(pattern.replace("(?i:'s|'t|'re|'ve|'m|'ll|'d)", "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"), "gu");

// GPT-2 bytes_to_unicode.
const bs = [];
for (let b = 33; b <= 126; b++) bs.push(b);
for (let b = 161; b <= 172; b++) bs.push(b);
for (let b = 174; b <= 255; b++) bs.push(b);
const cs = bs.slice();
let n = 0;
for (let b = 0; b < 256; b++) if (!bs.includes(b)) { bs.push(b); cs.push(256 + n++); }
const byteChar = {};
bs.forEach((b, i) => (byteChar[b] = String.fromCodePoint(cs[i])));

const vocab = {};
for (let b = 0; b < 256; b++) vocab[byteChar[b]] = b;
// Words as arrays of symbols, with counts.
const words = new Map();
for (const { text } of corpus) {
  for (const m of text.matchAll(jsPattern)) {
    const w = Array.from(Buffer.from(m[0], "utf8"), (b) => byteChar[b]).join("");
    words.set(w, (words.get(w) || 0) + 1);
  }
}
let split = [...words.entries()].map(([w, c]) => [Array.from(w), c]);
const merges = [];
for (let k = 0; k < 300; k++) {
  const pairs = new Map();
  for (const [syms, c] of split) {
    for (let i = 0; i + 1 < syms.length; i++) {
      const key = syms[i] + " " + syms[i + 1];
      pairs.set(key, (pairs.get(key) || 0) + c);
    }
  }
  let best = null, bestC = 0;
  for (const [key, c] of pairs) if (c > bestC || (c === bestC && key < best)) { best = key; bestC = c; }
  if (!best || bestC < 2) break;
  const [a, b] = best.split(" ");
  merges.push([a, b]);
  vocab[a + b] = Object.keys(vocab).length;
  split = split.map(([syms, c]) => {
    const out = [];
    for (let i = 0; i < syms.length; i++) {
      if (i + 1 < syms.length && syms[i] === a && syms[i + 1] === b) { out.push(a + b); i++; } else out.push(syms[i]);
    }
    return [out, c];
  });
}
const size = Object.keys(vocab).length;
const bl = { type: "ByteLevel", add_prefix_space: false, trim_offsets: false, use_regex: false };
const tok = {
  version: "1.0",
  truncation: null,
  padding: null,
  added_tokens: [
    { id: size, content: "<|endoftext|>", single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
    { id: size + 1, content: "<|im_start|>", single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
    { id: size + 2, content: "<|im_end|>", single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
  ],
  normalizer: { type: "NFC" },
  pre_tokenizer: { type: "Sequence", pretokenizers: [{ type: "Split", pattern: { Regex: pattern }, behavior: "Isolated", invert: false }, bl] },
  post_processor: bl,
  decoder: bl,
  model: { type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: "", end_of_word_suffix: "", fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges },
};
fs.writeFileSync(__dirname + "/tiny/tokenizer.json", JSON.stringify(tok) + "\n");
fs.writeFileSync(__dirname + "/tiny/tokenizer_config.json", JSON.stringify({ eos_token: "<|im_end|>", pad_token: "<|endoftext|>", clean_up_tokenization_spaces: false }, null, 1) + "\n");
console.log(`tiny: ${size} tokens, ${merges.length} merges`);
