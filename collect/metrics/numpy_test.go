package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/internal/bytediff"
)

// debianPython is Debian's interpreter, which sees python3-numpy (the
// python3 on PATH may be a pyenv shim that does not).
const debianPython = "/usr/bin/python3"

// requireNumpy returns numpy's version or skips the test loudly.
func requireNumpy(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(debianPython, "-c", "import numpy; print(numpy.__version__)").CombinedOutput()
	if err != nil {
		msg := fmt.Sprintf("SKIP: numpy cross-check needs %s with numpy (Debian python3-numpy; .ci/install-05-numpy.sh): %v: %s",
			debianPython, err, strings.TrimSpace(string(out)))
		fmt.Fprintln(os.Stderr, "!! metrics:", msg)
		t.Skip(msg)
	}
	return strings.TrimSpace(string(out))
}

// numpyBefore23 says whether numpy's version is older than 2.3, the
// release that changed how np.sum splits a reduction.
func numpyBefore23(t *testing.T, version string) bool {
	var major, minor int
	if _, err := fmt.Sscanf(version, "%d.%d", &major, &minor); err != nil {
		t.Fatalf("numpy version %q: %v", version, err)
	}
	return major < 2 || (major == 2 && minor < 3)
}

// scenario is one set of records and options checked against the
// reference.
type scenario struct {
	name   string
	reqs   []schema.Request
	opt    Options
	header VLLMHeader
}

func wordCount(s string) int { return len(strings.Fields(s)) }

func scenarios() []scenario {
	base := VLLMHeader{Date: "20261122-093000", Backend: "openai", ModelID: "Qwen/Qwen3-8B", TokenizerID: "Qwen/Qwen3-8B", NumPrompts: 300}
	all := []string{"ttft", "tpot", "itl", "e2el", "client_queue_time", "e2el_including_client_queue"}
	many := []float64{0, 1, 25, 50, 75, 90, 95, 99, 99.9, 100}

	a := base
	b := base
	b.Label, b.Backend, b.NumPrompts = "perflab", "openai-chat", 600
	// "duration" set by --metadata keeps its place and takes the
	// benchmark's value, as a Python dict update does.
	b.Metadata = []KeyValue{{" version ", " 0.3.3 "}, {"tp", "1"}, {"duration", "x"}}
	c := base
	c.TokenizerID, c.NumPrompts, c.Layout = "", 200, LayoutMid
	d := base
	d.NumPrompts = 4

	failedOnly := genRecords(4, 4, 20)
	for i := range failedOnly {
		failedOnly[i].Success, failedOnly[i].Error = false, "Bad Request"
	}
	return []scenario{
		{name: "defaults", reqs: genRecords(1, 300, 300), opt: Options{CountTokens: wordCount}, header: a},
		{name: "capped-rate-goodput-all-metrics", reqs: genRecords(2, 600, 400), opt: Options{
			Metrics: all, Percentiles: many, MaxConcurrency: 16, RequestRate: 12.5, Burstiness: 0.5,
			Goodput:     map[string]float64{"ttft": 150, "tpot": 20, "e2el": 4000},
			CountTokens: wordCount,
		}, header: b},
		{name: "old-switches-mid-layout", reqs: genRecords(3, 200, 150), opt: Options{
			Metrics: []string{"e2el", "ttft", "client_queue_time"}, Percentiles: []float64{50, 99.99},
			MaxConcurrency: 4, SkipTokenizer: true, DatasetInputTokens: true, BucketedPeakConcurrency: true,
			LatencyToStreamEnd: true, CapitalTokenLabel: true, DurationS: 123.456,
		}, header: c},
		{name: "all-failed", reqs: failedOnly, opt: Options{Goodput: map[string]float64{"e2el": 1000}}, header: d},
	}
}

// refStats and refOut are the reference script's output.
type refStats struct {
	Mean, Median, Std float64
	Percentiles       [][2]float64
}

type refOut struct {
	Summary      map[string]json.RawMessage
	Text         string
	JSON         string `json:"json"`
	JSONDetailed string `json:"json_detailed"`
	Numpy        string
}

