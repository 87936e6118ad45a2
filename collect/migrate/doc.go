// Package migrate turns existing performance-lab pages (MkDocs Markdown with
// serving commands, pasted `vllm bench serve` / SGLang outputs and
// hand-made tables, like GPUStack's) into perflab projects without any
// annotation: for each page holding benchmark outputs it infers a campaign
// (model, hardware, engines, profiles, experiments, steps, baseline and
// optimized) from the page's own structure, imports every output as a
// result of that campaign (collect/ingest), and rewrites the page so that
// its result tables, chart images and raw outputs are generated blocks (the
// hand-made tables are kept in collapsed blocks for comparison).
//
// Inference rules, in the order they apply:
//
//   - Model: the Model section's text, completed to a Hugging Face id by the
//     commands that name it; other ids in commands that extend it
//     (Qwen/Qwen3-32B-FP8) are variants, any other id is an ambiguity.
//   - Hardware: the Hardware section (vendor, GPU, "8x"); the GPU count of
//     each experiment from its parallelism flags (-tp, --tp-size,
//     --tensor-parallel-size, data and pipeline parallel sizes).
//   - Engines: the Engine Version section ("- vLLM: v0.11.0").
//   - Profiles: the Benchmark Dataset list ("Long prompt: 4000 input tokens,
//     200 output tokens", "ShareGPT"), the benchmark commands of the page
//     (dataset, lengths, prompt count, seed, backend, endpoint) and, on
//     GPUStack generator pages, the Benchmark Profiles section's YAML. A
//     block is placed in a profile by the label inside its fence ("# random
//     32K input"), by a "Profile: `X`" line or "X Profile" heading, else by
//     its input/output tokens per request matched against the profiles'
//     lengths (ShareGPT when no random profile fits). Outputs of one
//     serving command and profile at several loads (their max request
//     concurrency or configured request rate) are the points of a sweep:
//     the profile gets the list of values (a profile another command ran
//     at one load is copied as "<profile>-sweep"), the page curve blocks
//     and a raw block per point.
//   - Experiments: one per distinct serving command (environment
//     assignments included; a `docker run` of an engine image counts, its
//     image tag the engine's version where the page gives none); a flag label inside the fence ("#
//     --max-num-batched-tokens 32768") changes that flag of the command.
//     Named from the plain line before the serving script ("vLLM", "TP4"),
//     the flag label, or else the section heading. On generator pages the
//     command is the engine's launcher, the model (its FP8 variant under
//     headings naming quantization) and the "Backend Parameters".
//   - Steps: the `###` headings of the Experiment Results section, in page
//     order; a step's chosen experiment is its best total token throughput.
//   - Baseline: the "Baseline serving script" experiment, else the first.
//     Optimized: the Conclusion's recommended command, else the "Optimized
//     serving script" experiment.
//
// The rewritten page keeps working where it lands: a page that moves a
// folder down (a/b.md → content/a/b/index.md) has its relative links
// rewritten, and the files it still links to are copied below content/
// (a link leaving the folder migrated is reported). A result pasted as
// JSON is reported, not imported. A page that is not text or whose code
// fences do not pair up is refused with FILE:LINE before anything is
// written.
//
// Whatever cannot be decided is reported as FILE:LINE: ambiguity, never
// guessed silently; a block that cannot be placed becomes a result of an
// "unassigned" experiment, with a warning. The output is deterministic:
// migrating twice writes the same bytes.
package migrate
