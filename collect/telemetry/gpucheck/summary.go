package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/schema"
)

// Exit statuses (documented in README's testing section).
const (
	exitOK    = 0
	exitFail  = 1
	exitNoGPU = 2
)

// checker accumulates the summary and its failures.
type checker struct {
	w     io.Writer
	dir   string
	fails []string
}

func (c *checker) printf(format string, a ...any) { fmt.Fprintf(c.w, format, a...) }

func (c *checker) fail(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	c.fails = append(c.fails, msg)
	c.printf("  FAIL %s\n", msg)
}

func (c *checker) ok(format string, a ...any) { c.printf("  ok   "+format+"\n", a...) }

// read returns DIR/name's text and whether it exists.
func (c *checker) read(name string) (string, bool) {
	b, err := os.ReadFile(filepath.Join(c.dir, name))
	return string(b), err == nil
}

// rc returns the exit status a step recorded, -1 when it did not run.
func (c *checker) rc(name string) int {
	s, ok := c.read(name)
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return -1
	}
	return n
}

// summarize writes the summary of the check recorded in dir and returns
// the exit status.
func summarize(w io.Writer, dir string) int {
	c := &checker{w: w, dir: dir}
	gpus, _ := c.read("gpu.txt")
	n := strings.Count(gpus, "GPU ")
	if c.rc("gpu.rc") != 0 || n == 0 {
		c.printf("\nNOT RUN: this machine has no NVIDIA GPU that nvidia-smi can see.\n")
		if line := firstLine(gpus); line != "" {
			c.printf("  nvidia-smi: %s\n", line)
		}
		if e, ok := c.read("gpu-info.err"); ok && strings.TrimSpace(e) != "" {
			c.printf("  perflab collect --gpu-info: %s\n", firstLine(e))
		}
		c.printf("Nothing was checked: the NVML sampler, the sampled mock campaign and the client\n" +
			"benchmark at 1,024 and 4,096 streams need a machine with NVIDIA GPUs. Exit status 2.\n")
		return exitNoGPU
	}
	c.printf("\nMachine: %d NVIDIA GPU(s)\n", n)
	for _, l := range strings.Split(strings.TrimSpace(gpus), "\n") {
		c.printf("  %s\n", strings.TrimSpace(l))
	}

	c.printf("\n1. perflab builds\n")
	switch c.rc("build.rc") {
	case 0:
		c.ok("go build ./cmd/perflab")
	case -1:
		c.fail("not run")
	default:
		c.fail("go build failed (exit %d)", c.rc("build.rc"))
	}

	c.printf("\n2. perflab collect --gpu-info\n")
	c.gpuInfo()

	c.printf("\n3. Mock campaign with the NVML sampler on\n")
	c.campaign()

	c.printf("\n4. Client benchmark (BenchmarkClientEfficiency), beside the floor reader\n")
	c.bench()

	if len(c.fails) == 0 {
		c.printf("\nPASS: every check passed.\n")
		return exitOK
	}
	c.printf("\nFAIL: %d check(s) failed:\n", len(c.fails))
	for _, f := range c.fails {
		c.printf("  - %s\n", f)
	}
	return exitFail
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// gpuInfo checks what --gpu-info printed.
func (c *checker) gpuInfo() {
	rc := c.rc("gpu-info.rc")
	if rc == -1 {
		c.fail("perflab collect --gpu-info: not run")
		return
	}
	if rc != 0 {
		e, _ := c.read("gpu-info.err")
		c.fail("perflab collect --gpu-info: exit %d: %s", rc, firstLine(e))
		return
	}
	data, _ := c.read("gpu-info.json")
	var info struct {
		Hardware  schema.Hardware   `json:"hardware"`
		Telemetry *schema.Telemetry `json:"telemetry_1s"`
	}
	if err := json.Unmarshal([]byte(data), &info); err != nil {
		c.fail("gpu-info.json: %v", err)
		return
	}
	hw := info.Hardware
	if len(hw.GPUs) == 0 {
		c.fail("the inventory lists no GPU")
	} else {
		c.ok("inventory: %d × %s, driver %s, CUDA %s", len(hw.GPUs), hw.GPUs[0].Name, hw.DriverVersion, hw.CUDAVersion)
	}
	c.telemetry("one second of samples", []*schema.Telemetry{info.Telemetry}, false)
}

// field is a sampled quantity and whether a working GPU reports it above
// zero (utilisation may be 0 on an idle GPU; power, memory in use and
// clocks may not).
var fields = []struct {
	name, unit string
	get        func(schema.GPUSample) float64
	positive   bool
}{
	{"power", "W", func(s schema.GPUSample) float64 { return s.PowerW }, true},
	{"memory used", "MiB", func(s schema.GPUSample) float64 { return s.MemUsedMiB }, true},
	{"utilization", "%", func(s schema.GPUSample) float64 { return s.UtilPct }, false},
	{"SM clock", "MHz", func(s schema.GPUSample) float64 { return s.SMClockMHz }, true},
	{"memory clock", "MHz", func(s schema.GPUSample) float64 { return s.MemClockMHz }, true},
}

// telemetry checks that tels hold samples of every field (and energy when
// energy is set), and prints their ranges.
func (c *checker) telemetry(what string, tels []*schema.Telemetry, energy bool) {
	var samples []schema.GPUSample
	var joules []float64
	for i, t := range tels {
		if t == nil || !t.Available {
			warn := "no telemetry"
			if t != nil && t.Warning != "" {
				warn = t.Warning
			}
			c.fail("%s: #%d: %s", what, i+1, warn)
			continue
		}
		samples = append(samples, t.Samples...)
		joules = append(joules, t.TotalEnergyJ)
	}
	if len(samples) == 0 {
		c.fail("%s: no samples", what)
		return
	}
	c.ok("%s: %d samples", what, len(samples))
	for _, f := range fields {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range samples {
			v := f.get(s)
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		switch {
		case f.positive && hi <= 0:
			c.fail("%s: %s is never above 0 (recorded as 0: not read)", what, f.name)
		case lo < 0 || math.IsNaN(lo):
			c.fail("%s: %s out of range (%g–%g %s)", what, f.name, lo, hi, f.unit)
		default:
			c.ok("  %-13s %s–%s %s", f.name, num(lo), num(hi), f.unit)
		}
	}
	if energy {
		sort.Float64s(joules)
		if len(joules) == 0 || joules[0] <= 0 {
			c.fail("%s: a run has no energy (total_energy_j)", what)
		} else {
			c.ok("  %-13s %s–%s J a run", "energy", num(joules[0]), num(joules[len(joules)-1]))
		}
	}
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// pageSigns are what a report page says where it draws a quantity: the
// SLO table's tokens-per-joule column for energy, and for the others the
// telemetry block's output (render/blocks/telemetry.go), which the generated
// skeleton places under the optimized experiment once a run has samples:
// its summary line, its chart, and the chart's series of GPU 0 (the one
// the mock campaign samples).
var pageSigns = []struct {
	what string
	re   *regexp.Regexp
}{
	{"energy (tokens per joule)", regexp.MustCompile(`(?i)tokens per joule`)},
	{"the telemetry summary", regexp.MustCompile(`<p class="telemetry">GPU telemetry[^<]*: mean power [\d,.]+ W`)},
	{"the telemetry chart", regexp.MustCompile(`data-chart="chart-telemetry-\d+-option"`)},
	{"power", regexp.MustCompile(`"name":"GPU 0 power \(W\)"`)},
	{"memory used", regexp.MustCompile(`"name":"GPU 0 memory used \(GiB\)"`)},
	{"utilization", regexp.MustCompile(`"name":"GPU 0 utilization \(%\)"`)},
	{"clocks", regexp.MustCompile(`"name":"GPU 0 SM clock \(MHz\)"[\s\S]*"name":"GPU 0 memory clock \(MHz\)"`)},
}

// campaign checks the sampled mock campaign's results and its page.
func (c *checker) campaign() {
	rc := c.rc("collect.rc")
	if rc == -1 {
		c.fail("mock campaign: not run")
		return
	}
	if rc != 0 {
		log, _ := c.read("collect.log")
		c.fail("perflab collect: exit %d: %s", rc, lastLine(log))
	}
	files, _ := filepath.Glob(filepath.Join(c.dir, "results", "*", "*.json"))
	var tels []*schema.Telemetry
	okRuns := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			c.fail("%v", err)
			continue
		}
		r, err := schema.Unmarshal(f, data)
		if err != nil {
			c.fail("%v", err)
			continue
		}
		if r.Status == schema.StatusOK {
			okRuns++
		}
		tels = append(tels, r.Telemetry)
	}
	if len(files) == 0 {
		c.fail("no result written")
		return
	}
	c.ok("%d results, %d ok", len(files), okRuns)
	if okRuns < len(files) {
		c.fail("%d of %d runs did not end ok", len(files)-okRuns, len(files))
	}
	c.telemetry("results' telemetry", tels, true)

	pages, _ := filepath.Glob(filepath.Join(c.dir, "site", "gpu-check", "*", "index.html"))
	if c.rc("site.rc") != 0 || len(pages) == 0 {
		c.fail("the report page was not built (perflab build exit %d)", c.rc("site.rc"))
		return
	}
	html, _ := os.ReadFile(pages[0])
	rel, _ := filepath.Rel(c.dir, pages[0])
	for _, s := range pageSigns {
		if s.re.Match(html) {
			c.ok("page %s draws %s", rel, s.what)
		} else {
			c.fail("page %s does not draw %s", rel, s.what)
		}
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// benchLine is one line of go test -bench output: the case's name, then
// value–unit pairs.
var benchLine = regexp.MustCompile(`^BenchmarkClientEfficiency/streams=(\d+)/client=([\w-]+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// benchMetrics are the metrics shown, in order.
var benchMetrics = []string{"cpu-us/event", "reads/event", "ttft-excess-ms", "itl-p99-ms", "server-late-p99-ms"}

// bench checks and tabulates the client benchmark.
func (c *checker) bench() {
	rc := c.rc("bench.rc")
	text, ok := c.read("bench.txt")
	if !ok {
		c.fail("client benchmark: not run")
		return
	}
	if rc != 0 {
		c.fail("go test -bench: exit %d: %s", rc, lastLine(text))
	}
	type key struct {
		streams int
		client  string
	}
	got := map[key]map[string]float64{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		vals := map[string]float64{}
		f := strings.Fields(m[3])
		for i := 0; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				vals[f[i+1]] = v
			}
		}
		got[key{n, m[2]}] = vals
	}
	c.printf("  %-8s %-7s", "streams", "client")
	for _, m := range benchMetrics {
		c.printf(" %18s", m)
	}
	c.printf("\n")
	for _, n := range []int{1024, 4096} {
		for _, cl := range []string{"h1", "floor"} {
			v, ok := got[key{n, cl}]
			if !ok {
				c.fail("no result for %d streams, client %s", n, cl)
				continue
			}
			c.printf("  %-8d %-7s", n, cl)
			for _, m := range benchMetrics {
				if x, ok := v[m]; ok {
					c.printf(" %18.3f", x)
				} else {
					c.printf(" %18s", "—")
				}
			}
			c.printf("\n")
		}
		h, f := got[key{n, "h1"}], got[key{n, "floor"}]
		if h != nil && f != nil && f["cpu-us/event"] > 0 {
			c.printf("  %d streams: perflab's client costs %.2f× the floor's CPU per event\n", n, h["cpu-us/event"]/f["cpu-us/event"])
		}
	}
}