func runReference(t *testing.T, sc scenario, durS float64) refOut {
	t.Helper()
	o := sc.opt
	metrics := o.Metrics
	if metrics == nil {
		metrics = []string{"ttft", "tpot", "itl"}
	}
	ps := o.Percentiles
	if ps == nil {
		ps = []float64{99}
	}
	layout := "newest"
	if sc.header.Layout == LayoutMid {
		layout = "mid"
	}
	md := [][2]string{}
	for _, kv := range sc.header.Metadata {
		md = append(md, [2]string{kv.Key, kv.Value})
	}
	in := map[string]any{
		"records":    sc.reqs,
		"duration_s": durS,
		"options": map[string]any{
			"metrics": metrics, "percentiles": ps, "goodput": o.Goodput,
			"max_concurrency": o.MaxConcurrency, "request_rate": o.RequestRate, "burstiness": o.Burstiness,
			"skip_tokenizer": o.SkipTokenizer, "dataset_input_tokens": o.DatasetInputTokens,
			"bucketed_peak_concurrency": o.BucketedPeakConcurrency, "latency_to_stream_end": o.LatencyToStreamEnd,
			"capital_token_label": o.CapitalTokenLabel,
		},
		"header": map[string]any{
			"date": sc.header.Date, "backend": sc.header.Backend, "label": sc.header.Label,
			"model_id": sc.header.ModelID, "tokenizer_id": sc.header.TokenizerID,
			"num_prompts": sc.header.NumPrompts, "metadata": md, "layout": layout,
		},
	}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "in.json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(debianPython, filepath.Join("testdata", "vllm_reference.py"), path)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("reference script: %v\n%s", err, stderr.String())
	}
	var ref refOut
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatalf("reference output: %v", err)
	}
	return ref
}

// floatCheck compares got with numpy's value: to the last bit, and if not,
// records how far off (the test fails on any non-identical value, but
// reports the printed-precision and 1e-12 relative checks first, so a
// failure says how bad it is).
type floatCheck struct {
	t           *testing.T
	exact, diff int
}

func (c *floatCheck) eq(name string, got, want float64) {
	c.t.Helper()
	if math.Float64bits(got) == math.Float64bits(want) {
		c.exact++
		return
	}
	c.diff++
	rel := math.Abs(got-want) / max(math.Abs(want), math.SmallestNonzeroFloat64)
	printed := pyFixed2(got) == pyFixed2(want)
	c.t.Errorf("%s: got %s, numpy %s (rel %.3g, same at .2f: %v, within 1e-12: %v)",
		name, pyFloatStr(got), pyFloatStr(want), rel, printed, rel <= 1e-12)
}

