package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/perflab/perflab/collect/check"
)

const checkUsage = `usage: perflab check [flags] [PATH...]

Reads Markdown pages (files, or folders searched for *.md, and for
report bundles' campaign.yaml without an index.md; default: content/)
and reports every number that disagrees with the page's own
data, one line each: FILE:LINE: what. A page of pasted outputs is checked
against the benchmark blocks on it; a perflab report page (a bundle with a
campaign) against its campaign's results. A page that cannot be read (or
its campaign or results) is reported on stderr as FILE:LINE: what, and the
other pages are still checked. Exit status: 0 the pages are clean, 1
findings, 3 a page, path or campaign could not be read (whether or not
there are findings), 2 bad usage.

flags:
`

// runCheck implements `perflab check`.
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	results := fs.String("results", "results", "results root for perflab report pages")
	fs.Usage = func() {
		fmt.Fprint(stderr, checkUsage)
		fs.PrintDefaults()
	}
	// Flags may follow the paths.
	paths, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return usageError("check: %v", err)
	}
	if len(paths) == 0 {
		paths = []string{"content"}
	}
	files, err := check.Files(paths)
	if err != nil {
		return inputError{err}
	}
	if len(files) == 0 {
		// Checking nothing is no clean bill: a folder of .txt pages or the
		// wrong folder must not pass.
		return inputError{fmt.Errorf("check: no Markdown pages (*.md, *.markdown) nor report bundles (campaign.yaml) in %s", strings.Join(paths, ", "))}
	}
	total, pages, unread := 0, 0, 0
	var counts check.Counts
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, err := check.Load(f, *results)
		if err != nil {
			// One unreadable page does not hide the others' findings.
			var pe *check.PageError
			if !errors.As(err, &pe) {
				return err
			}
			for _, l := range pe.Lines() {
				fmt.Fprintln(stderr, l)
			}
			unread++
			continue
		}
		if p.Campaign != nil && len(p.Results) == 0 {
			// Run from another folder, the default results/ is not the
			// project's: say so rather than pass on nothing compared.
			fmt.Fprintf(stderr, "perflab check: note: %s: no results of campaign %s under %s (--results); only the page's own arithmetic and models are checked\n", f, p.Campaign.ID, *results)
		}
		found, n := check.Run(p)
		counts.Add(n)
		for _, x := range found {
			fmt.Fprintln(stdout, x)
		}
		total += len(found)
		if len(found) > 0 {
			pages++
		}
	}
	// What was checked, so that a clean result can be told from one with
	// nothing to check.
	unreadNote := ""
	if unread > 0 {
		unreadNote = fmt.Sprintf(" (%d could not be read)", unread)
	}
	repeated := ""
	if counts.Repeated > 0 {
		repeated = fmt.Sprintf(" (%s with repeats, also compared through their means and medians)", count(counts.Repeated, "load point"))
	}
	fmt.Fprintf(stderr, "perflab check: read %s%s with %s and %s%s; checked %s, %s, %s, %s\n",
		count(len(files), "page"), unreadNote, count(counts.Blocks, "benchmark output"), count(counts.Results, "result file"), repeated,
		count(counts.Numbers, "number"), count(counts.Percentages, "percentage"), count(counts.Steps, "step table"), count(counts.Models, "model name"))
	found := fmt.Sprintf("%d finding(s) in %d of %d page(s)", total, pages, len(files))
	if unread > 0 {
		return inputError{fmt.Errorf("check: %d of %d page(s) could not be read; %s", unread, len(files), found)}
	}
	if total > 0 {
		return fmt.Errorf("check: %s", found)
	}
	fmt.Fprintln(stderr, "perflab check: no findings")
	return nil
}

// count writes "1 page", "3 pages".
func count(n int, noun string) string {
	return fmt.Sprintf("%d %s", n, plural(n, noun, noun+"s"))
}
