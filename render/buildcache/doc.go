// Package buildcache is the build cache: byte strings under keys, kept
// between builds in one pack file and its index (an entry's CRC-32C
// checked on reading; a build appends what it stores to the pack and
// writes a new index, entries it did not use dropped from it; a pack
// more than half dead is written anew), with every key salted by perflab's own build (the Go build
// ID of the running executable, SelfVersion) and the caller's salt.
//
// It owns: the pack file, its index, the salt, and the executable's
// identity. It may not touch, or know of: pages, templates, inputs or
// the output directory (what an entry holds and how its key is found is
// render's). It imports nothing of this module.
package buildcache
