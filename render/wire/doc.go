// Package wire is the binary encoding of the build's own files (the
// build cache's entries, the input stat cache, the site stamp, the
// output manifest): values are written field by field as their types
// say, read back by the same types, and each encoding's version is
// derived from the types (Version), so that adding, removing or
// retyping a field can neither be forgotten in an encoder nor read an
// old file wrongly: there is no hand-written encoder to update and no
// format constant to bump.
//
// It owns: the rules of the encoding (varints, length-prefixed strings
// and byte slices, sorted map keys) and the type descriptions Version
// hashes. It may not touch: files, the build, anything of render; it
// imports the standard library only.
//
// A struct with an unexported field, an interface, a func or a chan
// cannot be encoded: Version panics for it, so that such a type fails
// at its first use (every user computes its version at init) rather than
// losing a field. A field tagged wire:"-" (derived from the others: an
// index, a cache) is passed over, visibly, at the field.
package wire
