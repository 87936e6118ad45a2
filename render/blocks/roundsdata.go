package blocks

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/analysis"
	"github.com/perflab/perflab/render/site"
)

// A report with rounds offers each round's runs in files of the round's
// own, beside the report's: rounds/<round>.json and rounds/<round>.csv
// (RoundFile), the shape of a one-round report's data.json and data.csv
// (RoundDataFile). An older round's files are a function of the round's
// results and of the report's campaign, so a build makes them once and
// later builds leave them as they are (render's roundfiles.go: an
// output unit keyed by the round cache's key of the round); the
// report's data.json keeps the latest round's runs and lists every round
// with its headline figures (the history's values) and links to its
// files, and data.csv the latest round's rows. Inlining every round's
// runs made data.json 2.7 MB at 99 rounds, rewritten by every round and
// kept again by the page cache.

// RoundDataFile is a round's data.json: the report's fields, the round
// and its runs.
type RoundDataFile struct {
	Campaign  string `json:"campaign"`
	Model     string `json:"model"`
	Hardware  string `json:"hardware"`
	Baseline  string `json:"baseline"`
	Optimized string `json:"optimized"`
	// Round is the round's id; Start, GitCommit and Engines are as the
	// report's data.json lists them (roundIndex).
	Round     string            `json:"round"`
	Start     string            `json:"start,omitempty"`
	GitCommit string            `json:"git_commit,omitempty"`
	Engines   map[string]string `json:"engines,omitempty"`
	Runs      []RunData         `json:"runs"`
}

// roundIndex is one round in a report's data.json "rounds".
type roundIndex struct {
	ID string `json:"id"`
	// Start is the record's; round 1's (no record) its results' earliest,
	// as the history chart dates it.
	Start     string `json:"start,omitempty"`
	GitCommit string `json:"git_commit,omitempty"`
	// Engines are the engine each experiment ran in the round, as the
	// history chart names it (roundEngine).
	Engines map[string]string `json:"engines,omitempty"`
	// DataJSON and DataCSV are the round's files, relative to the
	// report's data.json.
	DataJSON string `json:"data_json"`
	DataCSV  string `json:"data_csv"`
	// Interrupted: every result of the round was interrupted (a collect
	// stopped before any run finished, overtaken by a newer round); it
	// measured nothing, so it has no headline and the history leaves
	// it out, naming it (reportHistory's interrupted). Its files hold
	// its interrupted runs.
	Interrupted bool `json:"interrupted,omitempty"`
	// Headline are the history's figures of the round: one per
	// configuration × profile × load point it measured, or ran and
	// whose runs all went wrong (headlineData.NotOK).
	Headline []headlineData `json:"headline"`
	// SLO is, for a sweep campaign with an SLO, the round's answer per
	// sweep profile × experiment, as the history's SLO table shows it.
	SLO []sloData `json:"slo,omitempty"`
}

// headlineData is one history line's figure in a round: total
// throughput per GPU of each of its runs, and their requests.
type headlineData struct {
	Experiment string `json:"experiment"`
	Profile    string `json:"profile"`
	Point      string `json:"point,omitempty"`
	// Load is the point as a script reads it: the field the sweep
	// varies and its value ({"max_concurrency": 4}); none at one load.
	Load   map[string]float64 `json:"load,omitempty"`
	Values []float64          `json:"total_token_throughput_per_gpu"`
	// FailedRequests of Requests (the runs') failed, where any did: the
	// history's "✗ n of m requests failed" (a run that stalled on a
	// request stays ok, its throughput taken over its whole time). Both
	// are omitted where none failed, as the history says nothing there:
	// every entry would otherwise grow data.json by a third.
	FailedRequests int `json:"failed_requests,omitempty"`
	Requests       int `json:"requests,omitempty"`
	// NotOK is the status of each of the round's runs of the line that
	// gave no figure, where any went wrong (runOutcome): "crashed",
	// "failed" or "interrupted"; Values is empty where all did (the
	// history's cell says "crashed" there, not "–", which is a round
	// that did not run the line, and has no entry).
	NotOK []schema.Status `json:"not_ok,omitempty"`
}

