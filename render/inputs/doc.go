// Package inputs is how the build reads its input files: a Reader
// records every file read, path stat'ed and directory listed, with what
// was seen, and a piece of work's cache key is computed from those
// records (cmd/go's action IDs; Shake's dynamic dependencies: work whose
// inputs are known only once it ran is checked by Replay). Beneath it,
// the input stat cache (stats.go) spares hashing, and reading, a file
// whose identity is unchanged since the last build, and the fast paths
// for reading (readfile*.go) and identities (id_*.go).
//
// It owns: reading input files, their sums, the stat cache file, and the
// records. It may not touch: pages, reports, templates, the build cache's
// entries or the output directory; it knows nothing of what the bytes
// mean (a caller's Memo is opaque bytes to it). It imports render/wire
// only, of this module.
package inputs
