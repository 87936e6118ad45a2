// Package roundload reads a report's results directory when it holds
// rounds (collect/schema: round 1 is the directory itself, each later
// round a directory under rounds/): which rounds there are and the
// files of each (Scan; which round a page shows is collect/schema's
// rule, which render/site applies), and every older round for the
// history and data.json (Dir.Results; Cache.Results for files no Scan
// listed), cheaply and through the page's
// inputs.Reader, so that what a page is made of is recorded by
// construction.
//
// Older rounds are history: a build of round 100 needs what the history
// and data.json made of each older round, not their results, and an
// older round's files rarely change. A round is known by its key: the
// salt and its files' records as the page's Reader recorded them, each
// file's sum. The sums come from the round cache's own entry of the
// round's files (their identities as stat reports them, with their
// sums, under the input stat cache's rules: inputs.Reader.KnownAs, one
// stat, the file neither read nor hashed), else from the input stat
// cache (the round was the latest one last build), else the file is
// read (inputs.Reader.ReadFileID). The input stat cache does not keep
// older rounds' files: a thousand reports' hundred rounds are 1.4
// million files, which its one file would decode and write again in
// every build. Any edit of a round's file gives the file another
// identity and another sum, so another key. Nothing is invalidated by
// hand. The round cache (its own render/buildcache in the "rounds"
// directory of the cache directory) keeps no results: a round whose
// files are known is read from them when used (Round.Load).
//
// What a caller makes of a report's older rounds from the first on (the
// history's values, render/blocks' historydigest.go) is kept as one
// entry (Prefix), under a chain of keys: the caller's input, then each
// round's key in order. The build of round 100 finds the entry the build
// of round 99 made of rounds 1..98 and decodes round 99 alone (read from
// its files anyway: it was the latest); no other older round is decoded
// (Loads counts those that are).
//
// An older round's results are decoded less their requests and raw
// output (decode), most of a result file's bytes, which the history and
// data.json never show; those are checked all the same, against their
// type's shape (shape.go), so that a file the latest round's decode
// (schema.Unmarshal) refuses is refused as an older round's, with the
// same error naming file, line and field.
//
// Scan lists a round's directory once: the round's entry in the round
// cache keeps its listing with the directory's identity (adding,
// removing or renaming an entry changes it), so a later build whose
// round directory has that identity takes the listing with one stat
// (inputs.Reader.ListedAs) and records it as listed all the same. The
// entry keeps the round's record too, as parsed from its round.json
// with that file's identity and sum (schema.RoundsWith, which orders
// the rounds by their records, is given a reader that takes it from
// there when the file's identity is unchanged: inputs.Reader.KnownAs).
//
// A report's rounds' entries are kept sixteen rounds to an entry, in
// the order of its rounds (blocks.go: the build of round 100 reads seven
// entries and writes again the last alone), each round's found by its
// directory's path and checked as said; Dir.Keep keeps them for the
// next build once every older round was given to Dir.Results.
//
// Scan records the directories it lists (inputs.Reader.Listed) and the
// round records it reads, so that the site stamp (render/sitestamp.go)
// can hold a site whose reports have rounds: adding, removing or
// renaming a round or a result file changes the identity of the
// directory listed. A round directory with a subdirectory is walked
// (schema.RoundFiles) and recorded as a Tree, which the stamp does not
// hold.
//
// It owns: the order of reading a report's rounds, the round cache's
// entries and their keys. It may not touch: pages, the model
// (render/site reads the rounds through it: its rounds.go), the blocks
// and the history (render/blocks' history.go, roundsdata.go), the
// output directory. It imports render/inputs, render/buildcache,
// render/wire and collect/schema.
package roundload