// sloData is a sweep profile × experiment's SLO answer in a round (the
// history's SLO table): the highest load point whose runs meet every
// limit of the report's slo_ms, and the total throughput per GPU there;
// Met false (and no point) when no point meets them.
type sloData struct {
	Experiment string             `json:"experiment"`
	Profile    string             `json:"profile"`
	Met        bool               `json:"met"`
	Point      string             `json:"point,omitempty"`
	Load       map[string]float64 `json:"load,omitempty"` // as headlineData's
	Throughput *float64           `json:"total_token_throughput_per_gpu,omitempty"`
}

// pointLoad is a load point as data.json's headline and changes give it
// to scripts (beside Point, the label the pages show).
func pointLoad(pt schema.Point) map[string]float64 {
	if pt.Sweep == "" {
		return nil
	}
	return map[string]float64{pt.Sweep: pt.Value}
}

// changeData is a change point the history flags, in data.json.
type changeData struct {
	Experiment string             `json:"experiment"`
	Profile    string             `json:"profile"`
	Point      string             `json:"point,omitempty"`
	Load       map[string]float64 `json:"load,omitempty"` // as headlineData's
	// Round is the first round of the new level; Previous, for a U test,
	// the round it was tested against.
	Round    string  `json:"round"`
	Previous string  `json:"previous,omitempty"`
	Pct      float64 `json:"pct"`
	Method   string  `json:"method"`
	P        float64 `json:"p"`
	Q        float64 `json:"q,omitempty"`
	Effect   float64 `json:"effect,omitempty"`
	// Latest: the latest round flagged it (the home page lists it).
	Latest bool `json:"latest,omitempty"`
}

// RoundFile is where a report keeps round id's files, relative to its
// page and less their extension (".json", ".csv"): "rounds/2026-11-27".
// A file each, not a directory per round: a build that takes a round's
// files as they are links them into the site it swaps in, and making a
// directory per round was most of that. A round id is a directory name
// the collector made: schema.CheckRoundID's slugs (lower-case letters,
// digits, '.', '_', '-') are used as they are; any other byte of a
// directory made by hand, and a leading '.', are written "~" and two
// lower-case hex digits (a slug has no '~', so no two ids meet; only
// lower-case letters, so neither do they on a case-blind file system),
// and a name that would grow past 100 bytes is "~~" and its SHA-256's
// first 32 hex digits.
func RoundFile(id string) string {
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' && i > 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "~%02x", c)
	}
	name := b.String()
	if len(name) > 100 || name == "" {
		sum := sha256.Sum256([]byte(id))
		name = "~~" + hex.EncodeToString(sum[:16])
	}
	return site.RoundsOut + name
}

// RoundData returns round ri's data.json and data.csv (RoundFile): its
// runs as a one-round report's, its id, start, commit and engines; the
// CSV with the report's leading "round" column.
func RoundData(r *Report, ri int) ([]byte, []byte, error) {
	// The round's start and engines are facts the history's pass fills
	// (render/site's RoundFacts): read after it, never while another
	// render fills them.
	if h := historyOf(r); h.err != nil {
		return nil, nil, h.err
	}
	rr := r.Rounds[ri]
	results, err := rr.Load()
	if err != nil {
		return nil, nil, err
	}
	d, rows := roundTables(r, results)
	x := RoundDataFile{Campaign: d.Campaign, Model: d.Model, Hardware: d.Hardware, Baseline: d.Baseline, Optimized: d.Optimized,
		Round: rr.ID, Start: rr.Start(), Engines: roundEngines(r, ri), Runs: d.Runs}
	if rr.Record != nil {
		x.GitCommit = rr.Record.GitCommit
	}
	js, err := marshalDataJSON(x)
	if err != nil {
		return nil, nil, fmt.Errorf("round %s: data.json: %w", rr.ID, err)
	}
	return js, csvRows(withRoundColumn(rows, rr.ID)), nil
}

