// Package ingest turns benchmark output written by other tools into
// schema.Result records: the `vllm bench serve` text block, vLLM's
// --save-result JSON (one record or JSON lines), GPUStack's generated
// variant of the text block (rendered from guidellm data), and guidellm's
// JSON report (benchmarks.json, also inside a GPUStack benchmark export).
// guidellm's metrics keep guidellm's definitions (its TPOT includes the
// first token); the results say so in a warning.
// Both JSON formats are written by Python's json module, and read as it
// reads them (pyjson.go): its bare NaN is a figure not measured, its
// Infinity and -Infinity an error naming the field.
//
// Parse reads one source file and returns its Entries in file order. The
// text parser is positional rather than line-based, so it reads a block
//
//   - with or without its "Serving Benchmark Result" header line,
//   - inside Markdown code fences, indented under MkDocs admonitions,
//   - several blocks in one file, each labelled by the `# …` comment line
//     right before it ("# random 32K input"),
//   - with its line breaks lost (a whole block on one line, as in pages
//     copied out of a browser); the raw output is then re-broken at row
//     boundaries and the result says so in a warning,
//   - in GPUStack's variant (Maximum request concurrency, a Latency section
//     in seconds, P95 rows),
//   - in SGLang's bench_serving variant (sglang.go: Backend, "Max request
//     concurrency: not set", End-to-End Latency and Inter-Token Latency
//     sections; Max ITL is kept as the 100th percentile). It is recorded
//     as SGLang's tool ("sglang bench_serving"), never as guidellm's.
//
// Each text Entry carries its byte Offset and End in the source, so that a
// page can be rewritten around its blocks (collect/migrate).
//
// Around the blocks it also reads the context a report page gives:
//
//   - the serving command (`vllm serve …`, `python3 -m sglang.launch_server
//     …`, `trtllm-serve …`, with leading VAR=value assignments and `\`
//     continuation lines, or a container running one: `docker run …
//     vllm/vllm-openai …`, `docker run … lmsysorg/sglang … python3 -m
//     sglang.launch_server …`, engine from the inner command or the image):
//     the latest one before a block belongs to it;
//   - crash markers: a comment line `# Crash…` records a crashed run;
//   - directives: a comment line `# perflab: experiment=ID profile=ID` ties
//     the next entry to a campaign's experiment and profile (keys:
//     experiment, profile, engine, model, label, and command=none to drop
//     the serving command seen above).
//
// Results then builds one schema.Result per entry. Given a campaign
// (ReadCampaign), it fills the engine, model, load and hardware from the
// experiment and profile, and Check adds warnings where the numbers are odd
// (partial success, failed requests, impossible peak throughput, token
// totals that do not fit the profile, zero latencies, …). Numbers are never
// changed or dropped: odd data keep their values and carry a warning.
//
// Every parse error names the file and line and what was expected.
package ingest
