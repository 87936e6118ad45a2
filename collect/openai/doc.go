// Package openai holds what a benchmark client sends to and reads from an
// OpenAI-compatible server: the streaming request bodies of
// /v1/completions and /v1/chat/completions exactly as `vllm bench serve`
// builds them, and a parser for the streamed chunks that extracts only
// what a measurement needs (whether the chunk carries choices, the text,
// and usage) without allocating.
package openai
