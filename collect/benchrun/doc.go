// Package benchrun owns one benchmark run of perflab's measuring core:
// options in, the dataset built, the run measured, the result out. Both
// `perflab bench` (its flags, parsed through collect/benchflags' table)
// and `perflab collect` (a campaign profile) fill the same Options and
// call the same Build and Run, so the dataset a command line and a
// profile ask for is built one way: the dataset switch, the prompts'
// alignment to the server's tokenizer (vLLM after 0.28), the prompt token
// ids and a trace's release times, the datasets that force ignore_eos,
// and what the result records of the dataset all live here.
//
// What it may not touch: flags, campaign files, printing and the files a
// command saves. A caller opens the tokenizer (its policy differs: bench
// takes --tokenizer, collect looks in the Hugging Face cache), checks its
// own input with its own words (flag names, file:line), prints the text
// block and writes the result; benchrun writes only the notes of building
// the dataset (to Options.Log) and WaitReady's lines (to the writer it is
// given).
//
// The flow:
//
//	opt := benchrun.Options{Bench: bench.Config{...}, Dataset: benchrun.Dataset{...}, Tokenizer: tok}
//	w, err := benchrun.Build(ctx, &opt)   // the prompts, once per num_prompts
//	res, err := benchrun.Run(ctx, &opt, w) // bench.Run, then the dataset described in res.Load
//
// A series (a sweep, repeats) builds a Workload once per prompt count and
// runs it as often as it likes; Run never changes a Workload.
//
// Run also reads the server's speculative-decoding counters around the
// measured requests (vLLM's client does), computes the steady state and
// writes the text block perflab bench prints into the result's RawOutput,
// so both commands record the same. It never prints it: printing is the
// caller's.
//
// The requests perflab bench makes of a server before a run (WaitReady,
// FirstModel) and its profiler calls (Profiler) live here too, so that
// cmd/perflab keeps only flag wiring and printing; collect has its own
// engine launch and health wait (collect/launch.go).
package benchrun