func TestAgainstNumpy(t *testing.T) {
	version := requireNumpy(t)
	numpy23 := !numpyBefore23(t, version)
	for _, sc := range scenarios() {
		// Match the summation of the numpy at hand (the default is ≤ 2.2's).
		sc.opt.Numpy23Sum = numpy23
		t.Run(sc.name, func(t *testing.T) {
			s, err := Summarize(sc.reqs, sc.opt)
			if err != nil {
				t.Fatal(err)
			}
			ref := runReference(t, sc, s.DurationS)
			fc := &floatCheck{t: t}
			var rs struct {
				Completed, Failed, TotalInput, TotalOutput int
				MaxConcurrentRequests                      int `json:"max_concurrent_requests"`
			}
			ints := map[string]*int{"completed": &rs.Completed, "failed": &rs.Failed, "total_input": &rs.TotalInput,
				"total_output": &rs.TotalOutput, "max_concurrent_requests": &rs.MaxConcurrentRequests}
			for k, p := range ints {
				if err := json.Unmarshal(ref.Summary[k], p); err != nil {
					t.Fatalf("%s: %v", k, err)
				}
			}
			if s.Completed != rs.Completed || s.Failed != rs.Failed || s.TotalInputTokens != rs.TotalInput ||
				s.TotalOutputTokens != rs.TotalOutput || *s.MaxConcurrentRequests != rs.MaxConcurrentRequests {
				t.Errorf("counts: got %d/%d/%d/%d/%d, reference %+v", s.Completed, s.Failed,
					s.TotalInputTokens, s.TotalOutputTokens, *s.MaxConcurrentRequests, rs)
			}
			num := func(k string) float64 {
				var v float64
				if err := json.Unmarshal(ref.Summary[k], &v); err != nil {
					t.Fatalf("%s: %v", k, err)
				}
				return v
			}
			fc.eq("request_throughput", s.RequestThroughput, num("request_throughput"))
			fc.eq("output_throughput", s.OutputThroughput, num("output_throughput"))
			fc.eq("total_token_throughput", s.TotalTokenThroughput, num("total_token_throughput"))
			fc.eq("max_output_tokens_per_s", *s.MaxOutputTokensPerS, num("max_output_tokens_per_s"))
			if s.RequestGoodput != nil {
				fc.eq("request_goodput", *s.RequestGoodput, num("request_goodput"))
			}
			for _, g := range groups() {
				st := stats(s, g.key)
				raw, ok := ref.Summary[g.key]
				if (st != nil) != ok {
					t.Errorf("%s: computed %v, reference %v", g.key, st != nil, ok)
					continue
				}
				if !ok {
					continue
				}
				var r refStats
				if err := json.Unmarshal(raw, &r); err != nil {
					t.Fatal(err)
				}
				fc.eq(g.key+" mean", *st.MeanMs, r.Mean)
				fc.eq(g.key+" median", *st.MedianMs, r.Median)
				fc.eq(g.key+" std", *st.StdMs, r.Std)
				for i, p := range st.Percentiles {
					fc.eq(fmt.Sprintf("%s p%v", g.key, p.P), p.ValueMs, r.Percentiles[i][1])
				}
			}
			t.Logf("numpy %s: %d values identical to the bit, %d not", version, fc.exact, fc.diff)

			var text bytes.Buffer
			if err := WriteText(&text, s, sc.opt); err != nil {
				t.Fatal(err)
			}
			sameBytes(t, "text block", text.String(), ref.Text)
			for _, detailed := range []bool{false, true} {
				h := sc.header
				h.Options = sc.opt
				var js bytes.Buffer
				if err := WriteVLLMJSON(&js, sc.reqs, s, h, detailed); err != nil {
					t.Fatal(err)
				}
				want := ref.JSON
				if detailed {
					want = ref.JSONDetailed
				}
				sameBytes(t, fmt.Sprintf("vllm json (detailed %v)", detailed), js.String(), want)
			}
		})
	}
}

// sameBytes fails with the first difference and its surroundings.
func sameBytes(t *testing.T, what, got, want string) {
	t.Helper()
	if d := bytediff.At(got, want, 80); d != "" {
		t.Errorf("%s differs %s", what, d)
	}
}

// TestKernelAgainstNumpy runs the statistics kernel on sample lists of
// many sizes (around numpy's summation block and chunk sizes) and
// magnitudes, at percentiles every 0.7 from 0 to 100 and a few tails, and
// requires numpy's bits for every value.
func TestKernelAgainstNumpy(t *testing.T) {
	version := requireNumpy(t)
	chunk := numpyBufSize
	if !numpyBefore23(t, version) {
		chunk = 0
	}
	var ps []float64
	for p := 0.0; p <= 100; p += 0.7 {
		ps = append(ps, p)
	}
	ps = append(ps, 99.9, 99.99, 99.999, 100, 33.333333333333336)
	rng := rand.New(rand.NewPCG(77, 78))
	var samples [][]float64
	for _, n := range []int{1, 2, 3, 5, 7, 8, 9, 16, 17, 127, 128, 129, 255, 1000, 8191, 8192, 8193, 16385, 40000} {
		x := make([]float64, n)
		scale := math.Pow(10, float64(rng.IntN(9)-6))
		for i := range x {
			x[i] = rng.ExpFloat64() * scale
			if i%7 == 3 {
				x[i] = x[i-1] // ties
			}
		}
		samples = append(samples, x)
	}
	raw, err := json.Marshal(map[string]any{"samples": samples, "percentiles": ps})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "kernel.json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(debianPython, filepath.Join("testdata", "numpy_kernel.py"), path).Output()
	if err != nil {
		t.Fatalf("numpy_kernel.py: %v", err)
	}
	var ref []struct {
		Mean, Median, Std float64
		Percentiles       []float64
	}
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatal(err)
	}
	fc := &floatCheck{t: t}
	for i, x := range samples {
		st := describe(slices.Clone(x), ps, 1, chunk)
		fc.eq(fmt.Sprintf("n=%d mean", len(x)), *st.MeanMs, ref[i].Mean)
		fc.eq(fmt.Sprintf("n=%d median", len(x)), *st.MedianMs, ref[i].Median)
		fc.eq(fmt.Sprintf("n=%d std", len(x)), *st.StdMs, ref[i].Std)
		for k, p := range st.Percentiles {
			fc.eq(fmt.Sprintf("n=%d p%v", len(x), p.P), p.ValueMs, ref[i].Percentiles[k])
		}
	}
	t.Logf("numpy %s: %d values identical to the bit, %d not", version, fc.exact, fc.diff)
}

