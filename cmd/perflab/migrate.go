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
or a folder of them (an MkDocs docs/performance-lab/, say). For each page
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
An output that cannot be placed becomes an "unassigned" run, with a
warning. A page that is not text or whose code fences do not pair up stops
the migration (FILE:LINE) before anything is written. Re-running writes the
same files; an --out folder inside SRC is not migrated again.

flags:
`

// runMigrate implements `perflab migrate`.
func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "project `DIR` to write content/ and results/ into (required)")
	strict := fs.Bool("strict", false, "fail (exit 1, write nothing) when any page has an ambiguity")
	dryRun := fs.Bool("dry-run", false, "print the report, write nothing")
	quiet := fs.Bool("quiet", false, "print only the summary per page and the ambiguities, not how each part was inferred")
	fs.Usage = func() { fmt.Fprint(stderr, migrateUsage); fs.PrintDefaults() }
	var srcs []string
	rest := args
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil
			}
			return usageError("migrate: %v", err)
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		srcs = append(srcs, rest[0])
		rest = rest[1:]
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
	blocks, results, unassigned, plain := 0, 0, 0, 0
	for _, pg := range rep.Pages {
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
	fmt.Fprintf(w, "%d page%s (%d plain), %d output%s → %d result%s (%d unassigned), %d ambiguit%s\n",
		len(rep.Pages), plural(len(rep.Pages), "", "s"), plain, blocks, plural(blocks, "", "s"), results, plural(results, "", "s"), unassigned,
		rep.Ambiguities(), plural(rep.Ambiguities(), "y", "ies"))
}
