package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perflab/perflab/collect"
	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
)

const importUsage = `usage: perflab import [flags] FILE... --into DIR

Reads vllm bench serve output (the text block, also inside Markdown, several
blocks per file, GPUStack's variant, blocks that lost their line breaks),
vLLM --save-result JSON, guidellm's JSON report and llm-d-benchmark's
benchmark reports (v0.1, v0.2; YAML or JSON, several per file; the reports
of one engine configuration and workload at several rates or concurrencies
become the points of a sweep), format detected, from files or folders, and
writes one result per run to
DIR/<experiment>--<profile>.json (atomically; re-importing overwrites), or
with --round ID to DIR/rounds/ID/ (a lab's older outputs as dated rounds).

Tie blocks to a campaign with --experiment/--profile (one run per file) or
with a line "# perflab: experiment=ID profile=ID" before each block (also:
engine=, model=, label=, command=none). A comment line "# Crash…" records a
crashed run. Odd numbers are kept and flagged with warnings.

flags:
`

// runImport implements `perflab import`.
func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	into := fs.String("into", "", "directory to write the results into (required), e.g. results/<campaign id>")
	campaignFile := fs.String("campaign-file", "", "campaign YAML: results must name its experiments and profiles; engine, model, load and hardware come from it")
	campaignID := fs.String("campaign", "", "campaign id to tag the results with (default: the campaign file's id)")
	experiment := fs.String("experiment", "", "experiment id for blocks without a \"# perflab:\" line")
	profile := fs.String("profile", "", "profile id for blocks without a \"# perflab:\" line")
	engine := fs.String("engine", "", "engine name for every result (vllm, sglang, trtllm, …)")
	model := fs.String("model", "", "model id for every result")
	round := fs.String("round", "", "place the results in round `ID` of the campaign results directory --into (DIR/rounds/ID/, started when new; 1: DIR itself); a date such as 2025-06-01 also dates the round")
	roundDate := fs.String("round-date", "", "when the round ran (`DATE`, 2025-06-01 or RFC 3339), which orders the rounds; default: the --round id when it is a date, else now")
	dryRun := fs.Bool("dry-run", false, "parse and check, print what would be written, write nothing")
	fs.Usage = func() {
		fmt.Fprint(stderr, importUsage)
		fs.PrintDefaults()
	}
	// Flags may follow the files (perflab import a.txt --into DIR).
	files, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return usageError("import: %v", err)
	}
	if len(files) == 0 {
		return usageError("import: no input file given")
	}
	if *into == "" && !*dryRun {
		return usageError("import: --into DIR is required")
	}

	if c := *campaignID; strings.ContainsAny(c, `/\`) || strings.HasSuffix(c, ".yaml") || strings.HasSuffix(c, ".yml") {
		// --campaign content/x/campaign.yaml tagged every result with the
		// path as its campaign id and read no campaign.
		return usageError("import: --campaign %s looks like a file, not a campaign id: give the campaign's YAML with --campaign-file (--campaign only tags the results with an id)", c)
	}
	if *roundDate != "" && *round == "" {
		return usageError("import: --round-date dates a round: give --round ID too")
	}
	var roundStart time.Time
	if *round != "" {
		if err := schema.CheckRoundID(*round); err != nil {
			return usageError("import: --round: %v", err)
		}
		d := *roundDate
		if d == "" {
			d = *round
		}
		var err error
		if roundStart, err = parseRoundDate(d); err != nil {
			if *roundDate != "" {
				return usageError("import: --round-date %q: want 2025-06-01 or an RFC 3339 time", *roundDate)
			}
			roundStart = time.Now()
		} else if now := time.Now(); roundStart.After(now.Add(24 * time.Hour)) {
			// Rounds are ordered by start: a round dated ahead would be
			// the latest, shown as today's, until that day, and every
			// round collected meanwhile would go before it.
			flag := "--round-date " + *roundDate
			if *roundDate == "" {
				flag = "--round " + *round + " (a date, which dates the round)"
			}
			return usageError("import: %s is after today (%s): a round's date is when its outputs were measured; a round dated ahead would be the lab's latest until then", flag, now.UTC().Format("2006-01-02"))
		}
		if *roundDate != "" && *into != "" {
			if err := checkRoundDate(*into, *round, *roundDate, roundStart); err != nil {
				return err
			}
		}
	}
	opt := ingest.Options{CampaignID: *campaignID, Experiment: *experiment, Profile: *profile, Engine: *engine, Model: *model}
	if *campaignFile != "" {
		c, err := ingest.ReadCampaign(*campaignFile)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		opt.Campaign = c
	}
	if w := intoWarning(*into, *campaignID, opt.Campaign); w != "" {
		fmt.Fprintln(stderr, w)
	}
	var entries []ingest.Entry
	for _, arg := range files {
		list, inDir, err := importFiles(arg)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		for _, f := range list {
			if err := ctx.Err(); err != nil {
				return err
			}
			data, err := os.ReadFile(f)
			if err != nil {
				return fmt.Errorf("import: %w", err)
			}
			if schema.DeclaresVersion(data) {
				// perflab's own result, e.g. the X.perflab.json perflab
				// bench --save-result writes beside vLLM's X.json (the
				// output import reads): not another tool's output.
				if inDir {
					fmt.Fprintf(stderr, "skipped %s: a perflab result, not an output import reads (perflab bench --save-result writes it beside the vLLM JSON that is read)\n", f)
					continue
				}
				return fmt.Errorf("import: %s is a perflab result, not an output import reads (perflab bench --save-result writes it beside a vLLM JSON: import that one)", f)
			}
			es, err := ingest.Parse(f, data)
			if err != nil {
				return fmt.Errorf("import: %w", err)
			}
			if len(es) == 0 {
				if inDir {
					continue // a folder's other files (a README, a config)
				}
				return fmt.Errorf("import: %s: no benchmark output found (expected a \"Serving Benchmark Result\" block, a \"Successful requests:\" row, vLLM or guidellm JSON, or an llm-d benchmark report)", f)
			}
			entries = append(entries, es...)
		}
	}
	if len(entries) == 0 {
		return fmt.Errorf("import: no benchmark output found in %s", strings.Join(files, ", "))
	}
	results, err := ingest.Results(entries, opt)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	// Encode everything before writing anything: a bad run leaves the
	// directory as it was.
	for _, r := range results {
		if _, err := schema.Marshal(r); err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}
	// Results of several campaigns (an export tree of llm-d reports read
	// back) go to a folder per campaign below --into.
	campaigns := map[string]bool{}
	for _, r := range results {
		campaigns[r.Campaign] = true
	}
	perCampaign := len(campaigns) > 1 && *campaignID == "" && opt.Campaign == nil
	if perCampaign && *round != "" {
		return usageError("import: --round: the outputs belong to %d campaigns; import one campaign at a time (or name it with --campaign)", len(campaigns))
	}
	dir := *into
	if *round != "" {
		dir = schema.RoundPath(*into, *round)
	}
	// An output is not imported over a run perflab collect measured (the
	// wrong --round, or round 1's directory): its file would be replaced
	// by another run's numbers, with no word; re-importing an imported
	// output replaces it, as before.
	for _, r := range results {
		if perCampaign && r.Campaign != "" {
			continue // a campaign folder of its own below --into
		}
		if err := notOverMeasured(filepath.Join(dir, r.ID+".json")); err != nil {
			return fmt.Errorf("import: %w", err)
		}
	}
	if *round != "" && !*dryRun {
		rec := &schema.Round{ID: *round, Start: roundStart.UTC().Format(time.RFC3339), Note: "imported with perflab import"}
		if opt.Campaign != nil {
			rec.Campaign = opt.Campaign.ID
		}
		if *campaignFile != "" {
			if data, err := os.ReadFile(*campaignFile); err == nil {
				sum := sha256.Sum256(data)
				rec.CampaignSHA256 = hex.EncodeToString(sum[:])
			}
		}
		rd, err := schema.CreateRound(*into, rec)
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		dir = rd.Dir
	}
	for _, r := range results {
		path := filepath.Join(dir, r.ID+".json")
		if perCampaign && r.Campaign != "" {
			path = filepath.Join(*into, r.Campaign, r.ID+".json")
		}
		note := string(r.Status)
		if n := len(r.Warnings); n > 0 {
			note += fmt.Sprintf(", %d warning(s)", n)
		}
		if *dryRun {
			fmt.Fprintf(stdout, "%s (%s) from %s\n", r.ID, note, r.Metadata["source"])
		} else {
			if err := schema.WriteFile(path, r); err != nil {
				return fmt.Errorf("import: %w", err)
			}
			fmt.Fprintf(stdout, "wrote %s (%s) from %s\n", path, note, r.Metadata["source"])
		}
		for _, w := range r.Warnings {
			fmt.Fprintf(stdout, "  warning: %s\n", strings.ReplaceAll(w, "\n", " "))
		}
	}
	return nil
}

// importExts are the files a folder given to import is searched for.
var importExts = map[string]bool{".yaml": true, ".yml": true, ".json": true, ".jsonl": true, ".txt": true, ".log": true, ".md": true}

// importFiles is the file arg, or the files of the folder arg (walked,
// sorted, hidden entries skipped); inDir says it was a folder.
func importFiles(arg string) ([]string, bool, error) {
	st, err := os.Stat(arg)
	if err != nil {
		return nil, false, err
	}
	if !st.IsDir() {
		return []string{arg}, false, nil
	}
	var out []string
	err = filepath.WalkDir(arg, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != arg {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && importExts[strings.ToLower(filepath.Ext(p))] {
			out = append(out, p)
		}
		return nil
	})
	return out, true, err
}

// intoWarning says when --into is not where the site reads the
// campaign's results (<results root>/<campaign's results: or id>): a
// results root given as for collect's --results (--into results) put the
// runs, or a round's rounds/ID/, beside the campaigns, where no report
// reads them. "" when it is, or when no campaign is named.
func intoWarning(into, id string, c *schema.Campaign) string {
	want := id
	if want == "" && c != nil {
		want = c.ID
		if c.Results != "" {
			want = c.Results
		}
	}
	if into == "" || want == "" {
		return ""
	}
	in, w := filepath.ToSlash(filepath.Clean(into)), filepath.ToSlash(filepath.Clean(want))
	if in == w || strings.HasSuffix(in, "/"+w) {
		return ""
	}
	return fmt.Sprintf("warning: --into %s: the site reads campaign %s's results from RESULTS/%s (results/%s by default); --into takes that directory, not the results root (collect's --results)", into, want, w, w)
}

// checkRoundDate refuses a --round-date that would not date the round:
// round 1 is the campaign directory itself, dated by its results, and a
// round that exists keeps the start its record was written with (the
// first writer's, as for collect's shards), so a different date would be
// dropped without a word. Checked before anything is written.
func checkRoundDate(into, id, given string, start time.Time) error {
	if id == schema.FirstRound {
		return usageError("import: --round-date %s: round 1 is %s itself, dated by its results' start; import into a round of its own (--round v0.10) to date it", given, into)
	}
	rec, err := schema.ReadRound(schema.RoundPath(into, id))
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if rec == nil {
		return nil
	}
	if had, err := time.Parse(time.RFC3339, rec.Start); err == nil && !had.Equal(start) {
		return usageError("import: --round-date %s: round %s exists and started %s (%s); a round's date is set when it starts: leave --round-date out to add to it, or give another --round", given, id, rec.Start, filepath.Join(schema.RoundPath(into, id), schema.RoundFile))
	}
	return nil
}

// parseRoundDate reads a round's date: 2025-06-01 (midnight UTC) or an
// RFC 3339 time.
func parseRoundDate(s string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339, s)
}

// notOverMeasured returns an error when path holds a result perflab
// collect measured (an ok, failed or crashed run; not an interrupted
// one, which collect runs again anyway): import would replace it.
func notOverMeasured(path string) error {
	old, err := schema.ReadFile(path)
	if err != nil {
		return nil // none, or damaged: nothing measured to keep
	}
	if collect.Imported(old) || old.Status == schema.StatusInterrupted {
		return nil
	}
	return fmt.Errorf("%s holds a run perflab collect measured (%s, %s): import does not replace a measurement; import into a round of its own (--round ID, --round-date DATE), or delete the file first", path, old.Status, old.Start)
}
