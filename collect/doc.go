// Package collect runs a benchmark campaign: it loads and validates the
// campaign file (Load, Validate), lays out its runs (NewPlan: one per
// experiment and profile, in step order, each keyed by a hash of what
// defines it), optionally takes a stable shard of them (Plan.Shard), and
// runs them (Collect): per experiment it launches the engine
// (collect/engine), waits until healthy, benchmarks every profile through
// a Runner (BenchRunner, perflab's benchmark core, by default) while
// sampling the GPUs (collect/telemetry), stops the engine and waits until
// its GPU memory is released.
//
// Every run ends as one result file, results/<campaign>/<experiment>--
// <profile>.json, written atomically with secrets redacted; a crash, an
// engine that never becomes healthy or an out-of-memory is a result too
// (status crashed, with the engine's log tail and the likely cause), and
// the campaign goes on. A second Collect skips the runs whose file holds
// a finished result with the same key (or an imported one), so an
// interrupted campaign resumes where it stopped; the temporary file of a
// result whose collect was killed while writing it is removed then.
// Options.Storage lets tests inject a full or failing disk.
//
// Rounds (rounds.go): the results go to the campaign's round, a directory
// level of results/<campaign>/ (schema.RoundsDir). RoundID picks it from
// Options.Round (joined or started: the shards of one scheduled run pass
// one id), Options.NewRound (the UTC date), the campaign's rounds: policy
// (daily, weekly, monthly: the scheduler run's id, SchedulerRound, else
// the UTC date), else the latest round. A round is started by
// writing its record (schema.CreateRound: the first shard's record wins);
// the results inside are ordinary results.
//
// # How collect reads a campaign
//
//   - command is run without a shell, split as a shell would (quotes,
//     backslash-newline, comment lines, leading NAME=value assignments);
//     pipes and substitutions are errors. Without command, the engine's
//     default launch (vllm serve MODEL, python3 -m sglang.launch_server
//     --model-path MODEL, trtllm-serve MODEL, llama-server -m MODEL,
//     perflab mock --model MODEL) gets args appended.
//   - env is set on top of the collector's environment and shown as a
//     prefix of the command (NAME=value vllm serve …), secrets redacted.
//   - The engine answers on the command's --host/--port; a command
//     without --port gets a free port (collect adds --port N, and --host
//     127.0.0.1 when it sets no host), since engines' defaults differ
//     between builds. The wait for health is logged every 10 s.
//   - Requests carry "Authorization: Bearer KEY" when the command has
//     --api-key, or the experiment's env has VLLM_API_KEY or
//     OPENAI_API_KEY, or the collector's environment has OPENAI_API_KEY
//     (an external endpoint's key goes in its env).
//   - The served model name is asked from /v1/models; the engine version
//     from the engine (/version, /get_server_info, --version, the Python
//     package), else the experiment's or the campaign's engines entry.
//   - Prompts are sized with bench.tokenizer (a tokenizer.json or model
//     directory), or "server" (the engine's /tokenize), or, when empty,
//     the model's tokenizer.json in the Hugging Face cache, else the
//     engine's /tokenize.
//   - A profile's dataset is any of perflab bench's (random, sharegpt,
//     custom, prefix_repetition, timed_trace), multi_turn makes random or
//     sharegpt chat sessions and ramp_up_* replaces request_rate; their
//     fields are bench's flags with underscores, each checked for its
//     dataset (validateDataset) and mapped onto the options perflab bench
//     maps its flags onto (BenchRunner.options): collect/benchrun builds
//     the dataset and measures the run for both commands, prompts
//     aligned to the server's tokenizer included.
//   - A profile's args pass vllm bench serve flags without a field of
//     their own: --ignore-eos, --num-warmups N (the warm-up),
//     --random-prefix-len N, --percentile-metrics, --metric-percentiles,
//     --goodput.
//   - bench.tool only chooses how the plan prints the benchmark commands
//     (vllm bench serve, guidellm); collect always measures with perflab
//     bench, whose flags and numbers are vllm bench serve's.
//
// Before any engine starts, Preflight checks the files the runs need and
// the GPU inventory is checked against each experiment's GPU count.
package collect
