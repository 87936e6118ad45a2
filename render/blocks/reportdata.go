package blocks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/site"
)

// A report offers its runs for download: data.json and data.csv.

// RunData is one run in a report's data.json.
type RunData struct {
	Experiment string          `json:"experiment"`
	Profile    string          `json:"profile"`
	Engine     string          `json:"engine"`
	GPUs       int             `json:"gpus"`
	Status     schema.Status   `json:"status"`
	Error      string          `json:"error,omitempty"`
	Load       schema.Load     `json:"load"`
	Summary    *schema.Summary `json:"summary,omitempty"`
	Caveats    []string        `json:"caveats,omitempty"`
	Result     string          `json:"result_id"`
	// Round is the id of the run's round, in a report with rounds: the
	// round shown, or the earlier round a run is carried from (the round
	// shown has no finished result for it); omitted without rounds.
	Round string `json:"round,omitempty"`
}

type ReportDataFile struct {
	Campaign  string    `json:"campaign"`
	Model     string    `json:"model"`
	Hardware  string    `json:"hardware"`
	Baseline  string    `json:"baseline"`
	Optimized string    `json:"optimized"`
	Runs      []RunData `json:"runs"`
	// Rounds lists every round, oldest first, when the results have
	// rounds (roundsdata.go): its headline figures and its own data
	// files; Runs is the latest round's. Changes are the change points
	// the history flags (an empty list when none).
	Rounds  []roundIndex `json:"rounds,omitempty"`
	Changes []changeData `json:"changes,omitzero"`
	// SLOms is the campaign's SLO (limits in ms, schema.SLO) when the
	// rounds list SLO answers.
	SLOms schema.SLO `json:"slo_ms,omitempty"`
}

// ReportData returns a report's data.json and data.csv: its runs'
// summaries (the latest round's, with every round listed: withRounds).
func ReportData(r *Report) ([]byte, []byte, error) {
	d, rows, err := ReportTables(r)
	if err != nil {
		return nil, nil, err
	}
	// data.json is written by the json v2 encoder with encoding/json's
	// options (HTML-safe escaping, sorted map keys, its omitempty),
	// indenting as it goes; encoding/json's Encoder indented the compact
	// text in a second pass, and with the encoding itself that was ~7 %
	// of a cold 1,000-report build. TestReportDataJSON holds the bytes to
	// encoding/json's.
	js, err := marshalDataJSON(d)
	if err != nil {
		return nil, nil, fmt.Errorf("data.json: %w", err)
	}
	return js, csvRows(rows), nil
}

// dataBufs lends the buffers data.json and data.csv are written into
// (then copied out at their size): grown by doubling for each report,
// they were a tenth of a cold build's allocations.
var dataBufs Buffers

// marshalDataJSON encodes v as encoding/json's Encoder with
// SetIndent("", "  ") does. json v2 writes invalid UTF-8 in a string as
// a literal U+FFFD where encoding/json writes the escape \ufffd, and no
// option changes that: v2 is told to reject invalid UTF-8, and a value
// holding any (or any other value v2 declines) is encoded by encoding/json
// itself, which then also words the error.
func marshalDataJSON(v any) ([]byte, error) {
	js := dataBufs.Get()
	defer dataBufs.Put(js)
	if err := jsonv2.MarshalWrite(js, v, jsonv1.DefaultOptionsV1(), jsonv2.Deterministic(true), jsontext.WithIndent("  "), jsontext.AllowInvalidUTF8(false)); err != nil {
		js.Reset()
		enc := json.NewEncoder(js)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		return bytes.Clone(js.Bytes()), nil
	}
	js.WriteByte('\n')
	return bytes.Clone(js.Bytes()), nil
}

// ReportTables returns a report's data.json value and data.csv rows.
func ReportTables(r *Report) (ReportDataFile, [][]string, error) {
	d, rows := latestTables(r)
	return withRounds(r, d, rows) // every round listed, when there are rounds (roundsdata.go)
}

// latestTables returns the data.json value and data.csv rows of a
// report's latest round.
func latestTables(r *Report) (ReportDataFile, [][]string) {
	runs := r.Runs()
	d := ReportDataFile{Campaign: r.Campaign.ID, Model: r.Campaign.Model.ID, Hardware: r.HardwareLabel(), Baseline: r.Campaign.Baseline, Optimized: r.Campaign.Optimized, Runs: make([]RunData, 0, len(runs))}
	rows := make([][]string, 0, len(runs)+1)
	header := []string{"experiment", "profile", "engine", "gpus", "status", "completed", "failed", "duration_s",
		"request_throughput_req_per_s", "output_throughput_tok_per_s", "total_token_throughput_tok_per_s",
		"mean_ttft_ms", "median_ttft_ms", "p99_ttft_ms", "mean_tpot_ms", "median_tpot_ms", "p99_tpot_ms",
		"mean_itl_ms", "median_itl_ms", "p99_itl_ms", "mean_e2el_ms", "median_e2el_ms", "p99_e2el_ms", "caveats"}
	rows = append(rows, header)
	for _, run := range runs {
		res := run.Result
		e, _ := r.Campaign.Experiment(res.Experiment)
		rd, row := runData(run, e.Engine, r.GPUs(e), len(header))
		d.Runs = append(d.Runs, rd)
		rows = append(rows, row)
	}
	return d, rows
}

// runData is a run's data.json value and data.csv row (of n columns),
// its experiment run by engine on gpus GPUs.
func runData(run *Run, engine string, gpus, n int) (RunData, []string) {
	res := run.Result
	rd := RunData{Experiment: res.Experiment, Profile: res.Profile, Engine: engine, GPUs: gpus, Status: res.Status, Error: res.Error,
		Load: res.Load, Summary: res.Summary, Caveats: site.Caveats(res), Result: res.ID, Round: run.Round}
	row := append(make([]string, 0, n), rd.Experiment, rd.Profile, rd.Engine, strconv.Itoa(rd.GPUs), string(rd.Status))
	f := func(v float64, ok bool) string {
		if !ok {
			return ""
		}
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	stat := func(row []string, st *schema.Stats) []string {
		mean, ok1 := site.StatMean(st)
		med, ok2 := site.StatMedian(st)
		p99, ok3 := st.Get(99)
		return append(row, f(mean, ok1), f(med, ok2), f(p99, ok3))
	}
	if s := res.Summary; s != nil {
		row = append(row, strconv.Itoa(s.Completed), strconv.Itoa(s.Failed), f(s.DurationS, true),
			f(s.RequestThroughput, true), f(s.OutputThroughput, true), f(s.TotalTokenThroughput, true))
		for _, st := range [...]*schema.Stats{s.TTFT, s.TPOT, s.ITL, s.E2EL} {
			row = stat(row, st)
		}
	} else {
		row = append(row, make([]string, 18)...)
	}
	row = append(row, strings.Join(rd.Caveats, "; "))
	return rd, row
}

// gpuCount spells a GPU count: "1 GPU", "8 GPUs".
func gpuCount(n int) string {
	if n == 1 {
		return "1 GPU"
	}
	return fmt.Sprintf("%d GPUs", n)
}
