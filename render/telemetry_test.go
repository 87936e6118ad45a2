package render

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/blocks"
)

// setTelemetry gives the result in results/sw/name.json telemetry t.
func setTelemetry(t *testing.T, results, name string, tel *schema.Telemetry) {
	t.Helper()
	p := filepath.Join(results, "sw", name+".json")
	r, err := schema.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	r.Telemetry = tel
	if err := schema.WriteFile(p, r); err != nil {
		t.Fatal(err)
	}
}

// twoGPUs is three ticks of two GPUs, every value different.
func twoGPUs() *schema.Telemetry {
	tel := &schema.Telemetry{Available: true, IntervalS: 0.5, EnergyJ: []float64{900, 700}, TotalEnergyJ: 1600}
	for i, ts := range []float64{0, 0.5, 1} {
		f := float64(i)
		tel.Samples = append(tel.Samples,
			schema.GPUSample{TimeS: ts, GPU: 0, UtilPct: 50 + 20*f, MemUsedMiB: 40960 + 10240*f, PowerW: 300 + 200*f, SMClockMHz: 1980 - 10*f, MemClockMHz: 2619, TempC: 50},
			schema.GPUSample{TimeS: ts, GPU: 1, UtilPct: 10 + 20*f, MemUsedMiB: 20480 + 512*f, PowerW: 100 + 50*f, SMClockMHz: 1410, MemClockMHz: 1593 + f, TempC: 40})
	}
	return tel
}

// chartOption returns the decoded option of the chart with id prefix
// chart-<kind>- on page html (the first one).
func chartOption(t *testing.T, html, kind string) (opt struct {
	Title  []struct{ Text string }
	Series []struct {
		Name string
		Data []struct {
			Name  string
			Value [2]float64
		}
	}
}) {
	t.Helper()
	m := regexp.MustCompile(`<script type="application/json" id="chart-` + kind + `-\d+-option">(.*?)</script>`).FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("page has no %s chart", kind)
	}
	if err := json.Unmarshal([]byte(m[1]), &opt); err != nil {
		t.Fatalf("%s chart option: %v", kind, err)
	}
	return opt
}

// TestTelemetryBlockChart: the block draws utilization, memory used,
// power and both clocks of every GPU over the run's time, with the
// sampled values, under a summary line.
func TestTelemetryBlockChart(t *testing.T) {
	content, results := sweepSite(t, 1, 0, "```perflab\nblock: telemetry\n```\n")
	setTelemetry(t, results, "fast--chat--c64", twoGPUs())
	html := buildPage(t, content, results)
	opt := chartOption(t, html, "telemetry")
	var titles []string
	for _, ti := range opt.Title {
		titles = append(titles, ti.Text)
	}
	if got, want := strings.Join(titles, " | "), "GPU utilization (%) | GPU memory used (GiB) | GPU power (W) | Clocks (MHz)"; got != want {
		t.Errorf("panels %q, want %q", got, want)
	}
	// Series name → its (t, value) points.
	want := map[string][][2]float64{
		"GPU 0 utilization (%)":    {{0, 50}, {0.5, 70}, {1, 90}},
		"GPU 1 utilization (%)":    {{0, 10}, {0.5, 30}, {1, 50}},
		"GPU 0 memory used (GiB)":  {{0, 40}, {0.5, 50}, {1, 60}},
		"GPU 1 memory used (GiB)":  {{0, 20}, {0.5, 20.5}, {1, 21}},
		"GPU 0 power (W)":          {{0, 300}, {0.5, 500}, {1, 700}},
		"GPU 1 power (W)":          {{0, 100}, {0.5, 150}, {1, 200}},
		"GPU 0 SM clock (MHz)":     {{0, 1980}, {0.5, 1970}, {1, 1960}},
		"GPU 1 SM clock (MHz)":     {{0, 1410}, {0.5, 1410}, {1, 1410}},
		"GPU 0 memory clock (MHz)": {{0, 2619}, {0.5, 2619}, {1, 2619}},
		"GPU 1 memory clock (MHz)": {{0, 1593}, {0.5, 1594}, {1, 1595}},
	}
	if len(opt.Series) != len(want) {
		t.Errorf("%d series, want %d", len(opt.Series), len(want))
	}
	for _, s := range opt.Series {
		pts, ok := want[s.Name]
		if !ok {
			t.Errorf("unexpected series %q", s.Name)
			continue
		}
		var got [][2]float64
		for _, d := range s.Data {
			got = append(got, d.Value)
		}
		if len(got) != len(pts) {
			t.Errorf("%s: points %v, want %v", s.Name, got, pts)
			continue
		}
		for i := range pts {
			if got[i] != pts[i] {
				t.Errorf("%s: points %v, want %v", s.Name, got, pts)
				break
			}
		}
	}
	if tip := opt.Series[4].Data[2].Name; tip != "1.00 s · 700.00 W" {
		t.Errorf("power tooltip %q", tip)
	}
	// Means over the six samples: power (300+500+700+100+150+200)/6.
	for _, s := range []string{
		`GPU telemetry per GPU: mean power 325.00 W (peak 700.00 W), peak memory used 60.00 GiB, mean utilization 50.00%, energy 1,600.00 J (all 2 GPUs).`,
		`GPU telemetry: Fast / Chat @ concurrency 64`,
		`(sampled every 0.5 s)`,
	} {
		if !strings.Contains(html, s) {
			t.Errorf("page lacks %q", s)
		}
	}
}

