package ingest

import (
	"fmt"
	"strings"

	"github.com/perflab/perflab/collect/llmd"
	"github.com/perflab/perflab/collect/schema"
)

// FormatLLMD is llm-d-benchmark's benchmark report (v0.1, v0.2, 0.2.1;
// collect/llmd), one Entry per report.
const FormatLLMD = "llmd-report"

// reportInfo is what a benchmark report says beyond an Entry's fields:
// the engine, hardware, harness and times of the run, the names its
// experiment and profile get without a campaign, and perflab's own
// record when the report is a perflab export.
type reportInfo struct {
	engine     schema.Engine
	hardware   *schema.Hardware
	tool       schema.Tool
	start, end string
	expHint    string
	profHint   string
	own        *schema.Result
}

// parseLLMD reads a file of llm-d benchmark reports.
func parseLLMD(name string, data []byte) ([]Entry, error) {
	reps, err := llmd.Read(name, data)
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, rp := range reps {
		e := Entry{File: name, Line: rp.Line, Format: FormatLLMD, Summary: rp.Summary, Load: rp.Load, Model: rp.Model, Notes: rp.Notes}
		e.Label = rp.Description
		e.Metadata = map[string]string{"llmd_report_version": rp.Version}
		if rp.UID != "" {
			e.Metadata["llmd_run_uid"] = rp.UID
		}
		if rp.Stage > 0 {
			e.Metadata["llmd_stage"] = fmt.Sprint(rp.Stage)
		}
		info := &reportInfo{engine: rp.Engine, hardware: rp.Hardware, tool: rp.Tool, start: rp.Start, end: rp.End, own: rp.Perflab}
		model := rp.Model
		if i := strings.LastIndexByte(model, '/'); i >= 0 {
			model = model[i+1:]
		}
		key := rp.EngineKey
		if len(key) > 8 {
			key = key[:8]
		}
		info.expHint = slug(strings.TrimSpace(rp.Engine.Name + " " + model + " " + key))
		info.profHint = slug(rp.Tool.Name + " " + rp.WorkloadKey) // one harness, one workload
		if own := rp.Perflab; own != nil {
			// A perflab export: its own ids, load and numbers.
			info.expHint, info.profHint = own.Experiment, own.Profile
			e.Summary, e.Load = own.Summary, own.Load
			e.Label = own.Label
			e.Model = own.Model.ID
			info.engine = own.Engine
			info.hardware = own.Hardware
			info.tool = own.Tool
			info.start, info.end = own.Start, own.End
			e.Notes = nil
		}
		e.report = info
		out = append(out, e)
	}
	return out, nil
}

// fromReport fills a result from a benchmark report's own facts.
func fromReport(r *schema.Result, e *Entry) {
	info := e.report
	r.Tool = info.tool
	if r.Tool.Name == "" {
		r.Tool.Name = "llm-d benchmark report"
	}
	r.Engine = info.engine
	r.Hardware = info.hardware
	r.Start, r.End = info.start, info.end
	if own := info.own; own != nil {
		r.Status = own.Status
		r.Error = own.Error
		r.LogTail = own.LogTail
		r.Repeat = own.Repeat
		r.Warnings = append(r.Warnings, own.Warnings...)
		for k, v := range own.Metadata {
			if _, ok := r.Metadata[k]; !ok {
				r.Metadata[k] = v
			}
		}
		r.Metadata["llmd_exported_from"] = strings.TrimPrefix(own.Campaign+"/"+own.ID, "/")
		if r.Campaign == "" {
			r.Campaign = own.Campaign // no campaign given: the run's own
		}
		if own.ID != "" && r.ID == Key(own.Experiment, own.Profile) {
			r.ID = own.ID // a sweep point keeps its point's name
		}
	}
}
