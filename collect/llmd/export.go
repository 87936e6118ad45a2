package llmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/perflab/perflab/collect/schema"
)

// Version is the report version Export writes.
const Version = "0.2"

// ReportV02 is a v0.2 benchmark report, as much of it as perflab fills.
// Field names and nesting are llm-d-benchmark's (schema_v0_2.py).
type ReportV02 struct {
	Version  string    `json:"version" yaml:"version"`
	Run      Run       `json:"run" yaml:"run"`
	Scenario *Scenario `json:"scenario,omitempty" yaml:"scenario,omitempty"`
	Results  Results   `json:"results" yaml:"results"`
}

// Run identifies the benchmark run.
type Run struct {
	UID         string   `json:"uid" yaml:"uid"`
	EID         string   `json:"eid,omitempty" yaml:"eid,omitempty"`
	Time        *RunTime `json:"time,omitempty" yaml:"time,omitempty"`
	Description string   `json:"description,omitempty" yaml:"description,omitempty"`
}

// RunTime: ISO-8601 timestamps and duration.
type RunTime struct {
	Start    string `json:"start,omitempty" yaml:"start,omitempty"`
	End      string `json:"end,omitempty" yaml:"end,omitempty"`
	Duration string `json:"duration,omitempty" yaml:"duration,omitempty"`
}

// Scenario is the stack and the workload.
type Scenario struct {
	Stack []Component `json:"stack,omitempty" yaml:"stack,omitempty"`
	Load  *Load       `json:"load,omitempty" yaml:"load,omitempty"`
}

// Component is one part of the stack; perflab writes the engine.
type Component struct {
	Metadata     ComponentMetadata `json:"metadata" yaml:"metadata"`
	Standardized InferenceEngine   `json:"standardized" yaml:"standardized"`
	Native       Native            `json:"native" yaml:"native"`
}

// ComponentMetadata names a component.
type ComponentMetadata struct {
	SchemaVersion string `json:"schema_version" yaml:"schema_version"`
	Label         string `json:"label" yaml:"label"`
	CfgID         string `json:"cfg_id" yaml:"cfg_id"`
	Description   string `json:"description,omitempty" yaml:"description,omitempty"`
}

// InferenceEngine is the standardized inference_engine component.
type InferenceEngine struct {
	Kind        string      `json:"kind" yaml:"kind"`
	Tool        string      `json:"tool" yaml:"tool"`
	ToolVersion string      `json:"tool_version" yaml:"tool_version"`
	Role        string      `json:"role" yaml:"role"`
	Replicas    int         `json:"replicas" yaml:"replicas"`
	Model       EngineModel `json:"model" yaml:"model"`
	Accelerator Accelerator `json:"accelerator" yaml:"accelerator"`
}

// EngineModel is the model served.
type EngineModel struct {
	Name string `json:"name" yaml:"name"`
}

// Accelerator is the hardware an engine used.
type Accelerator struct {
	Model       string      `json:"model" yaml:"model"`
	Count       int         `json:"count" yaml:"count"`
	Parallelism Parallelism `json:"parallelism" yaml:"parallelism"`
}

// Parallelism of an engine.
type Parallelism struct {
	TP int `json:"tp" yaml:"tp"`
	DP int `json:"dp" yaml:"dp"`
	EP int `json:"ep" yaml:"ep"`
	PP int `json:"pp" yaml:"pp"`
}

// Native holds a component's or the load's own arguments.
type Native struct {
	Args   map[string]any    `json:"args,omitempty" yaml:"args,omitempty"`
	Envars map[string]string `json:"envars,omitempty" yaml:"envars,omitempty"`
	Config any               `json:"config,omitempty" yaml:"config,omitempty"`
}

// Load is the workload.
type Load struct {
	Metadata     LoadMetadata     `json:"metadata" yaml:"metadata"`
	Standardized LoadStandardized `json:"standardized" yaml:"standardized"`
	Native       Native           `json:"native" yaml:"native"`
}

// LoadMetadata describes the workload.
type LoadMetadata struct {
	SchemaVersion string `json:"schema_version" yaml:"schema_version"`
	CfgID         string `json:"cfg_id,omitempty" yaml:"cfg_id,omitempty"`
	Description   string `json:"description,omitempty" yaml:"description,omitempty"`
}