// RoundDataContext is what a round's files are made of besides the
// round's results and record (which the round cache's key and the
// record name): the report's fields they repeat and each experiment's
// engine and GPU count, as the runs show them. (render keys a round's
// files with it.)
func RoundDataContext(r *Report) string {
	d, _ := latestTables(&Report{Page: r.Page, Campaign: r.Campaign, CampaignFile: r.CampaignFile, ResultsDir: r.ResultsDir})
	var b strings.Builder
	for _, s := range []string{d.Campaign, d.Model, d.Hardware, d.Baseline, d.Optimized} {
		fmt.Fprintf(&b, "%d:%s", len(s), s)
	}
	for _, st := range r.Campaign.Steps {
		for i := range st.Experiments {
			e := &st.Experiments[i]
			fmt.Fprintf(&b, "%d:%s%d:%s%d;", len(e.ID), e.ID, len(e.Engine), e.Engine, r.GPUs(e))
		}
	}
	return b.String()
}

// roundTables are latestTables' tables of one round's results.
func roundTables(r *Report, results []*schema.Result) (ReportDataFile, [][]string) {
	shadow := &Report{Page: r.Page, Campaign: r.Campaign, CampaignFile: r.CampaignFile, ResultsDir: r.ResultsDir}
	for _, res := range results {
		shadow.All = append(shadow.All, &Run{Result: res})
	}
	d, rows := latestTables(shadow)
	// A round's files keep every result of the round: those of an
	// experiment or profile the campaign no longer has (the tables above
	// go by the campaign) follow, in file order, with the engine and GPU
	// count their results say.
	in := make(map[*schema.Result]bool, len(d.Runs))
	for _, run := range shadow.Runs() {
		in[run.Result] = true
	}
	for _, run := range shadow.All {
		res := run.Result
		if in[res] {
			continue
		}
		engine, gpus := res.Engine.Name, shadow.GPUs(nil)
		if e, ok := shadow.Campaign.Experiment(res.Experiment); ok {
			engine, gpus = e.Engine, shadow.GPUs(e)
		} else if res.Hardware != nil && res.Hardware.GPUCount > 0 {
			gpus = res.Hardware.GPUCount
		}
		rd, row := runData(run, engine, gpus, len(rows[0]))
		d.Runs = append(d.Runs, rd)
		rows = append(rows, row)
	}
	return d, rows
}

// withRoundColumn puts a leading "round" column, id in every row, before
// data.csv's rows (rows[0] is the header).
func withRoundColumn(rows [][]string, id string) [][]string {
	out := make([][]string, len(rows))
	for i, row := range rows {
		c := "round"
		if i > 0 {
			c = id
		}
		out[i] = append(append(make([]string, 0, len(row)+1), c), row...)
	}
	return out
}

// roundEngines are the engines the history names for round ri's
// experiments (roundEngine), by experiment id; nil when none is known.
func roundEngines(r *Report, ri int) map[string]string {
	var m map[string]string
	for _, st := range r.Campaign.Steps {
		for _, e := range st.Experiments {
			if eng := roundEngine(r, ri, e.ID); eng != "" {
				if m == nil {
					m = map[string]string{}
				}
				m[e.ID] = eng
			}
		}
	}
	return m
}