// TestReprAgainstPython compares the float and string encoders with
// Python's own repr and json.dumps on random bit patterns (subnormals,
// huge and tiny exponents) and random text. It needs only /usr/bin/python3.
func TestReprAgainstPython(t *testing.T) {
	if _, err := exec.LookPath(debianPython); err != nil {
		t.Skipf("SKIP: %s not found: %v", debianPython, err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var floats []float64
	for len(floats) < 3000 {
		f := math.Float64frombits(rng.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		floats = append(floats, f)
	}
	floats = append(floats, 1e-05, 1e-4, 1e16, 1e15, 9999999999999998, 0.1, 100, 0, math.Copysign(0, -1), 5e-324, math.MaxFloat64)
	for i := range 500 { // decimal-looking values like real timings
		floats = append(floats, math.Round(rng.Float64()*math.Pow(10, float64(i%20-8))*1e6)/1e6)
	}
	var texts []string
	for range 300 {
		r := make([]rune, rng.IntN(12))
		for k := range r {
			switch rng.IntN(4) {
			case 0:
				r[k] = rune(rng.IntN(0x80))
			case 1:
				r[k] = rune(0x80 + rng.IntN(0x780))
			case 2:
				r[k] = rune(0x800 + rng.IntN(0xd000))
			default:
				r[k] = rune(0x10000 + rng.IntN(0xfffff))
			}
		}
		texts = append(texts, string(r))
	}
	// Bit patterns, not JSON numbers: JSON has no -0.0.
	bits := make([]string, len(floats))
	for i, f := range floats {
		bits[i] = fmt.Sprint(math.Float64bits(f))
	}
	raw, err := json.Marshal(map[string]any{"floats": bits, "texts": texts})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "repr.json")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	script := `import json, struct, sys
d = json.load(open(sys.argv[1]))
fs = [struct.unpack("<d", struct.pack("<Q", int(b)))[0] for b in d["floats"]]
print(json.dumps({"repr": [repr(f) for f in fs], "dumps": json.dumps(fs), "texts": json.dumps(d["texts"])}))`
	out, err := exec.Command(debianPython, "-c", script, path).Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var ref struct {
		Repr  []string
		Dumps string
		Texts string
	}
	if err := json.Unmarshal(out, &ref); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, f := range floats {
		if got := pyFloatStr(f); got != ref.Repr[i] && bad < 10 {
			bad++
			t.Errorf("pyFloatStr(%x) = %s, Python repr %s", math.Float64bits(f), got, ref.Repr[i])
		}
	}
	sameBytes(t, "float list", string(appendList(nil, len(floats), func(b []byte, i int) []byte { return appendPyFloat(b, floats[i]) })), ref.Dumps)
	sameBytes(t, "text list", string(appendList(nil, len(texts), func(b []byte, i int) []byte { return appendPyString(b, texts[i]) })), ref.Texts)
}