// LoadStandardized is the workload in llm-d's terms.
type LoadStandardized struct {
	Tool         string          `json:"tool" yaml:"tool"`
	ToolVersion  string          `json:"tool_version" yaml:"tool_version"`
	Source       string          `json:"source" yaml:"source"`
	InputSeqLen  SequenceLength  `json:"input_seq_len" yaml:"input_seq_len"`
	OutputSeqLen *SequenceLength `json:"output_seq_len,omitempty" yaml:"output_seq_len,omitempty"`
	RateQPS      *float64        `json:"rate_qps,omitempty" yaml:"rate_qps,omitempty"`
	Concurrency  *int            `json:"concurrency,omitempty" yaml:"concurrency,omitempty"`
}

// SequenceLength is a length and its distribution.
type SequenceLength struct {
	Distribution string  `json:"distribution" yaml:"distribution"`
	Value        float64 `json:"value" yaml:"value"`
	Min          *int    `json:"min,omitempty" yaml:"min,omitempty"`
	Max          *int    `json:"max,omitempty" yaml:"max,omitempty"`
}

// Results holds the request performance.
type Results struct {
	RequestPerformance *RequestPerformance `json:"request_performance,omitempty" yaml:"request_performance,omitempty"`
	// Profiling is llm-d's free-form field; perflab keeps its own record
	// there (Perflab).
	Profiling *Profiling `json:"profiling,omitempty" yaml:"profiling,omitempty"`
}

// Profiling carries perflab's record of the run.
type Profiling struct {
	Perflab *schema.Result `json:"perflab" yaml:"perflab"`
}

// RequestPerformance is the aggregate request performance.
type RequestPerformance struct {
	Aggregate Aggregate `json:"aggregate" yaml:"aggregate"`
}

// Aggregate: requests, latency and throughput.
type Aggregate struct {
	Requests   Requests   `json:"requests" yaml:"requests"`
	Latency    Latency    `json:"latency" yaml:"latency"`
	Throughput Throughput `json:"throughput" yaml:"throughput"`
}

// Requests counts requests and sizes them.
type Requests struct {
	Total        int         `json:"total" yaml:"total"`
	Failures     int         `json:"failures" yaml:"failures"`
	InputLength  *Statistics `json:"input_length,omitempty" yaml:"input_length,omitempty"`
	OutputLength *Statistics `json:"output_length,omitempty" yaml:"output_length,omitempty"`
}

// Latency statistics.
type Latency struct {
	TimeToFirstToken   *Statistics `json:"time_to_first_token,omitempty" yaml:"time_to_first_token,omitempty"`
	TimePerOutputToken *Statistics `json:"time_per_output_token,omitempty" yaml:"time_per_output_token,omitempty"`
	InterTokenLatency  *Statistics `json:"inter_token_latency,omitempty" yaml:"inter_token_latency,omitempty"`
	RequestLatency     *Statistics `json:"request_latency,omitempty" yaml:"request_latency,omitempty"`
}

// Throughput statistics.
type Throughput struct {
	InputTokenRate  *Statistics `json:"input_token_rate,omitempty" yaml:"input_token_rate,omitempty"`
	OutputTokenRate *Statistics `json:"output_token_rate,omitempty" yaml:"output_token_rate,omitempty"`
	TotalTokenRate  *Statistics `json:"total_token_rate,omitempty" yaml:"total_token_rate,omitempty"`
	RequestRate     *Statistics `json:"request_rate,omitempty" yaml:"request_rate,omitempty"`
}

// Statistics is llm-d's summary of one quantity. The percentile keys are
// llm-d's (p0p1 is the 0.1th, p99p9 the 99.9th).
type Statistics struct {
	Units  string   `json:"units" yaml:"units"`
	Mean   float64  `json:"mean" yaml:"mean"`
	Stddev *float64 `json:"stddev,omitempty" yaml:"stddev,omitempty"`
	Min    *float64 `json:"min,omitempty" yaml:"min,omitempty"`
	P0p1   *float64 `json:"p0p1,omitempty" yaml:"p0p1,omitempty"`
	P1     *float64 `json:"p1,omitempty" yaml:"p1,omitempty"`
	P5     *float64 `json:"p5,omitempty" yaml:"p5,omitempty"`
	P10    *float64 `json:"p10,omitempty" yaml:"p10,omitempty"`
	P25    *float64 `json:"p25,omitempty" yaml:"p25,omitempty"`
	P50    *float64 `json:"p50,omitempty" yaml:"p50,omitempty"`
	P75    *float64 `json:"p75,omitempty" yaml:"p75,omitempty"`
	P90    *float64 `json:"p90,omitempty" yaml:"p90,omitempty"`
	P95    *float64 `json:"p95,omitempty" yaml:"p95,omitempty"`
	P99    *float64 `json:"p99,omitempty" yaml:"p99,omitempty"`
	P99p9  *float64 `json:"p99p9,omitempty" yaml:"p99p9,omitempty"`
	Max    *float64 `json:"max,omitempty" yaml:"max,omitempty"`
}

