package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/stats"
)

// Side is one side of a comparison: the runs read from its files.
type Side struct {
	Spec  string
	Files []string
	Runs  []*schema.Summary
	// Skipped are files left out because a perflab result of the same
	// side names them as its vLLM JSON (counted once, not twice).
	Skipped []string
	// LeftOut are perflab results of runs that did not finish (status
	// interrupted, say: a Ctrl-C'd sweep point keeps its partial run),
	// as "path (status)"; their vLLM JSON is left out with them.
	LeftOut []string
	// Mixed says what the side's runs differ in (max_concurrency, model)
	// when they are not repeats of one configuration, e.g.
	// "max_concurrency 8, 16"; empty when they agree.
	Mixed []string
}

// ReadSide reads the runs of one --compare argument: a comma-separated
// list of files or glob patterns ("a1.json,a2.json", "runs/b-*.json").
// Each file may be a perflab result JSON, a vLLM --save-result JSON (its
// steady_state object read when present), a JSON-lines file from
// --append-result (one run per line), a guidellm report or a saved text
// block; every run in it counts. A vLLM JSON that
// a perflab result of the same side names as its artifact is skipped, so
// that `dir/*.json` counts each run once.
func ReadSide(spec string) (Side, error) {
	side := Side{Spec: spec}
	seen := map[string]bool{}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return side, fmt.Errorf("compare %q: empty file name", spec)
		}
		files := []string{item}
		if strings.ContainsAny(item, "*?[") {
			m, err := filepath.Glob(item)
			if err != nil {
				return side, fmt.Errorf("compare %q: pattern %q: %v", spec, item, err)
			}
			if len(m) == 0 {
				return side, fmt.Errorf("compare %q: pattern %q matches no file", spec, item)
			}
			sort.Strings(m)
			files = m
		}
		for _, f := range files {
			if !seen[f] {
				seen[f] = true
				side.Files = append(side.Files, f)
			}
		}
	}
	type file struct {
		path    string
		runs    []*schema.Summary
		loads   []runConfig // per run
		perflab *schema.Result
	}
	var read []file
	named := map[string]bool{} // vLLM JSONs that a perflab result names
	for _, path := range side.Files {
		data, err := os.ReadFile(path)
		if err != nil {
			return side, fmt.Errorf("compare: %w", err)
		}
		f := file{path: path}
		if isPerflabResult(data) {
			r, err := schema.Unmarshal(path, data)
			if err != nil {
				return side, fmt.Errorf("compare: %w", err)
			}
			if r.Summary == nil {
				return side, fmt.Errorf("compare: %s: the run has no summary (status %s)", path, r.Status)
			}
			f.perflab, f.runs, f.loads = r, []*schema.Summary{r.Summary}, []runConfig{{r.Load, r.Model.ID}}
			if r.Status != schema.StatusOK {
				// A partial run is no repeat of a whole one.
				side.LeftOut = append(side.LeftOut, fmt.Sprintf("%s (%s)", path, r.Status))
				f.runs, f.loads = nil, nil
			}
			for _, a := range r.Artifacts {
				if a.Kind == "vllm-json" {
					named[filepath.Clean(filepath.Join(filepath.Dir(path), a.Path))] = true
				}
			}
		} else {
			entries, err := ingest.Parse(path, data)
			if err != nil {
				return side, fmt.Errorf("compare: %w", err)
			}
			for _, e := range entries {
				if e.Summary == nil {
					return side, fmt.Errorf("compare: %s:%d: a crash marker, not a run", path, e.Line)
				}
				if e.Format == ingest.FormatVLLMJSON && e.Summary.SteadyState == nil {
					ss, err := steadyStateOf(e.Raw)
					if err != nil {
						return side, fmt.Errorf("compare: %s:%d: steady_state: %v", path, e.Line, err)
					}
					e.Summary.SteadyState = ss
				}
				f.runs = append(f.runs, e.Summary)
				f.loads = append(f.loads, runConfig{e.Load, e.Model})
			}
		}
		read = append(read, f)
	}
	var loads []runConfig
	for _, f := range read {
		if f.perflab == nil && named[filepath.Clean(f.path)] {
			side.Skipped = append(side.Skipped, f.path)
			continue
		}
		side.Runs = append(side.Runs, f.runs...)
		loads = append(loads, f.loads...)
	}
	side.Mixed = mixed(loads)
	if len(side.Runs) == 0 {
		if len(side.LeftOut) > 0 {
			return side, fmt.Errorf("compare %q: no finished run found (left out: %s)", spec, strings.Join(side.LeftOut, ", "))
		}
		return side, fmt.Errorf("compare %q: no run found", spec)
	}
	return side, nil
}

// runConfig is what a run's file says about its load and model.
type runConfig struct {
	load  schema.Load
	model string // "" when the file does not name it
}

