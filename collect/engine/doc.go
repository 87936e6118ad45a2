// Package engine launches, watches and stops the inference engines a
// campaign benchmarks: vLLM, SGLang, TensorRT-LLM, llama.cpp's
// llama-server, perflab's own mock, and external endpoints someone else
// runs. An Adapter holds what differs between engines (default launch
// command and port, health routes, version capture, tokenizer route);
// Process holds what is shared: the engine runs in its own process group
// with its output (secrets redacted) appended to a log file beside the
// results; WaitHealthy polls the health routes until a deadline and fails
// early when the process dies; Stop interrupts the whole group, then
// terminates and finally kills it after a grace period, so no server is
// left holding a GPU.
//
// Commands are written as a shell would read them (ParseCommand): quotes,
// backslash-newline continuations, comment lines and leading NAME=value
// assignments are understood; pipes, redirections and substitutions are
// rejected, since the collector runs the engine itself, without a shell.
package engine
