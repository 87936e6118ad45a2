// Package dataset builds benchmark prompts the way `vllm bench serve`
// does and holds the tokenizers that size them.
//
//   - Random: vLLM's random dataset (--random-input-len, --random-output-len,
//     --random-range-ratio, --random-prefix-len): prompts made of vocabulary
//     ids, decoded, re-encoded and adjusted until their token count is
//     exactly the drawn length (vLLM accepts a mismatch after 10 rounds; we
//     do not). Deterministic for a seed. Lengths and ids come from Go's PCG,
//     not numpy's, so the prompts are not the strings vLLM draws; their
//     construction and length distribution are.
//   - ShareGPT: vLLM's ShareGPT dataset, streamed from the JSON file (the
//     real file is 600+ MB; only entry offsets stay in memory), shuffled
//     and oversampled with a port of CPython's random module, so the same
//     seed picks the same conversations in the same order as vLLM, and
//     filtered with vLLM's length rules.
//   - Tokenizers: *tokenizer.Tokenizer (a tokenizer.json loader, subpackage
//     tokenizer) and *ServerTokenizer (the engine's POST /tokenize and
//     /detokenize, vLLM, SGLang and llama.cpp shapes) for --tokenizer
//     server. OpenTokenizer picks one from the flag's value. The server's
//     vocabulary size is llama.cpp's published n_vocab, or else probed
//     through /detokenize (ProbeVocab, vocabprobe.go).
//   - ChatPromptLen: the exact prompt token count for the chat endpoint
//     (chat template included), or an error wrapping
//     tokenizer.ErrUnknownChatTemplate when it cannot be known exactly.
package dataset
