// Package output owns the output directory: writing files (write_*.go:
// open, write and close alone), making the temporary directory a build
// renders into beside Out (marked as the top of a tree on ext4,
// topdir_linux.go) and swapping it in with renames (dir.go), or taking
// for it the site the last swap moved out of Out, kept beside it, and
// bringing that up to date (stage.go, retain*.go), the lock
// that makes builds writing one Out take turns (lock_*.go), writing in
// place for the preview server, and the manifest of what a build left in
// Out (manifest.go): every file's sum and identity, its directories, and
// units (groups of files made together under a key), so that a rebuild
// writes only what changed and leaves an unchanged Out alone.
//
// It may not touch: pages, templates, the build cache's entries, or the
// inputs (it knows files by path and sum; a unit's key and extra sum
// are the caller's). It imports render/inputs (file identities and the
// racy rule) and render/wire, of this module.
package output
