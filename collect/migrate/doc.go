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
//     block is placed by the evidence, in this order (evidence.go; each
//     placement names its rule in the report, and Page.Rules counts
//     them): an annotation ("# perflab: profile=", a "Profile: `X`"
//     line), a label or heading naming a profile, what the labels inside
//     and before the block say (dataset, "batch size 4" / "concurrency N"
//     / "rate N", lengths "1k random input + 2k generation", "32K",
//     "4000 in / 200 out"), the block's tokens per request against the
//     profiles' lengths (ShareGPT when no random profile fits), the
//     benchmark command right before it. A profile is taken only if the
//     block's tokens per request fit it (fits); a block that fits none is
//     a profile of its own derived from its numbers ("Random 1000/2000",
//     under Other Benchmark Cases). An output at another max concurrency
//     or rate than its profile's (rows, or the label when the rows state
//     none) is a load point: a profile "<profile>-c4" ("ShareGPT,
//     concurrency 4") shared by the experiments that ran that load
//     (loadPoints). An output with the command, profile and load of an
//     earlier one but other numbers is an experiment of its own, named
//     by its label (a label that is one of the command's flag values sets
//     that flag: "# flashinfer" after "# triton" over --attention-backend
//     triton), content tab (=== "A100") or heading, else "(run N)" (an
//     ambiguity). An output whose numbers are an earlier output's is that
//     run pasted again: placed with it, imported once (pastedAgain). An
//     output whose heading names another serving command's heading ("###
//     Results: TP8" after "### TP8" and "### TP4 x DP2") runs that command
//     (commandByHeading). Outputs of one serving command and profile at
//     several loads (their max request concurrency or configured request
//     rate) are the points of a sweep: the profile gets the list of values
//     (a profile another command ran at one load is copied as
//     "<profile>-sweep"; rate-only outputs beside a concurrency sweep, of
//     the same experiment or another, as "<profile>-rate":
//     splitLoadKinds), the page curve blocks and a raw block per point.
//   - Experiments: one per distinct serving command (environment
//     assignments included; a `docker run` of an engine image counts, its
//     image tag the engine's version where the page gives none); a flag label inside the fence ("#
//     --max-num-batched-tokens 32768") changes that flag of the command.
//     Named from the plain line before the serving script ("vLLM", "TP4"),
//     the flag label, an admonition title ("Optimized serving script"),
//     or else the section heading; never from a rule line (=====, ---),
//     code or empty text (a command alone names its engine: "vLLM", then
//     the flags that tell it apart). Ids are slugs of at most 64
//     characters, cut with a hash of the whole (ids.go). On generator pages the
//     command is the engine's launcher, the model (its FP8 variant under
//     headings naming quantization) and the "Backend Parameters".
//   - Steps: the `###` headings of the Experiment Results section, in page
//     order; a step's chosen experiment is its best total token throughput.
//   - Baseline: the "Baseline serving script" experiment, else the first.
//     Optimized: the Conclusion's recommended command, else the "Optimized
//     serving script" experiment.
//
// Nothing stops a migration but an unreadable source: a page that cannot
// be migrated (not text, code fences that do not pair up, front matter
// that is not YAML) is reported as not migrated (Page.Skipped) and the
// others go on; a block cut short is read up to its last row; blocks in
// block quotes are read as any. Write assembles the project beside --out
// and swaps it in, so a failed write leaves --out as it was.
//
// The rewritten page keeps working where it lands: a page that moves a
// folder down (a/b.md → content/a/b/index.md) has its relative links
// rewritten, and the files it still links to are copied below content/
// (a link leaving the folder migrated is reported). A result pasted as
// JSON is reported, not imported. Migrate refuses a page that is not
// text or whose code fences do not pair up (FILE:LINE); Plan reports it
// and goes on.
//
// Whatever cannot be decided is reported as FILE:LINE: ambiguity (with a
// kind: model, hardware, placement, rerun, page …), never guessed
// silently; a block that cannot be placed becomes a result of an
// "unassigned" experiment, with a warning. The output is deterministic:
// migrating twice writes the same bytes.
package migrate
