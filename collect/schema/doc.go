// Package schema is the results contract shared by the collector and the
// renderer: what a benchmark run is (Result, with its per-request records,
// summary, warnings, telemetry and artifacts) and what a campaign is
// (Campaign: model, hardware, ordered optimization steps of experiments,
// profiles, baseline and optimized configuration).
//
// It depends on the standard library only. Results are versioned
// (Result.SchemaVersion); readers accept every version up to Version and
// reject newer ones with an error that says to upgrade. Output is
// deterministic (Marshal) and written atomically (WriteFile).
//
// Units live in the JSON keys: *_s for seconds, *_ms for milliseconds,
// *_tok_per_s for throughput, *_mib, *_w, *_j. Times inside a run are
// seconds since the run's start.
package schema
