// Package dataset builds benchmark prompts the way `vllm bench serve`
// does and holds the tokenizers that size them.
//
//   - Random: vLLM's random dataset (--random-input-len, --random-output-len,
//     --random-range-ratio, --random-prefix-len): prompts made of vocabulary
//     ids, decoded, re-encoded and adjusted until their token count is
//     exactly the drawn length. Deterministic for a seed. The lengths and
//     ids come from Go's PCG, not numpy's, so the prompts are not the same
//     strings vLLM draws; their length distribution and construction are.
//   - ShareGPT: vLLM's ShareGPT dataset, streamed from the JSON file (the
//     real file is 600+ MB; only entry offsets are kept in memory), shuffled
//     with a port of Python's random module so that the same seed picks the
//     same conversations in the same order as vLLM, filtered with vLLM's
//     length rules.
//   - NewServerTokenizer: the engine's POST /tokenize and /detokenize
//     (vLLM, SGLang and llama.cpp request shapes), for --tokenizer server.
//
// A tokenizer.json loader lives in the subpackage tokenizer.
package dataset
