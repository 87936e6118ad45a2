// Package collect runs a benchmark campaign: it loads and validates the
// campaign file (Load), lays out its runs (NewPlan: one per experiment
// and profile, in step order, each keyed by a hash of what defines it),
// optionally takes a stable shard of them, and runs them (Collect): per
// experiment it launches the engine (collect/engine), waits until healthy,
// benchmarks every profile through a Runner (collect/bench by default)
// while sampling the GPUs (collect/telemetry), stops the engine and waits
// until its GPU memory is released.
//
// Every run ends as one result file, results/<campaign>/<experiment>--
// <profile>.json, written atomically with secrets redacted; a crash, an
// engine that never becomes healthy or an out-of-memory is a result too
// (status crashed, with the engine's log tail), and the campaign goes on.
// A second Collect skips the runs whose file holds a finished result with
// the same key, so an interrupted campaign resumes where it stopped.
package collect
