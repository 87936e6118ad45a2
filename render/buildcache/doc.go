// Package buildcache is the build cache: byte strings under keys, kept
// between builds in one pack file (an entry's CRC-32C checked on
// reading; entries a build did not use are dropped when it writes the
// next pack), with every key salted by perflab's own build (the Go build
// ID of the running executable, SelfVersion) and the caller's salt.
//
// It owns: the pack file, its index, the salt, and the executable's
// identity. It may not touch, or know of: pages, templates, inputs or
// the output directory (what an entry holds and how its key is found is
// render's). It imports nothing of this module.
package buildcache