// TestTelemetryBlockNoSamples: a run without samples gets one sentence,
// with the sampler's reason when it gave one.
func TestTelemetryBlockNoSamples(t *testing.T) {
	content, results := sweepSite(t, 1, 0, "```perflab\nblock: telemetry\nexperiment: wide\n```\n\n```perflab\nblock: telemetry\nexperiment: wide\npoint: c8\n```\n")
	setTelemetry(t, results, "wide--chat--c8", &schema.Telemetry{Warning: "gpu telemetry unavailable: nvml init: ERROR_LIBRARY_NOT_FOUND"})
	html := buildPage(t, content, results)
	for _, s := range []string{
		`<p class="telemetry">No GPU telemetry for Wide / Chat @ concurrency 64: it was collected without the GPU sampler.</p>`,
		`<p class="telemetry">No GPU telemetry for Wide / Chat @ concurrency 8: gpu telemetry unavailable: nvml init: ERROR_LIBRARY_NOT_FOUND.</p>`,
	} {
		if !strings.Contains(html, s) {
			t.Errorf("page lacks %q", s)
		}
	}
	if strings.Contains(html, "chart-telemetry-") {
		t.Errorf("a chart drawn for runs without samples")
	}
}

// TestTelemetrySkeleton: a page that places no block gets the telemetry
// chart under the optimized experiment's section when some run has
// samples, and nothing when none has.
func TestTelemetrySkeleton(t *testing.T) {
	content, results := sweepSite(t, 1, 0, "")
	if html := buildPage(t, content, results); strings.Contains(html, "GPU telemetry") {
		t.Errorf("skeleton shows telemetry for a report without samples")
	}
	// Samples on the baseline's run only: the optimized experiment's
	// section says it has none.
	setTelemetry(t, results, "wide--chat--c64", twoGPUs())
	html := buildPage(t, content, results)
	sec := strings.Index(html, `<h4 id="fast"`)
	note := strings.Index(html, `No GPU telemetry for Fast / Chat @ concurrency 64`)
	if sec < 0 || note < sec {
		t.Errorf("the optimized experiment's section (at %d) lacks the telemetry sentence (at %d)", sec, note)
	}
	setTelemetry(t, results, "fast--chat--c64", twoGPUs())
	html = buildPage(t, content, results)
	sec = strings.Index(html, `<h4 id="fast"`)
	chart := strings.Index(html, `id="chart-telemetry-`)
	if sec < 0 || chart < sec || strings.Count(html, `data-chart="chart-telemetry-`) != 1 {
		t.Errorf("telemetry chart at %d (%d of them), want one, after the optimized experiment's heading at %d", chart, strings.Count(html, `data-chart="chart-telemetry-`), sec)
	}
}

// TestTelemetryBlockErrors: a misspelt key or a point without a result is
// an error naming the file and line.
func TestTelemetryBlockErrors(t *testing.T) {
	for _, tc := range []struct{ block, want string }{
		{"block: telemetry\npiont: c8", `sw/index.md:7: unknown field "piont" in perflab block (keys: block, metric, experiment, profile, step, title, point) (did you mean point?)`},
		{"block: telemetry\npoint: c9", `sw/index.md:7: block telemetry: field point: experiment "fast" has no result at point "c9" on profile "chat" (its points: `},
		{"block: telemetri", `did you mean telemetry?`},
	} {
		content, results := sweepSite(t, 1, 0, "```perflab\n"+tc.block+"\n```\n")
		err := Build(context.Background(), Options{Content: content, Results: results, Out: filepath.Join(t.TempDir(), "o")})
		if err == nil || !strings.Contains(filepath.ToSlash(err.Error()), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.block, err, tc.want)
		}
	}
}

// TestTelemetryBlockThinned: a long run's chart draws at most
// blocks.MaxTelemetryPoints (+ the last) of each GPU's samples, first and last
// among them, and says so; the summary is over every sample.
func TestTelemetryBlockThinned(t *testing.T) {
	content, results := sweepSite(t, 1, 0, "```perflab\nblock: telemetry\n```\n")
	tel := &schema.Telemetry{Available: true, IntervalS: 0.1}
	const n = 2000
	for i := 0; i < n; i++ {
		tel.Samples = append(tel.Samples, schema.GPUSample{TimeS: float64(i) / 10, GPU: 0, UtilPct: 50, MemUsedMiB: 1024, PowerW: float64(100 + i%7), SMClockMHz: 1980, MemClockMHz: 2619})
	}
	tel.Samples[n-1].PowerW = 999 // the peak, on the last sample
	setTelemetry(t, results, "fast--chat--c64", tel)
	html := buildPage(t, content, results)
	opt := chartOption(t, html, "telemetry")
	for _, s := range opt.Series {
		if len(s.Data) > blocks.MaxTelemetryPoints+1 || len(s.Data) < blocks.MaxTelemetryPoints/2 {
			t.Errorf("%s: %d points drawn of %d samples", s.Name, len(s.Data), n)
		}
		if first, last := s.Data[0].Value[0], s.Data[len(s.Data)-1].Value[0]; first != 0 || last != float64(n-1)/10 {
			t.Errorf("%s: drawn from %v s to %v s, want 0 to %v", s.Name, first, last, float64(n-1)/10)
		}
	}
	if !strings.Contains(html, "of each GPU&#39;s samples drawn") && !strings.Contains(html, "of each GPU's samples drawn") {
		t.Error("the caption does not say the samples were thinned")
	}
	if !strings.Contains(html, "peak 999.00 W") {
		t.Error("the summary is not over every sample")
	}
}
