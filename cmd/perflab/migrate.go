package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/perflab/perflab/collect/migrate"
)

const migrateUsage = `usage: perflab migrate [flags] SRC... --out DIR

Brings an existing performance lab over unedited. SRC is a Markdown page
or a folder of them (an MkDocs docs/performance-lab/, say; its .txt files
that are Markdown pages, a "# " heading first, count too). For each page
holding benchmark outputs (vllm bench serve or SGLang bench_serving text
blocks, GPUStack's generated blocks, crash markers) it writes a perflab
project:

  DIR/content/<same path>/index.md       the page, its result tables, chart
                                         images and raw outputs replaced by
                                         generated blocks (original tables
                                         kept collapsed)
  DIR/content/<same path>/campaign.yaml  the campaign inferred from the page
  DIR/results/<campaign id>/*.json       one result per output
  DIR/results/<campaign id>/src/         the page, verbatim

Pages without outputs are copied as plain pages. Relative links follow a
page that moves a folder down, and the files pages link to (images,
downloads) are copied below content/. No annotation is needed:
the model, hardware, engines, profiles, experiments, steps, baseline and
optimized are read from the page's structure. The report on stdout says,
per page, how each was inferred and lists every ambiguity as FILE:LINE.
Every output becomes a result: one that fits no profile of the page makes
a profile of its own (Other Benchmark Cases), one at another concurrency or
rate than its profile is a load point, one that repeats a command with
other numbers is an experiment of its own, and one that cannot be placed
at all an "unassigned" run with the reason. A page that cannot be migrated
(not text, code fences that do not pair up) is reported (FILE:LINE) and
skipped; the others go on. The project is written beside DIR and swapped
in, so a failed write leaves DIR as it was. Exit status 0, the ambiguities
listed and counted by kind; with --strict, 1 (nothing written) when there
is any. Re-running writes the same files; an --out folder inside SRC is
not migrated again.

flags:
`