// percentileKeys maps llm-d's percentile keys to percentiles (min and
// max as the 0th and 100th).
var percentileKeys = []struct {
	key string
	p   float64
}{
	{"min", 0}, {"p0p1", 0.1}, {"p1", 1}, {"p5", 5}, {"p10", 10}, {"p25", 25}, {"p50", 50},
	{"p75", 75}, {"p90", 90}, {"p95", 95}, {"p99", 99}, {"p99p9", 99.9}, {"max", 100},
}

func (s *Statistics) slot(key string) **float64 {
	switch key {
	case "min":
		return &s.Min
	case "p0p1":
		return &s.P0p1
	case "p1":
		return &s.P1
	case "p5":
		return &s.P5
	case "p10":
		return &s.P10
	case "p25":
		return &s.P25
	case "p50":
		return &s.P50
	case "p75":
		return &s.P75
	case "p90":
		return &s.P90
	case "p95":
		return &s.P95
	case "p99":
		return &s.P99
	case "p99p9":
		return &s.P99p9
	case "max":
		return &s.Max
	}
	return nil
}

func f64(v float64) *float64 { return &v }

// statsOf writes perflab's latency stats (ms) in llm-d's form; nil when
// there is no mean (llm-d requires one).
func statsOf(st *schema.Stats, units string) *Statistics {
	if st == nil || st.MeanMs == nil {
		return nil
	}
	out := &Statistics{Units: units, Mean: *st.MeanMs}
	if st.StdMs != nil {
		out.Stddev = f64(*st.StdMs)
	}
	if st.MedianMs != nil {
		out.P50 = f64(*st.MedianMs)
	}
	for _, pc := range st.Percentiles {
		for _, k := range percentileKeys {
			if k.p == pc.P {
				if sl := out.slot(k.key); *sl == nil {
					*sl = f64(pc.ValueMs)
				}
			}
		}
	}
	return out
}

// engineTool is the engine's name as llm-d's reports write it.
func engineTool(name string) string {
	switch name {
	case "trtllm":
		return "tensorrt-llm"
	case "llamacpp":
		return "llama.cpp"
	}
	return name
}

// harnessTool is perflab's tool name as llm-d's workload generators are
// named (base.py's WorkloadGenerator), else as perflab names it.
func harnessTool(name string) string {
	switch strings.ToLower(name) {
	case "vllm bench serve", "vllm benchmark_serving":
		return "vllm-benchmark"
	case "guidellm":
		return "guidellm"
	case "inference-perf", "inferencemax", "aiperf", "nop":
		return strings.ToLower(name)
	}
	return name
}

