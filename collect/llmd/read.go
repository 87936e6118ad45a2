package llmd

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/perflab/perflab/collect/schema"
)

// Report is one benchmark report read into perflab's terms.
type Report struct {
	// Line is the report's first line in its file (1-based).
	Line    int
	Version string
	// UID and Description are run.uid and run.description (v0.2).
	UID, Description string
	Start, End       string
	Engine           schema.Engine
	Model            string
	Hardware         *schema.Hardware
	Tool             schema.Tool
	Load             schema.Load
	Summary          *schema.Summary
	// Stage is the workload stage (inference-perf's stages of one run).
	Stage int
	// EngineKey and WorkloadKey name the engine configuration and the
	// workload without its rate or concurrency: reports sharing both are
	// points of one sweep.
	EngineKey, WorkloadKey string
	// Perflab is perflab's own record when the report is a perflab
	// export (results.profiling.perflab).
	Perflab *schema.Result
	// Notes are caveats that become the result's warnings.
	Notes []string
}

// Detect reports whether data looks like benchmark reports (YAML or JSON
// with a version 0.1/0.2 and its top-level sections).
func Detect(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(t) > 0 && (t[0] == '{' || t[0] == '[') {
		// Cheap first: a report names its version and its metrics or
		// results (vLLM's and guidellm's JSON do not).
		if !bytes.Contains(t, []byte(`"version"`)) || !bytes.Contains(t, []byte(`"metrics"`)) && !bytes.Contains(t, []byte(`"results"`)) {
			return false
		}
		var probe any
		dec := json.NewDecoder(bytes.NewReader(t))
		if dec.Decode(&probe) != nil {
			return false
		}
		switch v := probe.(type) {
		case map[string]any:
			return isReport(v)
		case []any:
			return len(v) > 0 && isReportAny(v[0])
		}
		return false
	}
	if !reYAMLAnyVersion.Match(data) || !reYAMLMeasured.Match(data) {
		return false
	}
	// A YAML file, not a Markdown page quoting a report: its first line
	// that is not blank, a comment or "---" is a top-level key, and its
	// first document is a report.
	for _, l := range strings.Split(string(t), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") || l == "---" {
			continue
		}
		if !reTopKey.MatchString(l) {
			return false
		}
		break
	}
	var first map[string]any
	if yaml.NewDecoder(bytes.NewReader(t)).Decode(&first) != nil {
		// A top-level version and metrics or results, but no YAML: a
		// report damaged by hand; Read says where.
		return true
	}
	if isReport(first) {
		return true
	}
	// A report of another version: Read says which (rather than "no
	// benchmark output found").
	_, v := first["version"]
	_, metrics := first["metrics"]
	_, results := first["results"]
	return v && (metrics || results)
}

var (
	reYAMLErrLine    = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	reYAMLAnyVersion = regexp.MustCompile(`(?m)^version:`)
	reYAMLMeasured   = regexp.MustCompile(`(?m)^(metrics|results):`)
)

var reTopKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*:`)

func isReportAny(v any) bool {
	m, ok := v.(map[string]any)
	return ok && isReport(m)
}

func isReport(m map[string]any) bool {
	v := fmt.Sprint(m["version"])
	if !strings.HasPrefix(v, "0.1") && !strings.HasPrefix(v, "0.2") {
		return false
	}
	_, metrics := m["metrics"]
	_, results := m["results"]
	return metrics || results
}

// Read reads the reports of one file: a YAML stream of one or several
// documents, a JSON report or a JSON array of reports. name is used in
// errors (FILE:LINE: what).
func Read(name string, data []byte) ([]Report, error) {
	var docs []map[string]any
	var lines []int
	var nodes []*yaml.Node // each document's, for the lines of its fields
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(t) > 0 && t[0] == '[' {
		var arr []map[string]any
		if err := json.Unmarshal(data, &arr); err != nil {
			return nil, fmt.Errorf("%s: llm-d benchmark reports: %w", name, err)
		}
		var arrNode yaml.Node // JSON is YAML: the items' lines
		_ = yaml.Unmarshal(data, &arrNode)
		var items []*yaml.Node
		if len(arrNode.Content) == 1 && arrNode.Content[0].Kind == yaml.SequenceNode && len(arrNode.Content[0].Content) == len(arr) {
			items = arrNode.Content[0].Content
		}
		for i := range arr {
			line := 1
			var n *yaml.Node
			if items != nil {
				n, line = items[i], items[i].Line
			}
			lines, nodes = append(lines, line), append(nodes, n)
		}
		docs = arr
	} else {
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var node yaml.Node
			err := dec.Decode(&node)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				if m := reYAMLErrLine.FindStringSubmatch(err.Error()); m != nil {
					return nil, fmt.Errorf("%s:%s: llm-d benchmark report: not YAML: %s", name, m[1], m[2])
				}
				return nil, fmt.Errorf("%s: llm-d benchmark report: %w", name, err)
			}
			var m map[string]any
			if err := node.Decode(&m); err != nil {
				return nil, fmt.Errorf("%s:%d: llm-d benchmark report: %w", name, node.Line, err)
			}
			if m == nil {
				continue // an empty document between "---" lines
			}
			docs = append(docs, m)
			lines = append(lines, max(node.Line, 1))
			nodes = append(nodes, &node)
		}
	}
	var out []Report
	for i, d := range docs {
		if !isReport(d) {
			return nil, fmt.Errorf("%s:%d: not an llm-d benchmark report: version %v, expected 0.1 or 0.2 with metrics or results", name, lines[i], d["version"])
		}
		if err := checkNumbers(nodes[i], fmt.Sprint(d["version"])); err != nil {
			var le *lineError
			if errors.As(err, &le) && le.line > 0 {
				return nil, fmt.Errorf("%s:%d: llm-d benchmark report: %w", name, le.line, err)
			}
			return nil, fmt.Errorf("%s:%d: llm-d benchmark report: %w", name, lines[i], err)
		}
		var r Report
		var err error
		if strings.HasPrefix(fmt.Sprint(d["version"]), "0.1") {
			r, err = readV01(d)
		} else {
			r, err = readV02(d)
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: llm-d benchmark report: %w", name, lines[i], err)
		}
		r.Line = lines[i]
		out = append(out, r)
	}
	return out, nil
}

// get walks nested maps: get(m, "results", "request_performance").
func get(m any, path ...string) any {
	for _, p := range path {
		mm, ok := m.(map[string]any)
		if !ok {
			return nil
		}
		m = mm[p]
	}
	return m
}

func getMap(m any, path ...string) map[string]any {
	v, _ := get(m, path...).(map[string]any)
	return v
}

func getStr(m any, path ...string) string {
	switch v := get(m, path...).(type) {
	case nil:
		return ""
	case string:
		return v
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	default:
		return fmt.Sprint(v)
	}
}

// num reads a number (int, float, a numeric string, ".inf"/"Infinity").
func num(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "inf", ".inf", "infinity", "+inf":
			return math.Inf(1), true
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		return f, err == nil
	}
	return 0, false
}

func getNum(m any, path ...string) (float64, bool) { return num(get(m, path...)) }

// unitFactor converts a Statistics' units to perflab's (ms, ms/token,
// tok/s, req/s, count).
func unitFactor(units string) (float64, error) {
	switch units {
	case "ms", "ms/token", "tokens/s", "queries/s", "count", "":
		return 1, nil
	case "s", "s/token":
		return 1000, nil
	}
	return 0, fmt.Errorf("units %q where a time, a token rate or a count was expected", units)
}

// scale multiplies v by f (1 or 1000) in decimal: the number as written
// in the report, its decimal point moved, so that 0.36 s is 360 ms and
// not 360.00000000000006.
func scale(v, f float64) float64 {
	if f == 1 || v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v * f
	}
	s := strconv.FormatFloat(v, 'e', -1, 64) // shortest: "3.6e-01"
	mant, exp, _ := strings.Cut(s, "e")
	e, err := strconv.Atoi(exp)
	if err != nil {
		return v * f
	}
	e += int(math.Round(math.Log10(f)))
	out, err := strconv.ParseFloat(mant+"e"+strconv.Itoa(e), 64)
	if err != nil {
		return v * f
	}
	return out
}

// stats reads a Statistics as perflab's stats, converted to ms.
func stats(m map[string]any, what string) (*schema.Stats, error) {
	if m == nil {
		return nil, nil
	}
	f, err := unitFactor(getStr(m, "units"))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	st := &schema.Stats{}
	if v, ok := num(m["mean"]); ok {
		st.MeanMs = f64(scale(v, f))
	}
	if v, ok := num(m["stddev"]); ok {
		st.StdMs = f64(scale(v, f))
	}
	if v, ok := num(m["p50"]); ok {
		st.MedianMs = f64(scale(v, f))
	}
	for _, k := range percentileKeys {
		if k.key == "p50" {
			continue
		}
		if v, ok := num(m[k.key]); ok {
			st.Percentiles = append(st.Percentiles, schema.Percentile{P: k.p, ValueMs: scale(v, f)})
		}
	}
	if st.MeanMs == nil && st.MedianMs == nil && len(st.Percentiles) == 0 {
		return nil, nil
	}
	return st, nil
}

// meanOf is a Statistics' mean in perflab's units, or a plain number.
func meanOf(v any) (float64, bool) {
	if m, ok := v.(map[string]any); ok {
		f, err := unitFactor(getStr(m, "units"))
		if err != nil {
			return 0, false
		}
		x, ok := num(m["mean"])
		return scale(x, f), ok
	}
	return num(v)
}

// summary builds perflab's summary from requests, latency and throughput
// sections (v0.1's metrics and v0.2's aggregate share their shape).
func (r *Report) summary(requests, latency, throughput map[string]any, duration float64, rateKeys [4]string) error {
	s := &schema.Summary{}
	total, _ := getNum(requests, "total")
	fail, _ := getNum(requests, "failures")
	inc, _ := getNum(requests, "incomplete")
	s.Failed = int(fail + inc)
	s.Completed = int(total) - s.Failed
	if s.Completed < 0 {
		return fmt.Errorf("requests: %v failures and %v incomplete of %v in total", fail, inc, total)
	}
	if inc > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d incomplete requests are counted as failed", int(inc)))
	}
	if v, ok := meanOf(requests["input_length"]); ok {
		s.TotalInputTokens = int(math.Round(v * float64(s.Completed)))
	}
	if v, ok := meanOf(requests["output_length"]); ok {
		s.TotalOutputTokens = int(math.Round(v * float64(s.Completed)))
	}
	if requests["input_length"] != nil || requests["output_length"] != nil {
		r.Notes = append(r.Notes, "token totals are the report's mean lengths × completed requests")
	}
	in, okIn := meanOf(throughput[rateKeys[0]])
	out, okOut := meanOf(throughput[rateKeys[1]])
	tot, okTot := meanOf(throughput[rateKeys[2]])
	rps, okRPS := meanOf(throughput[rateKeys[3]])
	s.RequestThroughput = rps
	if m, ok := throughput[rateKeys[1]].(map[string]any); ok {
		if v, ok := num(m["max"]); ok {
			s.MaxOutputTokensPerS = f64(v)
		}
	}
	s.DurationS = duration
	if s.DurationS <= 0 && okRPS && rps > 0 {
		s.DurationS = float64(s.Completed) / rps
		r.Notes = append(r.Notes, "duration derived from completed requests ÷ request rate (the report states none)")
	}
	// A report without an output token rate: the output tokens over the
	// duration (it read as 0 tok/s, and the total as the input rate alone).
	if !okOut && s.DurationS > 0 && s.TotalOutputTokens > 0 {
		out, okOut = float64(s.TotalOutputTokens)/s.DurationS, true
		r.Notes = append(r.Notes, "output token throughput derived from output tokens ÷ duration (the report states none)")
	}
	s.OutputThroughput = out
	s.TotalTokenThroughput = tot
	if !okTot && okIn && okOut {
		s.TotalTokenThroughput = in + out
	}
	var err error
	if s.TTFT, err = stats(getMap(latency, "time_to_first_token"), "time_to_first_token"); err != nil {
		return err
	}
	if s.TPOT, err = stats(getMap(latency, "time_per_output_token"), "time_per_output_token"); err != nil {
		return err
	}
	if s.ITL, err = stats(getMap(latency, "inter_token_latency"), "inter_token_latency"); err != nil {
		return err
	}
	if s.E2EL, err = stats(getMap(latency, "request_latency"), "request_latency"); err != nil {
		return err
	}
	if latency["normalized_time_per_output_token"] != nil {
		r.Notes = append(r.Notes, "the report's normalized time per output token (NTPOT) has no perflab field: not imported")
	}
	r.Summary = s
	return nil
}

// readV02 reads a v0.2 (or 0.2.1) report.
func readV02(d map[string]any) (Report, error) {
	r := Report{Version: getStr(d, "version"), UID: getStr(d, "run", "uid"), Description: getStr(d, "run", "description")}
	r.Start, r.End = getStr(d, "run", "time", "start"), getStr(d, "run", "time", "end")
	duration := isoDuration(getStr(d, "run", "time", "duration"))
	if duration <= 0 {
		duration = spanS(r.Start, r.End)
	}
	// perflab's own record, when the report is a perflab export.
	if p := get(d, "results", "profiling", "perflab"); p != nil {
		b, err := json.Marshal(p)
		if err == nil {
			var own schema.Result
			if json.Unmarshal(b, &own) == nil && own.ID != "" {
				r.Perflab = &own
			}
		}
	}
	agg := getMap(d, "results", "request_performance", "aggregate")
	if agg == nil {
		if r.Perflab != nil && r.Perflab.Summary == nil {
			return r, nil // a perflab run without numbers (crashed): its record says so
		}
		return r, errors.New("results.request_performance.aggregate is missing: no request performance to import")
	}
	if err := r.summary(getMap(agg, "requests"), getMap(agg, "latency"), getMap(agg, "throughput"), duration,
		[4]string{"input_token_rate", "output_token_rate", "total_token_rate", "request_rate"}); err != nil {
		return r, fmt.Errorf("results.request_performance.aggregate: %w", err)
	}
	// The engine: the first inference_engine of the stack.
	stack, _ := get(d, "scenario", "stack").([]any)
	for _, c := range stack {
		if getStr(c, "standardized", "kind") != "inference_engine" {
			continue
		}
		r.Engine.Name = engineName(getStr(c, "standardized", "tool"))
		r.Engine.Version = getStr(c, "standardized", "tool_version")
		r.Engine.Command = getStr(c, "metadata", "description")
		if !strings.Contains(r.Engine.Command, " ") || !strings.HasPrefix(strings.TrimSpace(r.Engine.Command), r.Engine.Name) {
			r.Engine.Command = "" // a description, not a command line
		}
		r.Model = getStr(c, "standardized", "model", "name")
		cnt, _ := getNum(c, "standardized", "accelerator", "count")
		r.Hardware = &schema.Hardware{GPUName: getStr(c, "standardized", "accelerator", "model"), GPUCount: int(cnt)}
		if envs := getMap(c, "native", "envars"); len(envs) > 0 {
			r.Engine.Env = map[string]string{}
			for k, v := range envs {
				r.Engine.Env[k] = fmt.Sprint(v)
			}
		}
		r.EngineKey = getStr(c, "metadata", "cfg_id")
		if r.EngineKey == "" {
			r.EngineKey = shortHash(canon(getMap(c, "native")) + canon(getMap(c, "standardized")))
		}
		break
	}
	// The workload.
	ls := getMap(d, "scenario", "load", "standardized")
	r.Tool = schema.Tool{Name: getStr(ls, "tool"), Version: getStr(ls, "tool_version")}
	switch getStr(ls, "source") {
	case "random":
		r.Load.Dataset = "random"
	case "sampled":
		r.Load.Dataset = "sampled"
		if t := getStr(d, "scenario", "load", "native", "config", "data", "type"); t != "" {
			r.Load.Dataset = t
		}
	default:
		r.Load.Dataset = "unknown"
	}
	// A length of distribution "other" is no setting of the workload
	// (perflab writes the run's mean there when its profile gives none).
	if v, ok := getNum(ls, "input_seq_len", "value"); ok && getStr(ls, "input_seq_len", "distribution") != "other" {
		r.Load.InputLen = int(math.Round(v))
	}
	if v, ok := getNum(ls, "output_seq_len", "value"); ok && getStr(ls, "output_seq_len", "distribution") != "other" {
		r.Load.OutputLen = int(math.Round(v))
	}
	if getStr(ls, "input_seq_len", "distribution") == "uniform" && r.Load.InputLen > 0 {
		if hi, ok := getNum(ls, "input_seq_len", "max"); ok {
			r.Load.RangeRatio = (hi - float64(r.Load.InputLen)) / float64(r.Load.InputLen)
		}
	}
	if v, ok := getNum(ls, "rate_qps"); ok && !math.IsInf(v, 1) {
		r.Load.RequestRate = v
	}
	if v, ok := getNum(ls, "concurrency"); ok && !math.IsInf(v, 1) {
		r.Load.MaxConcurrency = int(v)
	}
	if v, ok := getNum(ls, "stage"); ok {
		r.Stage = int(v)
	}
	r.Load.NumPrompts = r.Summary.Completed + r.Summary.Failed
	r.Load.Command = nativeArgs(getMap(d, "scenario", "load", "native", "args"), r.Tool.Name)
	r.WorkloadKey = fmt.Sprintf("%s-%d-%d", r.Load.Dataset, r.Load.InputLen, r.Load.OutputLen)
	return r, nil
}

// epochTime is a v0.1 report's time (UTC seconds since the epoch) as
// RFC 3339, to the digits the report printed: 1761840041.25 is …:41.25Z.
// (sec*1e9 in float64 is past 2^53 and came out as …:41.249999872Z.)
func epochTime(sec float64) string {
	whole, frac, _ := strings.Cut(strconv.FormatFloat(sec, 'f', -1, 64), ".")
	s, _ := strconv.ParseInt(whole, 10, 64)
	frac = (frac + "000000000")[:9]
	ns, _ := strconv.ParseInt(frac, 10, 64)
	return time.Unix(s, ns).UTC().Format(time.RFC3339Nano)
}

// readV01 reads a v0.1 report.
func readV01(d map[string]any) (Report, error) {
	r := Report{Version: getStr(d, "version"), Description: getStr(d, "scenario", "description")}
	met := getMap(d, "metrics")
	duration, _ := getNum(met, "time", "duration")
	if st, ok := getNum(met, "time", "start"); ok && st > 0 {
		r.Start = epochTime(st)
	}
	if en, ok := getNum(met, "time", "stop"); ok && en > 0 {
		r.End = epochTime(en)
	}
	if err := r.summary(getMap(met, "requests"), getMap(met, "latency"), getMap(met, "throughput"), duration,
		[4]string{"input_tokens_per_sec", "output_tokens_per_sec", "total_tokens_per_sec", "requests_per_sec"}); err != nil {
		return r, fmt.Errorf("metrics: %w", err)
	}
	engines, _ := get(d, "scenario", "platform", "engine").([]any)
	if len(engines) > 0 {
		e := engines[0]
		r.Engine.Name = engineName(getStr(e, "name"))
		r.Engine.Version = getStr(e, "version")
		r.EngineKey = shortHash(canon(e))
	}
	if len(engines) > 1 {
		r.Notes = append(r.Notes, fmt.Sprintf("the report's stack has %d engine instances (prefill/decode or replicas): the first one's name and version are kept", len(engines)))
	}
	r.Model = getStr(d, "scenario", "model", "name")
	accs, _ := get(d, "scenario", "host", "accelerator").([]any)
	if len(accs) > 0 {
		total := 0
		for _, a := range accs {
			c, _ := getNum(a, "count")
			total += int(c)
		}
		r.Hardware = &schema.Hardware{GPUName: getStr(accs[0], "model"), GPUCount: total}
	}
	ld := getMap(d, "scenario", "load")
	r.Tool = schema.Tool{Name: getStr(ld, "name")}
	args := getMap(ld, "args")
	for _, k := range []string{"request_rate", "rate", "qps", "qps_values"} {
		if v, ok := num(args[k]); ok && v > 0 && !math.IsInf(v, 1) {
			r.Load.RequestRate = v
			break
		}
	}
	for _, k := range []string{"max_concurrency", "concurrency"} {
		if v, ok := num(args[k]); ok && v > 0 && !math.IsInf(v, 1) {
			r.Load.MaxConcurrency = int(v)
			break
		}
	}
	r.Load.Dataset = "unknown"
	if t := getStr(ld, "type"); t != "" {
		r.Load.Dataset = t
	}
	r.Load.NumPrompts = r.Summary.Completed + r.Summary.Failed
	r.Load.Command = nativeArgs(args, r.Tool.Name)
	r.WorkloadKey = r.Load.Dataset
	return r, nil
}

// engineName is perflab's name of an engine llm-d's reports name.
func engineName(tool string) string {
	t := strings.ToLower(strings.TrimSpace(tool))
	switch {
	case t == "tensorrt-llm" || t == "trt-llm" || t == "trtllm":
		return "trtllm"
	case t == "llama.cpp":
		return "llamacpp"
	case t == "":
		return "external"
	}
	return t
}

// nativeArgs writes a harness's native arguments as one line, sorted
// ("inference-perf num_users=15 qps_values=1.34"), for the record.
func nativeArgs(args map[string]any, tool string) string {
	if len(args) == 0 {
		return ""
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := []string{tool}
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%v", k, args[k]))
	}
	return strings.TrimSpace(strings.Join(parts, " "))
}

// canon is a map written with sorted keys (for hashing).
func canon(v any) string {
	b, _ := json.Marshal(v) // encoding/json sorts map keys
	return string(b)
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

var reISODuration = regexp.MustCompile(`^P(?:(\d+(?:\.\d+)?)D)?T?(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?$`)

// isoDuration reads an ISO-8601 duration ("PT49.97S", "PT1H2M3S") in
// seconds; 0 when absent or unreadable.
func isoDuration(s string) float64 {
	m := reISODuration.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0
	}
	total := 0.0
	for i, mult := range []float64{86400, 3600, 60, 1} {
		if m[i+1] != "" {
			v, _ := strconv.ParseFloat(m[i+1], 64)
			total += v * mult
		}
	}
	return total
}

// spanS is end − start in seconds (0 when either is missing).
func spanS(start, end string) float64 {
	a, err1 := time.Parse(time.RFC3339Nano, start)
	b, err2 := time.Parse(time.RFC3339Nano, end)
	if err1 != nil || err2 != nil || !b.After(a) {
		return 0
	}
	return b.Sub(a).Seconds()
}
