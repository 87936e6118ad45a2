// Package redact removes secrets (API keys, Hugging Face tokens,
// passwords) from commands, environments and text before the collector
// writes anything: results, engine logs, progress. What counts as a secret:
//
//   - the value of a flag whose name says key, token, secret or password
//     (--api-key X, --api-key=X, --hf-token X, --password=X);
//   - the value of an environment variable named HF_TOKEN,
//     HUGGING_FACE_HUB_TOKEN, *_KEY, *_TOKEN, *SECRET*, *PASSWORD*,
//     *_CREDENTIALS (and NAME=value assignments in a command or text);
//   - strings shaped like well-known tokens anywhere: hf_…, sk-…, ghp_…,
//     github_pat_…, xox?-…, AKIA…, "Bearer …";
//   - every value a Redactor was told about (the secret values of the
//     engine's environment), wherever it shows up in a log.
//
// Redacted values become Mask. Redaction is deliberately greedy: a false
// positive costs a readable flag value, a false negative leaks a key.
package redact
