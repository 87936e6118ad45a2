package render

import (
	"crypto/sha256"
	"fmt"

	"github.com/perflab/perflab/render/blocks"
	"github.com/perflab/perflab/render/wire"
)

// A report with rounds writes each round's data files beside its page
// (render/blocks' RoundData, at RoundFile: rounds/<round>.json and
// rounds/<round>.csv). They are not the page's: the page cache does not
// keep them, and each round's pair is an output unit of its own (the
// output manifest's, named by the files' path less their extension), so
// that a build skips a round whose files are in Out as the last build
// made them without making them:
//
//   - an older round's unit key is made of the round cache's key of the
//     round (its result files' sums and the campaign file's, which also
//     names the secrets its results were redacted of: roundload.Round.Key),
//     its record, what else the files repeat of the report
//     (blocks.RoundDataContext) and perflab's build: a later build finds
//     the key unchanged and takes the files as they are; an edited
//     result, record or campaign gives another key, and the round's files
//     are made again; a round removed is no unit of the build, and its
//     files are not in the new Out;
//   - the latest round's unit key is the page's cache key (every input
//     of the page, the latest round's results among them), so the
//     latest round's files are made with its page, and once more by the
//     build of the round after (now older, under the other key: the
//     bytes are the same, and not written again).

// roundDataOf makes a round's files (blocks.RoundData); a test makes it
// fail to prove that a build did not call it.
var roundDataOf = blocks.RoundData

// roundFilesVersion salts older rounds' unit keys: files made for other
// types are made again.
var roundFilesVersion = wire.Version(blocks.RoundDataFile{})

// roundUnit is a round's unit: its name (its files' path less their
// extension, which no page's URL can be: site.RoundsOut) and its files.
func roundUnit(p *Page, id string) (name string, paths []string) {
	f := p.URL + blocks.RoundFile(id)
	return f, []string{f + ".json", f + ".csv"}
}

// roundKey is the unit key of round ri of p's report (see above):
// pageKey is the page's cache key, ctx the report's RoundDataContext;
// ok is false when there is none (no cache).
func roundKey(p *Page, ri int, pageKey, ctx string) (key [32]byte, ok bool) {
	rr := p.Report.Rounds[ri]
	h := sha256.New()
	if rr.Cached == nil { // the latest round: the page's
		if pageKey == "" {
			return key, false
		}
		field(h, "perflab latest round files", pageKey, rr.ID)
	} else {
		rk := rr.Cached.Key()
		var rec []byte
		if rr.Record != nil {
			rec = wire.Append(nil, *rr.Record)
		}
		field(h, "perflab round files", roundFilesVersion, selfVersion(), ctx, string(rk[:]), string(rec), rr.ID)
	}
	h.Sum(key[:0])
	return key, true
}

// roundFiles writes the round files of page p (a report with two rounds
// or more; nothing otherwise), rendered under page key pageKey, taking
// from the last build's Out each round whose unit is there under the
// same key; it returns how many files the rounds have.
func (r *renderRun) roundFiles(p *Page, pageKey string) (int, error) {
	rep := p.Report
	if rep == nil || len(rep.Rounds) < 2 {
		return 0, nil
	}
	o := r.s.outputs
	ctx := ""
	if o != nil && r.s.cache != nil {
		ctx = blocks.RoundDataContext(rep)
	}
	n := 0
	for ri, rr := range rep.Rounds {
		// A report of hundreds of rounds made afresh (a cold build, a
		// changed campaign) is seconds of one job: Ctrl-C stops it here.
		if err := r.ctx.Err(); err != nil {
			return n, err
		}
		name, paths := roundUnit(p, rr.ID)
		n += len(paths)
		var key [32]byte
		keyed := false
		if o != nil && r.s.cache != nil {
			key, keyed = roundKey(p, ri, pageKey, ctx)
			if keyed {
				if _, ok := o.Reuse(name, key); ok {
					continue
				}
			}
		}
		files, err := makeRoundFiles(p, ri, paths)
		if err != nil {
			return n, err
		}
		if keyed {
			o.Unit(name, key, [32]byte{}, paths)
		}
		for _, f := range files {
			if err := r.write(f); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// makeRoundFiles makes round ri's files of page p, at paths.
func makeRoundFiles(p *Page, ri int, paths []string) ([]File, error) {
	js, cs, err := roundDataOf(p.Report, ri)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Src, err)
	}
	return []File{{Path: paths[0], Data: js}, {Path: paths[1], Data: cs}}, nil
}

// allRoundFiles are every round file of page p (the preview server's
// incremental step and PageFiles, which write what they render).
func (s *Site) allRoundFiles(p *Page) ([]File, error) {
	rep := p.Report
	if rep == nil || len(rep.Rounds) < 2 {
		return nil, nil
	}
	var out []File
	for ri, rr := range rep.Rounds {
		_, paths := roundUnit(p, rr.ID)
		files, err := makeRoundFiles(p, ri, paths)
		if err != nil {
			return nil, err
		}
		out = append(out, files...)
	}
	return out, nil
}

// roundGone returns a round whose files page was (with two rounds or
// more) and np no longer is; "" when none.
func roundGone(was, np *Page) string {
	if was.Report == nil || len(was.Report.Rounds) < 2 {
		return ""
	}
	now := map[string]bool{}
	if np.Report != nil && len(np.Report.Rounds) >= 2 {
		for _, rr := range np.Report.Rounds {
			now[blocks.RoundFile(rr.ID)] = true
		}
	}
	for _, rr := range was.Report.Rounds {
		if !now[blocks.RoundFile(rr.ID)] {
			return rr.ID
		}
	}
	return ""
}
