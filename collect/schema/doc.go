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
// Rounds (round.go): a campaign re-run is a new round, a directory level
// of its results (results/<campaign>/rounds/<id>/, with a round.json
// record: start, campaign file hash, git commit, engines); the results
// collected before rounds are round 1 as they are. Result files do not
// change with rounds, so the schema version does not either. Readers
// that show one state of a campaign read the round the pages show, the
// newest holding a finished result (Shown, ReadShown; collect resumes
// the newest round, Resumed);
// round.json is not a result (IsResultFile).
//
// Units live in the JSON keys: *_s for seconds, *_ms for milliseconds,
// *_tok_per_s for throughput, *_mib, *_w, *_j. Times inside a run are
// seconds since the run's start.
package schema
