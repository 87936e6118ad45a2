// Package tinymodel writes a tiny, randomly initialised qwen2-architecture
// GGUF model around a real Hugging Face tokenizer (tokenizer.json and
// tokenizer_config.json), so that llama.cpp's llama-server can serve it on
// a CPU in tests: the tokenizer, the chat template and the HTTP layer are
// the engine's real ones; only the weights are noise, so the generated
// text is gibberish made of real tokens.
//
// The file is GGUF version 3 with F32 tensors: 2 layers, 64-wide
// embeddings, 4 attention heads (2 KV heads), a 128-wide FFN and the
// output tied to the embeddings; about 10 M parameters, 45 MB for Qwen3's
// 151,669 tokens. Standard library only; written here because nothing in
// reach ships tiny GGUF weights (see reference/engine-llamacpp.md).
package tinymodel
