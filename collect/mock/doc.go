// Package mock is a simulated OpenAI-compatible inference engine that
// speaks vLLM's dialect, for tests and demo campaigns without a GPU.
//
// # Use in-process
//
//	r, err := mock.Start(ctx, mock.Config{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond})
//	if err != nil { ... }
//	defer r.Close()
//	// r.URL is "http://127.0.0.1:PORT"; point a benchmark client at it.
//
// Or mount it yourself: New returns a *Server, an http.Handler (call
// Close when done); Listen serves on a chosen address. `perflab mock` is
// the same engine behind command-line flags.
//
// # Routes
//
//	GET  /health, /ping        200, empty body
//	GET  /v1/models            {"object":"list","data":[{"id","root","max_model_len",…}]}
//	GET  /version, /metrics    {"version":"perflab-mock"}; a few vllm:* Prometheus series
//	POST /tokenize             {"prompt"} or {"messages"} → {"count","max_model_len","tokens"[,"token_strs"]}
//	POST /detokenize           {"tokens"} → {"prompt"}  (both also under /v1, as SGLang)
//	POST /v1/completions       prompt: string, [string] or [token ids]
//	POST /v1/chat/completions  messages: content as a string or text parts
//
// Generation follows vLLM: "stream": true answers Server-Sent Events, one
// `data: {...}` event per token, flushed, ending with `data: [DONE]`; the
// last token's event carries finish_reason ("length" at max_tokens, "stop"
// at the pseudo-EOS). Chat streams open with a role-only chunk
// (delta {"role":"assistant","content":""}) written with the first token.
// stream_options.include_usage adds a last chunk with "choices":[] and
// usage {prompt_tokens,total_tokens,completion_tokens};
// continuous_usage_stats puts usage on every chunk. Without "stream" the
// whole answer comes once the last token is ready, with usage.
//
// Requests are checked as vLLM checks them: an unknown model is a 404, and
// malformed JSON, n ≠ 1, stream_options without stream, max_tokens < 1
// or prompt + max_tokens beyond MaxModelLen are 400s, all with OpenAI's error body
// {"error":{"message","type","param","code"}}. max_tokens (chat:
// max_completion_tokens, else max_tokens) defaults to what is left of the
// context. Without ignore_eos a request stops at a pseudo-EOS fixed by its
// prompt and the seed (Config.EOSMeanTokens), never before min_tokens.
// Generated text is deterministic for a prompt and seed, like greedy
// sampling, and re-encodes to exactly completion_tokens.
//
// # Tokens
//
// Tokenizer documents the built-in vocabulary (36,786 ids: bytes, " abc"
// and "abc" letter pieces, plus three chat markers). Prompt counting,
// /tokenize and /detokenize all use it, so a client can size prompts
// exactly with the two routes. Chat prompts are counted through a fixed
// template (ChatPrompt): each message's role marker and text, then the
// assistant marker.
//
// # Timing
//
// Fixed mode (Config.Batching nil): each request on its own, token k at
// arrival + TTFT + k·ITL on absolute deadlines, one goroutine and one
// timer per stream. Each token is its own event, flushed when due; only a
// stream that has fallen behind (an overloaded machine) writes the events
// already due in one flush, which is what a real server's socket would
// deliver anyway.
//
// Batching mode: one scheduler goroutine simulates a continuous-batching
// engine (see Batching): a token budget per step, chunked prefill, a
// maximum batch and a KV cache size with FIFO queueing beyond them, and
// step time growing with batch size and context. A request joins at the
// next step boundary; a client that leaves frees its slot. Preset gives
// believable parameter sets named vllm, sglang and trtllm for demo
// campaigns. The model itself is deterministic: tests drive it in virtual
// time, and only the real-time driver reads the clock.
//
// # Prefix cache, sessions, speculative decoding
//
// PrefixCache caches prompt blocks (a chain of block hashes, LRU): the
// leading blocks a request shares with earlier ones are not prefilled
// again, which shortens TTFT in both timing modes and is counted on
// /metrics as vLLM's vllm:prefix_cache_queries_total and _hits_total.
// Chat requests with an X-Session-ID header are turns of a session: the
// mock checks that each carries the previous turn's messages, its own
// reply and one new user message (Stats.HistoryMismatches counts those
// that do not). SpecDecode reports vLLM's vllm:spec_decode_* counters for
// a simulated draft model (timing unchanged). POST /start_profile and
// /stop_profile answer 200, as vLLM's profiler routes.
//
// # Faults
//
// Faults makes a deterministic subset of requests fail: HTTP 500s, stalled
// streams, streams cut without [DONE], malformed events. Which ones is
// fixed by Config.Seed and the order in which requests arrive.
package mock