// Export writes a perflab result as a v0.2 report. A result without a
// summary (a crashed run) has no request performance: its report has the
// run, the stack and the workload, and its results only perflab's record
// (status, error), as llm-d's schema allows.
func Export(r *schema.Result) (*ReportV02, error) {
	s := r.Summary
	if s == nil {
		s = &schema.Summary{}
	}
	rep := &ReportV02{Version: Version}
	rep.Run.UID = r.ID
	if r.Campaign != "" {
		rep.Run.UID = r.Campaign + "/" + r.ID
		rep.Run.EID = r.Campaign
	}
	rep.Run.Description = r.Label
	if r.Start != "" || r.End != "" || s.DurationS > 0 {
		rep.Run.Time = &RunTime{Start: r.Start, End: r.End}
		if s.DurationS > 0 {
			rep.Run.Time.Duration = "PT" + strconv.FormatFloat(s.DurationS, 'f', -1, 64) + "S"
		}
	}
	// The engine.
	eng := Component{
		Metadata: ComponentMetadata{SchemaVersion: "0.0.1", Label: r.Engine.Name + "-0", CfgID: cfgID(r.Engine.Command, r.Engine.Env)},
		Standardized: InferenceEngine{
			Kind: "inference_engine", Tool: engineTool(r.Engine.Name), ToolVersion: r.Engine.Version, Role: "replica", Replicas: 1,
			Model:       EngineModel{Name: r.Model.ID},
			Accelerator: Accelerator{Model: "unknown", Parallelism: parallelism(r.Engine.Command)},
		},
		Native: Native{Args: commandArgs(r.Engine.Command), Envars: r.Engine.Env},
	}
	if r.Engine.Command != "" {
		eng.Metadata.Description = r.Engine.Command
	}
	if eng.Standardized.ToolVersion == "" {
		eng.Standardized.ToolVersion = "unknown"
	}
	if eng.Standardized.Model.Name == "" {
		eng.Standardized.Model.Name = "unknown"
	}
	if hw := r.Hardware; hw != nil {
		if hw.GPUName != "" {
			eng.Standardized.Accelerator.Model = hw.GPUName
		}
		eng.Standardized.Accelerator.Count = hw.GPUCount
	}
	// The workload.
	l := r.Load
	ld := Load{Metadata: LoadMetadata{SchemaVersion: "0.0.1", Description: r.Profile}}
	ld.Standardized.Tool = harnessTool(r.Tool.Name)
	ld.Standardized.ToolVersion = r.Tool.Version
	if ld.Standardized.ToolVersion == "" {
		ld.Standardized.ToolVersion = "unknown"
	}
	switch strings.ToLower(l.Dataset) {
	case "random", "prefix_repetition":
		ld.Standardized.Source = "random"
	case "", "unknown":
		ld.Standardized.Source = "unknown"
	default:
		ld.Standardized.Source = "sampled"
	}
	in, out := l.InputLen, l.OutputLen
	ld.Standardized.InputSeqLen = seqLen(in, l.RangeRatio, s.TotalInputTokens, s.Completed)
	if out > 0 || s.Completed > 0 {
		o := seqLen(out, l.RangeRatio, s.TotalOutputTokens, s.Completed)
		ld.Standardized.OutputSeqLen = &o
	}
	if l.RequestRate > 0 && !math.IsInf(l.RequestRate, 1) {
		ld.Standardized.RateQPS = f64(l.RequestRate)
	}
	if l.MaxConcurrency > 0 {
		c := l.MaxConcurrency
		ld.Standardized.Concurrency = &c
	}
	ld.Native.Args = loadArgs(l)
	rep.Scenario = &Scenario{Stack: []Component{eng}, Load: &ld}
	// The numbers.
	agg := Aggregate{}
	agg.Requests.Total = s.Completed + s.Failed
	agg.Requests.Failures = s.Failed
	if s.Completed > 0 {
		agg.Requests.InputLength = &Statistics{Units: "count", Mean: float64(s.TotalInputTokens) / float64(s.Completed)}
		agg.Requests.OutputLength = &Statistics{Units: "count", Mean: float64(s.TotalOutputTokens) / float64(s.Completed)}
	}
	agg.Latency.TimeToFirstToken = statsOf(s.TTFT, "ms")
	agg.Latency.TimePerOutputToken = statsOf(s.TPOT, "ms/token")
	agg.Latency.InterTokenLatency = statsOf(s.ITL, "ms/token")
	agg.Latency.RequestLatency = statsOf(s.E2EL, "ms")
	if s.DurationS > 0 {
		agg.Throughput.InputTokenRate = &Statistics{Units: "tokens/s", Mean: float64(s.TotalInputTokens) / s.DurationS}
	}
	agg.Throughput.OutputTokenRate = &Statistics{Units: "tokens/s", Mean: s.OutputThroughput}
	if s.MaxOutputTokensPerS != nil {
		agg.Throughput.OutputTokenRate.Max = f64(*s.MaxOutputTokensPerS)
	}
	agg.Throughput.TotalTokenRate = &Statistics{Units: "tokens/s", Mean: s.TotalTokenThroughput}
	agg.Throughput.RequestRate = &Statistics{Units: "queries/s", Mean: s.RequestThroughput}
	if r.Summary != nil {
		rep.Results.RequestPerformance = &RequestPerformance{Aggregate: agg}
	}
	// perflab's own record: what the standard fields have no place for.
	own := *r
	own.Requests, own.RawOutput, own.Telemetry, own.Client, own.PerTurn = nil, "", nil, nil, nil
	rep.Results.Profiling = &Profiling{Perflab: &own}
	return rep, nil
}

