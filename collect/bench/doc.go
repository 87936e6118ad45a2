// Package bench is the benchmark core: it replays a dataset against an
// OpenAI-compatible server the way `vllm bench serve` does and records
// every request.
//
// A run has vLLM's phases: optional warmup requests (the first sample,
// NumWarmups times, not recorded), then the measured phase. Its clock
// starts before the first scheduled sleep and stops when the last request
// ends (vLLM's benchmark duration). Requests are released on the arrival
// Schedule (Gamma/Poisson gaps rescaled to N/rate, slept to absolute
// deadlines so lateness never accumulates); a released request waits for
// the MaxConcurrency cap, which admits requests in release order (FIFO,
// as vLLM's asyncio.Semaphore), and its send time is taken after the cap
// admits it, so client-side queueing is not part of TTFT or latency.
// Bodies are vLLM's (collect/openai), with ExtraBody (sampling parameters,
// --extra-body) merged last.
//
// Each request streams over SSE. An event with a non-empty "choices" list
// is a token event (vLLM's newest rule, even when its text is empty): the
// first gives TTFT, successive ones the ITL samples, the last one the
// latency. Output tokens come from the server's usage (the last usage
// object seen, on any chunk); without one they are counted as token events
// and the result carries a warning. Failures are data: refused
// connections, HTTP errors (status and body), cut streams, malformed
// chunks, timeouts and streams without a token event are failed requests;
// the run goes on.
//
// The client measures itself (schema.ClientStats): scheduling lag (how
// late a request left compared with its scheduled time: the send time for
// uncapped runs, the release time when a cap makes requests wait, since
// that wait is not the client's lag), SSE events parsed per second,
// process CPU (getrusage) and the share of ITL samples under 0.1 ms
// (coalesced events); it warns when the lag p99 passes 10 ms.
//
// Transport: one HTTP/1.1 keep-alive pool for the run (at most
// MaxConcurrency connections, idle ones kept for all of them), no
// compression, no HTTP/2. Each request carries the extra Headers, then
// x-request-id (RequestIDPrefix and the index) and the same
// value as X-Idempotency-Key, which lets net/http resend a request that
// hit a kept-alive connection the server had just closed (llama.cpp's
// server does this); such a request never reached the engine.
//
// Other load shapes: RampUp (the rate rises over the run; vLLM's
// --ramp-up-*, rps_change_events recorded), Times (a trace's own
// timestamps, --self-timed) and Conversations (multi-turn chat sessions:
// each conversation's turns in order, turn N carrying the history and an
// X-Session-ID; latency summarised per turn, PerTurn). ScrapeSpecDecode
// and SpecDecodeDelta read a server's vllm:spec_decode_* counters around
// a run.
package bench