// runMigrate implements `perflab migrate`.
func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "project `DIR` to write content/ and results/ into (required)")
	strict := fs.Bool("strict", false, "exit 1 and write nothing when anything was ambiguous (a page not migrated included)")
	dryRun := fs.Bool("dry-run", false, "print the report, write nothing")
	quiet := fs.Bool("quiet", false, "print only the summary per page and the ambiguities, not how each part was inferred")
	fs.Usage = func() { fmt.Fprint(stderr, migrateUsage); fs.PrintDefaults() }
	srcs, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return usageError("migrate: %v", err)
	}
	if len(srcs) == 0 {
		return usageError("migrate: no page or folder given")
	}
	if *out == "" && !*dryRun {
		return usageError("migrate: --out DIR is required")
	}
	list, err := migrate.Sources(srcs, *out)
	if err != nil {
		return err
	}
	if len(list) == 0 {
		return fmt.Errorf("migrate: no Markdown page (*.md) in %s", strings.Join(srcs, ", "))
	}
	rep, files, err := migrate.Plan(ctx, list)
	if err != nil {
		return err
	}
	printMigrateReport(stdout, rep, *quiet)
	if n := rep.Ambiguities(); n > 0 && *strict {
		return fmt.Errorf("migrate: --strict: %d ambiguit%s; nothing written", n, plural(n, "y", "ies"))
	}
	if *dryRun {
		return nil
	}
	if err := migrate.Write(*out, rep, files); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %d files under %s\n", len(rep.Written), *out)
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func printMigrateReport(w io.Writer, rep *migrate.Report, quiet bool) {
	blocks, results, unassigned, plain, skipped := 0, 0, 0, 0, 0
	kinds, rules := map[string]int{}, map[string]int{}
	for _, pg := range rep.Pages {
		for _, a := range pg.Ambiguities {
			kinds[a.Kind]++
		}
		for r, n := range pg.Rules {
			rules[r] += n
		}
		if pg.Skipped {
			skipped++
			for _, a := range pg.Ambiguities {
				fmt.Fprintf(w, "%s: %s\n", a.Loc, a.Msg)
			}
			continue
		}
		blocks += pg.Blocks
		if pg.Plain {
			plain++
			fmt.Fprintf(w, "%s: no benchmark outputs; copied as a plain page\n", pg.Source)
			if !quiet {
				for _, n := range pg.Notes {
					fmt.Fprintf(w, "  %s\n", n)
				}
			}
			for _, a := range pg.Ambiguities {
				fmt.Fprintf(w, "%s: %s\n", a.Loc, a.Msg)
			}
			continue
		}
		c := pg.Campaign
		results += len(pg.Results)
		unassigned += pg.Unassigned
		exps := 0
		for _, s := range c.Steps {
			exps += len(s.Experiments)
		}
		fmt.Fprintf(w, "%s → content/%s (campaign %s): %d output%s → %d result%s, %d experiment%s in %d step%s, %d profile%s",
			pg.Source, pg.Content, c.ID, pg.Blocks, plural(pg.Blocks, "", "s"), len(pg.Results), plural(len(pg.Results), "", "s"),
			exps, plural(exps, "", "s"), len(c.Steps), plural(len(c.Steps), "", "s"), len(c.Profiles), plural(len(c.Profiles), "", "s"))
		if pg.Unassigned > 0 {
			fmt.Fprintf(w, ", %d unassigned", pg.Unassigned)
		}
		fmt.Fprintf(w, ", %d ambiguit%s\n", len(pg.Ambiguities), plural(len(pg.Ambiguities), "y", "ies"))
		model := c.Model.ID
		if model == "" {
			model = "unknown"
		}
		fmt.Fprintf(w, "  model %s", model)
		if len(c.Model.Variants) > 0 {
			fmt.Fprintf(w, " (variants %s)", strings.Join(c.Model.Variants, ", "))
		}
		var engines []string
		for _, e := range c.Engines {
			engines = append(engines, strings.TrimSpace(e.Name+" "+e.Version))
		}
		sort.Strings(engines)
		if len(engines) == 0 {
			engines = []string{"none known"}
		}
		fmt.Fprintf(w, "; %d× %s; engines %s; baseline %s, optimized %s\n",
			c.Hardware.Count, strings.TrimSpace(c.Hardware.Vendor+" "+c.Hardware.GPU), strings.Join(engines, ", "), c.Baseline, c.Optimized)
		if !quiet {
			for _, n := range pg.Notes {
				fmt.Fprintf(w, "  %s\n", n)
			}
		}
		for _, a := range pg.Ambiguities {
			fmt.Fprintf(w, "%s: %s\n", a.Loc, a.Msg)
		}
	}
	if len(rules) > 0 {
		fmt.Fprintf(w, "placed by: %s\n", tally(rules))
	}
	if len(kinds) > 0 {
		fmt.Fprintf(w, "ambiguities by kind: %s\n", tally(kinds))
	}
	notMigrated := ""
	if skipped > 0 {
		notMigrated = fmt.Sprintf(", %d not migrated", skipped)
	}
	fmt.Fprintf(w, "%d page%s (%d plain%s), %d output%s → %d result%s (%d unassigned), %d ambiguit%s\n",
		len(rep.Pages), plural(len(rep.Pages), "", "s"), plain, notMigrated, blocks, plural(blocks, "", "s"), results, plural(results, "", "s"), unassigned,
		rep.Ambiguities(), plural(rep.Ambiguities(), "y", "ies"))
}

// tally writes counts by name, largest first: "label-facts 40, rows 20".
func tally(m map[string]int) string {
	var names []string
	for k := range m {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if m[names[i]] != m[names[j]] {
			return m[names[i]] > m[names[j]]
		}
		return names[i] < names[j]
	})
	var parts []string
	for _, k := range names {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
