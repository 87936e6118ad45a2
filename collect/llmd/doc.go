// Package llmd reads and writes llm-d-benchmark's "benchmark report", the
// format its harnesses (inference-perf, guidellm, vLLM's benchmark,
// InferenceMAX, AIPerf) all write and llm-d's comparison tools read, so
// that a perflab lab and an llm-d lab can read each other's runs.
//
// Versions (llm-d-benchmark, llmdbenchmark/analysis/benchmark_report):
//
//   - 0.1: version, scenario (host, platform.engine, model, load) and
//     metrics (time, requests, latency, throughput, …), documented in its
//     README.md and br_v0_1_json_schema.json;
//   - 0.2 (and 0.2.1, an additive superset): version, run (uid, eid, time,
//     description), scenario.stack (components; an inference_engine has
//     the model, accelerator and parallelism), scenario.load (metadata,
//     standardized: tool, source, input/output sequence lengths, rate_qps,
//     concurrency; native) and results.request_performance.aggregate
//     (requests, latency and throughput, each a Statistics: units, mean,
//     stddev, min, p0p1 … p99p9, max), defined by schema_v0_2.py.
//
// Read takes one file: a YAML stream of one or several reports, a JSON
// report or a JSON array of them. Each report is one run; reports of one
// engine configuration and workload at several rates or concurrencies
// (inference-perf's stages, a sweep) are the points of a sweep (ingest
// makes them load points). Units are converted to perflab's (ms, tok/s);
// token totals are mean length × completed requests, and say so.
//
// Export writes any perflab result as a v0.2 report that passes
// llm-d-benchmark's own checks (its JSON schema and the units each
// Statistics must have, schema_v0_2.py's validators): run.uid is the
// result's id, the engine is an inference_engine component, the profile
// the load, the summary the aggregate request performance. What llm-d's
// schema has no field for (perflab's ids, the peak concurrent requests,
// goodput, percentiles outside llm-d's set) rides along in
// results.profiling.perflab, the schema's free-form field, so that perflab
// reading its own export back loses nothing; the standard fields alone
// keep every number they have a place for.
package llmd
