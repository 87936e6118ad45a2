// Package benchflags holds `perflab bench`'s command line as data: one
// table of `vllm bench serve`'s flags (name, kind, default, help, and what
// perflab does with each: act as vLLM does, or warn that it has no effect
// here), from which the parser, -h and docs/bench.md's flag list come.
//
// The parser takes vLLM's spellings: --name value and --name=value,
// underscores for hyphens (--num_prompts), several values after a list
// flag (--goodput ttft:50 tpot:10), --config FILE.yaml, and dotted keys
// into a JSON flag (--extra-body.chat_template_kwargs.enable_thinking
// false). A flag marked Warn is accepted and reported once in
// Values.Warnings; it never changes a number.
//
// The table is a plain slice: other files append their rows (perflab's
// own flags, a sweep's) and the result parses the same way.
package benchflags
