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
// chunks, timeouts, stalled streams (Config.StallTimeout: an engine that
// accepted a request and went quiet) and streams without a token event
// are failed requests; the run goes on.
//
// The client measures itself (schema.ClientStats): scheduling lag (how
// late a request left compared with its scheduled time: the send time for
// uncapped runs, the release time when a cap makes requests wait, since
// that wait is not the client's lag), SSE events parsed per second,
// process CPU (getrusage) and the share of ITL samples under 0.1 ms
// (coalesced events); it warns when the lag p99 passes 10 ms.
//
// Transport: HTTP/1.1 keep-alive connections for the run (idle ones kept
// for all of them), no compression, no HTTP/2. Each request carries the
// extra Headers, then x-request-id (RequestIDPrefix and the index) and the
// same value as X-Idempotency-Key; a request that hit a kept-alive
// connection the server had just closed (llama.cpp's server does this)
// never reached the engine and is sent again on a fresh connection.
//
// For a plain http:// server (no proxy set for it, no caller's Client)
// requests go through h1Client, the package's own HTTP/1.1 client: the
// request goroutine writes the request in one system call and reads the streamed
// answer straight from the socket into the SSE reader's buffer, removing
// the chunk framing in place. net/http hands every request to two more
// goroutines per connection (its write and read loops) and reads a body
// through four more layers: in user space (BenchmarkReadPath, CPU time)
// h1Client costs about half per request (6.9 against 12.9 µs) and 9 % less
// per event (460 against 505 ns), which shortens the client's share of TTFT
// when a thousand requests leave at once. https, proxies, a caller's Client
// and extra headers that net/http treats specially (Host, Connection, …)
// keep net/http (a Transport sized to the concurrency cap); h1Client does
// not follow redirects.
//
// Most of a token event's cost is not in user space but in the kernel:
// the read(2) that returns it, with the ACK it sends (which on loopback the
// client's core also delivers into the server's socket) and the wakeup
// that precedes it. On Linux the streams are read by pollers (h1_linux.go),
// one goroutine per P waiting in its own level-triggered epoll on the
// sockets being streamed (taken out of Go's poller), reading each ready
// socket once and handing that read's events to the request's callback
// there: no goroutine switch and no read deadline per event, and no
// second read that fails with EAGAIN. Elsewhere h1Conn.stream hands events
// out from inside one RawConn.Read, for the same one read per event.
//
// BenchmarkClientEfficiency reproduces the load point of the client's
// efficiency figures: 1,024 streams × 10 ms ITL against a paced server in
// its own process pinned to another core (see its comment for the
// command line), beside net/http and a floor: the cheapest reader of the
// same streams (one epoll loop, no parsing), whose CPU per event is the
// kernel's part that no client can save.
//
// Other load shapes: RampUp (the rate rises over the run; vLLM's
// --ramp-up-*, rps_change_events recorded), Times (a trace's own
// timestamps, --self-timed) and Conversations (multi-turn chat sessions:
// each conversation's turns in order, turn N carrying the history and an
// X-Session-ID; latency summarised per turn, PerTurn). ScrapeSpecDecode
// and SpecDecodeDelta read a server's vllm:spec_decode_* counters around
// a run.
package bench