// mixed lists what a side's runs differ in: concurrency cap, request
// rate and model (a guidellm sweep read as one side differs in its rate).
func mixed(cfgs []runConfig) []string {
	var out []string
	distinct := func(name string, val func(runConfig) string) {
		var seen []string
		for _, c := range cfgs {
			if v := val(c); v != "" && !slices.Contains(seen, v) {
				seen = append(seen, v)
			}
		}
		if len(seen) > 1 {
			out = append(out, name+" "+strings.Join(seen, ", "))
		}
	}
	distinct("max_concurrency", func(c runConfig) string {
		if c.load.MaxConcurrency == 0 {
			return "none"
		}
		return strconv.Itoa(c.load.MaxConcurrency)
	})
	distinct("request_rate", func(c runConfig) string {
		if c.load.RequestRate == 0 {
			return "inf"
		}
		return FormatRate(c.load.RequestRate)
	})
	distinct("model", func(c runConfig) string { return c.model })
	return out
}

// isPerflabResult tells a perflab result (it has schema_version) from
// other JSON.
func isPerflabResult(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return false
	}
	var probe struct {
		V *int `json:"schema_version"`
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if err := dec.Decode(&probe); err != nil {
		return false
	}
	return probe.V != nil
}

// CompareRow is one metric compared.
type CompareRow struct {
	Metric Metric
	Delta  stats.Delta
}

// Compare compares every headline metric that both sides recorded in
// every run.
func Compare(old, new Side, ps []float64) []CompareRow {
	var rows []CompareRow
	for _, m := range Headline(ps) {
		a, allA := m.Values(old.Runs)
		b, allB := m.Values(new.Runs)
		if !allA || !allB || len(a) == 0 || len(b) == 0 {
			continue
		}
		rows = append(rows, CompareRow{Metric: m, Delta: stats.Compare(a, b)})
	}
	return rows
}

// WriteCompare writes the comparison benchstat's way: per metric the old
// and new mean (± CV with several runs), the change in percent, or "~"
// when the two-sided Mann-Whitney U test finds no significant difference
// (p > 0.05), with (p=… n=…+…); with too few runs to reach p ≤ 0.05 the
// change is printed with a note that it was not tested.
func WriteCompare(w io.Writer, old, new Side, ps []float64) error {
	var b strings.Builder
	b.WriteString(centre(" Comparison ", '=', 50) + "\n")
	for _, s := range []struct {
		name string
		side Side
	}{{"old", old}, {"new", new}} {
		fmt.Fprintf(&b, "%s: %s (%s from %s", s.name, s.side.Spec, plural(len(s.side.Runs), "run"), plural(len(s.side.Files)-len(s.side.Skipped)-len(s.side.LeftOut), "file"))
		if n := len(s.side.Skipped); n > 0 {
			fmt.Fprintf(&b, "; %d vLLM JSON counted through its perflab result", n)
		}
		if len(s.side.LeftOut) > 0 {
			fmt.Fprintf(&b, "; left out, not finished: %s", strings.Join(s.side.LeftOut, ", "))
		}
		b.WriteString(")\n")
		if len(s.side.Mixed) > 0 {
			fmt.Fprintf(&b, "warning: %s's runs differ in %s: not repeats of one configuration, so their spread is not noise\n", s.name, strings.Join(s.side.Mixed, "; "))
		}
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\told\tnew\tdelta\t\t")
	rows := Compare(old, new, ps)
	tested := false
	for _, r := range rows {
		d := r.Delta
		delta, note := d.DeltaText()
		tested = tested || d.Tested
		verdict := ""
		if d.Significant {
			better := d.New.Mean > d.Old.Mean
			if r.Metric.LowerBetter {
				better = !better
			}
			verdict = "worse"
			if better {
				verdict = "better"
			}
		}
		if note != "" {
			note = "(" + note + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Metric.Name, spread(d.Old), spread(d.New), delta, note, verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(&b, "old/new: mean ± CV over the runs; delta: change of the means. ~: no significant difference\n"+
		"(two-sided Mann-Whitney U test, p > %.2f); a side needs at least %d runs (or unequal counts such as 3+5)\n"+
		"before any change can be called significant, so fewer runs print the change untested.\n", stats.Alpha, stats.MinRunsPerSide)
	b.WriteString(strings.Repeat("=", 50) + "\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// spread writes a sample's mean, with "± CV%" when it has several values.
func spread(s stats.Sample) string {
	if s.N <= 1 {
		return fixed2(s.Mean)
	}
	return fixed2(s.Mean) + " ± " + strings.TrimSuffix(fmt.Sprintf("%.0f", s.CV*100), ".") + "%"
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// steadyStateOf reads vllm-bench's "steady_state" object from a vLLM JSON
// record as perflab bench writes it (schema.SteadyState's keys); nil when
// the key is absent or null.
func steadyStateOf(raw string) (*schema.SteadyState, error) {
	if !strings.Contains(raw, `"steady_state"`) {
		return nil, nil
	}
	var rec struct {
		SS *schema.SteadyState `json:"steady_state"`
	}
	if err := json.Unmarshal([]byte(raw), &rec); err != nil {
		return nil, err
	}
	return rec.SS, nil
}
