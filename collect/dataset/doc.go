// Package dataset builds benchmark prompts the way `vllm bench serve`
// does and holds the tokenizers that size them.
//
//   - Random: vLLM's random dataset (--random-input-len, --random-output-len,
//     --random-range-ratio, --random-prefix-len): prompts made of vocabulary
//     ids, decoded, re-encoded and adjusted until their token count is
//     exactly the drawn length. Deterministic for a seed. Lengths, offsets,
//     prefix and padding ids come from a port of numpy's default_rng
//     (PCG64, SeedSequence, Generator.integers) drawn in vLLM's order, so
//     with the same tokenizer and seed the token ids are vLLM's. Where
//     vLLM gives up after 10 decode/encode rounds and accepts a prompt of
//     the wrong length, we keep going (cut back to a clean prefix, pad with
//     ids that re-encode to themselves) until the length is exact.
//   - ShareGPT: vLLM's ShareGPT dataset, streamed from the JSON file (the
//     real file is 600+ MB; only entry offsets stay in memory), shuffled
//     and oversampled with a port of CPython's random module, so the same
//     seed picks the same conversations in the same order as vLLM, and
//     filtered with vLLM's length rules.
//   - Custom: vLLM's custom dataset, a JSONL file of {"prompt": …} lines
//     (with --custom-output-len -1, each line's output_tokens), shuffled
//     with Python's random, each prompt wrapped in the tokenizer's chat
//     template unless skipped, counted with special tokens.
//   - PrefixRepetition: vLLM's prefix_repetition dataset, token ids drawn
//     with a port of numpy's legacy generator (np.random.seed, randint),
//     shuffled with Python's random, so the ids are vLLM's for the same
//     tokenizer and seed.
//   - TimedTrace: a Mooncake-style JSONL trace (timestamps, lengths, hash
//     ids expanding to shared token blocks), as vllm-bench replays it.
//   - MultiTurnRandom, MultiTurnShareGPT: conversations for multi-turn chat
//     sessions (vllm-bench's --multi-turn); the replies are the server's.
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
