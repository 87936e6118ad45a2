// Package roundload reads a report's results directory when it holds
// rounds (collect/schema: round 1 is the directory itself, each later
// round a directory under rounds/): which rounds there are and the
// latest one's files (Scan), and the results of every older round for
// the history (Cache.Results), cheaply and through the page's
// inputs.Reader, so that what a page is made of is recorded by
// construction.
//
// Older rounds are history: a build of round 100 needs each older
// round's results, not their per-request records, and an older round's
// files rarely change. Cache keeps what the history needs of each round
// (its results without requests and raw output, encoded by render/wire)
// in a build cache of its own (render/buildcache, the "rounds"
// directory of the cache directory), under the key of the round's
// files as the page's Reader recorded them: each file's sum, taken from
// the input stat cache when the file's identity is unchanged
// (inputs.Reader.Known: one stat, the file is neither read nor hashed).
// Any edit of a round's file gives the file another identity and
// another sum, so another key: a miss, and the round is read again.
// Nothing is invalidated by hand.
//
// What a caller makes of a report's older rounds from the first on (the
// history's values, render/blocks' historydigest.go) is kept as one
// entry (Prefix), under a chain of keys: the caller's input, then each
// round's key in order. The build of round 100 finds the entry the build
// of round 99 made of rounds 1..98 and decodes round 99 alone; an older
// round's entry is then not decoded at all (Loads counts those that are).
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