// seqLen is a profile length (fixed, or uniform with its range ratio), or
// the run's mean when the profile gives none.
func seqLen(n int, ratio float64, total, completed int) SequenceLength {
	if n <= 0 {
		v := 0.0
		if completed > 0 {
			v = float64(total) / float64(completed)
		}
		return SequenceLength{Distribution: "other", Value: v}
	}
	if ratio > 0 {
		lo, hi := int(math.Floor(float64(n)*(1-ratio))), int(math.Ceil(float64(n)*(1+ratio)))
		if lo < 0 {
			lo = 0
		}
		if hi < 1 {
			hi = 1
		}
		return SequenceLength{Distribution: "uniform", Value: float64(n), Min: &lo, Max: &hi}
	}
	return SequenceLength{Distribution: "fixed", Value: float64(n)}
}

// loadArgs are the profile as perflab bench's (and vllm bench serve's)
// flags.
func loadArgs(l schema.Load) map[string]any {
	a := map[string]any{}
	if l.Dataset != "" {
		a["--dataset-name"] = l.Dataset
	}
	if l.DatasetPath != "" {
		a["--dataset-path"] = l.DatasetPath
	}
	if l.InputLen > 0 {
		a["--random-input-len"] = l.InputLen
	}
	if l.OutputLen > 0 {
		a["--random-output-len"] = l.OutputLen
	}
	if l.RangeRatio > 0 {
		a["--random-range-ratio"] = l.RangeRatio
	}
	if l.NumPrompts > 0 {
		a["--num-prompts"] = l.NumPrompts
	}
	if l.RequestRate > 0 {
		a["--request-rate"] = l.RequestRate
	} else {
		a["--request-rate"] = "inf"
	}
	if l.MaxConcurrency > 0 {
		a["--max-concurrency"] = l.MaxConcurrency
	}
	if l.Seed != 0 {
		a["--seed"] = l.Seed
	}
	if l.Backend != "" {
		a["--backend"] = l.Backend
	}
	if l.Endpoint != "" {
		a["--endpoint"] = l.Endpoint
	}
	return a
}

// commandArgs are a serving command's flags as llm-d's native args:
// "--flag": value (null for a switch).
func commandArgs(cmd string) map[string]any {
	f := strings.Fields(strings.ReplaceAll(cmd, "\\\n", " "))
	if len(f) == 0 {
		return nil
	}
	a := map[string]any{}
	for i := 0; i < len(f); i++ {
		x := f[i]
		if !strings.HasPrefix(x, "-") {
			continue
		}
		if k, v, ok := strings.Cut(x, "="); ok {
			a[k] = v
			continue
		}
		if i+1 < len(f) && !strings.HasPrefix(f[i+1], "-") {
			a[x] = f[i+1]
			i++
			continue
		}
		a[x] = nil
	}
	if len(a) == 0 {
		return nil
	}
	return a
}

// parallelism reads the parallel sizes of a serving command (1 where it
// sets none).
func parallelism(cmd string) Parallelism {
	p := Parallelism{TP: 1, DP: 1, EP: 1, PP: 1}
	args := commandArgs(cmd)
	get := func(names ...string) int {
		for _, n := range names {
			if v, ok := args[n]; ok {
				if s, ok := v.(string); ok {
					if i, err := strconv.Atoi(s); err == nil && i > 0 {
						return i
					}
				}
			}
		}
		return 1
	}
	p.TP = get("-tp", "--tp", "--tp-size", "--tensor-parallel-size", "--tp_size")
	p.DP = get("-dp", "--dp", "--dp-size", "--data-parallel-size")
	p.PP = get("-pp", "--pp", "--pp-size", "--pipeline-parallel-size")
	p.EP = get("--ep", "--ep-size", "--expert-parallel-size", "--ep_size")
	return p
}

// cfgID is a short hash of the engine's configuration (llm-d's cfg_id).
func cfgID(cmd string, env map[string]string) string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(k + "=" + env[k] + " ")
	}
	b.WriteString(strings.Join(strings.Fields(cmd), " "))
	return shortHash(b.String())
}

// YAML writes a report as YAML (as llm-d-benchmark's export_yaml does).
func (r *ReportV02) YAML() ([]byte, error) {
	// Through JSON first: the perflab record's own JSON names, and
	// json.RawMessage fields, as they are in its files.
	j, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("llmd: %w", err)
	}
	var v any
	if err := json.Unmarshal(j, &v); err != nil {
		return nil, fmt.Errorf("llmd: %w", err)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("llmd: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("llmd: %w", err)
	}
	return buf.Bytes(), nil
}

// JSON writes a report as indented JSON.
func (r *ReportV02) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("llmd: %w", err)
	}
	return append(b, '\n'), nil
}