// withRounds makes d and rows a report's with rounds: "rounds" lists
// every round, oldest first, with its headline figures and its files,
// "changes" the change points the history flags; data.csv gets the
// leading "round" column. A report without rounds is left as it is.
func withRounds(r *Report, d ReportDataFile, rows [][]string) (ReportDataFile, [][]string, error) {
	if len(r.Rounds) < 2 {
		return d, rows, nil
	}
	h := historyOf(r)
	if h.err != nil {
		return d, rows, h.err
	}
	d.Rounds = make([]roundIndex, len(r.Rounds))
	for ri, rr := range r.Rounds {
		f := RoundFile(rr.ID)
		x := roundIndex{ID: rr.ID, Start: rr.Start(), Engines: roundEngines(r, ri), DataJSON: f + ".json", DataCSV: f + ".csv", Headline: make([]headlineData, 0, len(h.lines))}
		if rr.Record != nil {
			x.GitCommit = rr.Record.GitCommit
		}
		x.Interrupted = slices.Contains(h.interrupted, ri)
		// The history's lines and answers, which the chart and tables
		// show: an interrupted round has none.
		for _, l := range h.lines {
			if vs := l.values[ri]; len(vs) > 0 || len(l.notOK[ri]) > 0 {
				hd := headlineData{Experiment: l.exp.ID, Profile: l.prof.ID, Point: l.pt.String(), Load: pointLoad(l.pt), Values: finite(vs), NotOK: l.notOK[ri]}
				if failed, requests, ok := l.failedRequests(ri); ok { // as failedText says it
					hd.FailedRequests, hd.Requests = failed, requests
				}
				x.Headline = append(x.Headline, hd)
			}
		}
		for _, sh := range h.slo {
			if a := sh.answers[ri]; a != nil {
				x.SLO = append(x.SLO, sloOf(sh, a))
			}
		}
		d.Rounds[ri] = x
	}
	if len(h.slo) > 0 {
		d.SLOms = r.Campaign.SLO
	}
	d.Changes = []changeData{}
	for _, ch := range h.changes {
		c, l := ch.c, h.lines[ch.line]
		if math.IsNaN(c.Pct) || math.IsInf(c.Pct, 0) {
			continue // no level to compare with: nothing JSON can say
		}
		x := changeData{Experiment: l.exp.ID, Profile: l.prof.ID, Point: l.pt.String(), Load: pointLoad(l.pt), Round: r.Rounds[ch.round].ID,
			Pct: c.Pct, Method: c.Method, P: c.P, Latest: c.Latest}
		if c.Method == "u-test" {
			x.Previous, x.Q, x.Effect = r.Rounds[prevRound(l, ch.round)].ID, c.Q, c.Effect
		}
		d.Changes = append(d.Changes, x)
	}
	// Every run names its round, as data.csv's round column does: the
	// shown round's own runs it, a run carried from an earlier round
	// that one (a script read a missing key as "the latest round").
	latest := r.Rounds[len(r.Rounds)-1].ID
	rows = withRoundColumn(rows, latest)
	for i := range d.Runs {
		if d.Runs[i].Round == "" {
			d.Runs[i].Round = latest
		}
		rows[i+1][0] = d.Runs[i].Round
	}
	return d, rows, nil
}

// sloOf is answer a of sh in data.json.
func sloOf(sh sloHistory, a *analysis.SLOAnswer) sloData {
	x := sloData{Experiment: sh.exp, Profile: sh.prof, Met: a.Best >= 0}
	if x.Met {
		x.Point, x.Load = a.Point.String(), pointLoad(a.Point)
		if v := a.ThroughputPerGPU; !math.IsNaN(v) && !math.IsInf(v, 0) {
			x.Throughput = &v
		}
	}
	return x
}

// finite is vs without the values JSON cannot hold.
func finite(vs []float64) []float64 {
	out := make([]float64, 0, len(vs))
	for _, v := range vs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, v)
		}
	}
	return out
}

// csvRows is rows as data.csv writes them.
func csvRows(rows [][]string) []byte {
	cs := dataBufs.Get()
	defer dataBufs.Put(cs)
	w := csv.NewWriter(cs)
	w.WriteAll(rows) // a bytes.Buffer does not fail
	return bytes.Clone(cs.Bytes())
}
