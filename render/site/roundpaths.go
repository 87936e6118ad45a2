package site

import (
	"fmt"
	"strings"
)

// RoundsOut is the directory below a report's page where render writes
// each round's data files (render/blocks' RoundFile: rounds/<round>.json
// and rounds/<round>.csv). It is the report's: a page whose URL lies in
// it would be written over by them, or write over them, so Load refuses
// one (checkRoundsOut).
const RoundsOut = "rounds/"

// checkRoundsOut returns an error naming the first page (in pages'
// order) whose URL lies in a report's RoundsOut directory.
func checkRoundsOut(pages []*Page) error {
	reports := map[string]bool{}
	for _, p := range pages {
		if p.Report != nil {
			reports[p.URL] = true
		}
	}
	for _, p := range pages {
		// Every "rounds/" segment of the URL: is what is above it a report?
		for i := 0; ; {
			j := strings.Index(p.URL[i:], RoundsOut)
			if j < 0 {
				break
			}
			at := i + j
			if (at == 0 || p.URL[at-1] == '/') && reports[p.URL[:at]] {
				return fmt.Errorf("%s:1: renders to /%s, inside /%s%s, where report /%s keeps its rounds' data files; move or rename the page", p.Src, p.URL, p.URL[:at], RoundsOut, p.URL[:at])
			}
			i = at + 1
		}
	}
	return nil
}
