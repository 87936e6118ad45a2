package site

import (
	"bytes"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/schema/campaignfile"
)

// parseCampaign decodes a campaign file with collect's reader (unknown
// fields are errors) and checks that its ids hang together: unique
// experiment and profile ids, every step's chosen experiment and every
// experiment's profiles defined. A report also needs at least one profile
// and a baseline and an optimized experiment. Every problem is reported,
// each as file:line: field: what.
func parseCampaign(file string, data []byte) (*schema.Campaign, error) {
	f, err := campaignfile.Parse(file, data)
	if err != nil {
		return nil, err
	}
	list := f.CheckIDs()
	c := &f.Campaign
	if len(c.Profiles) == 0 {
		list = append(list, f.Problem([]any{"profiles"}, "at least one profile is needed"))
	}
	if c.Baseline == "" {
		list = append(list, f.Problem([]any{"baseline"}, "missing (the id of the baseline experiment)"))
	}
	if c.Optimized == "" {
		list = append(list, f.Problem([]any{"optimized"}, "missing (the id of the recommended experiment)"))
	}
	if err := campaignfile.Errors(file, list); err != nil {
		return nil, err
	}
	return c, nil
}

// firstLineOf returns the 1-based line of the first occurrence of s in
// data, or 1.
func firstLineOf(data []byte, s string) int {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 1
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}
