package ingest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/perflab/perflab/collect/schema"
)

// The bundled seed reports: content/<bundle>/campaign.yaml and
// results/<campaign id>/, made by .ci/import-seeds.sh (make seeds).
const root = "../.."

var seedBundles = []string{"qwen3-32b/h100", "qwen3-235b-a22b/h100", "qwen3.5-35b-a3b/h200"}

type seedData struct {
	c       *schema.Campaign
	results map[string]*schema.Result // by <experiment>--<profile>
	list    []*schema.Result
}

func loadSeed(t *testing.T, bundle string) seedData {
	t.Helper()
	c, err := ReadCampaign(filepath.Join(root, "content", bundle, "campaign.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := schema.ReadDir(filepath.Join(root, "results", c.ID))
	if err != nil {
		t.Fatal(err)
	}
	d := seedData{c: c, results: map[string]*schema.Result{}, list: rs}
	for _, r := range rs {
		d.results[Key(r.Experiment, r.Profile)] = r
	}
	return d
}

func (d seedData) get(t *testing.T, exp, prof string) *schema.Result {
	t.Helper()
	r, ok := d.results[Key(exp, prof)]
	if !ok {
		t.Fatalf("%s: no result %s", d.c.ID, Key(exp, prof))
	}
	return r
}

// gpus is the GPU count of an experiment (default the campaign's).
func (d seedData) gpus(exp string) int {
	e, _ := d.c.Experiment(exp)
	if e.GPUs > 0 {
		return e.GPUs
	}
	return d.c.Hardware.Count
}

// gain is the per-GPU total-throughput change of b over a, in percent
// rounded to one decimal, as the pages print it.
func (d seedData) gain(t *testing.T, expA, expB, prof string) string {
	t.Helper()
	a, b := d.get(t, expA, prof), d.get(t, expB, prof)
	pa := a.Summary.TotalTokenThroughput / float64(d.gpus(expA))
	pb := b.Summary.TotalTokenThroughput / float64(d.gpus(expB))
	return fmt.Sprintf("%+.1f%%", 100*(pb-pa)/pa)
}

// TestSeedDeltas checks the computed gains the seed pages print, including
// the one they got wrong, from the committed campaigns and results.
func TestSeedDeltas(t *testing.T) {
	q32 := loadSeed(t, "qwen3-32b/h100")
	q235 := loadSeed(t, "qwen3-235b-a22b/h100")
	q35 := loadSeed(t, "qwen3.5-35b-a3b/h200")
	tests := []struct {
		name             string
		d                seedData
		a, b, prof, want string
	}{
		// The seed prints +10.7% here; its own raw outputs give +46.8%.
		{"32B very long (seed error)", q32, q32.c.Baseline, q32.c.Optimized, "very-long", "+46.8%"},
		{"32B ShareGPT", q32, q32.c.Baseline, q32.c.Optimized, "sharegpt", "+82.1%"},
		{"32B short", q32, q32.c.Baseline, q32.c.Optimized, "short", "+70.4%"},
		{"32B medium", q32, q32.c.Baseline, q32.c.Optimized, "medium", "+84.7%"},
		{"32B long", q32, q32.c.Baseline, q32.c.Optimized, "long", "+129.4%"},
		// Summary of Optimization Options (incremental)
		{"32B engine selection", q32, "vllm", "trtllm", "sharegpt", "+13.0%"},
		{"32B quantization", q32, "trtllm", "trtllm-fp8", "sharegpt", "+50.6%"},
		{"32B chunked prefill", q32, "trtllm-fp8", "trtllm-fp8-chunked-prefill", "sharegpt", "+7.0%"},
		// 235B: TP4 (4 GPUs) against TP8 (8 GPUs), per GPU: the seed's "x2"
		{"235B ShareGPT per GPU", q235, q235.c.Baseline, q235.c.Optimized, "sharegpt", "+84.9%"},
		{"235B short per GPU", q235, q235.c.Baseline, q235.c.Optimized, "short", "+189.2%"},
		{"235B medium per GPU", q235, q235.c.Baseline, q235.c.Optimized, "medium", "+58.9%"},
		{"235B long per GPU", q235, q235.c.Baseline, q235.c.Optimized, "long", "+56.1%"},
		{"235B very long per GPU", q235, q235.c.Baseline, q235.c.Optimized, "very-long", "+35.6%"},
		{"235B parallelism", q235, "vllm", "vllm-fp8-tp4", "sharegpt", "+78.7%"},
		{"235B max batched tokens", q235, "vllm-fp8-tp4", "vllm-fp8-tp4-mbt16k", "sharegpt", "+3.4%"},
		// Qwen3.5 (cumulative against the baseline, as that page does)
		{"3.5 ShareGPT", q35, q35.c.Baseline, q35.c.Optimized, "sharegpt", "+9.7%"},
		{"3.5 throughput", q35, q35.c.Baseline, q35.c.Optimized, "throughput", "+33.0%"},
		{"3.5 long context", q35, q35.c.Baseline, q35.c.Optimized, "long-context", "+25.4%"},
		{"3.5 generation heavy", q35, q35.c.Baseline, q35.c.Optimized, "generation-heavy", "+17.2%"},
		{"3.5 quantization", q35, "vllm", "vllm-fp8", "sharegpt", "+3.2%"},
		{"3.5 kv cache dtype", q35, "vllm", "vllm-fp8-prefix-cache-perf-mode-kv-fp8", "sharegpt", "+7.6%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.gain(t, tt.a, tt.b, tt.prof); got != tt.want {
				t.Fatalf("gain %s → %s on %s = %s, want %s", tt.a, tt.b, tt.prof, got, tt.want)
			}
		})
	}
}

// TestSeedCompleteness: every result belongs to its campaign, every
// experiment × profile the campaign declares has exactly one result, and the
// counts, crashes and flagged runs are what the pages show.
func TestSeedCompleteness(t *testing.T) {
	want := map[string]struct{ results, crashed int }{
		"qwen3-32b-h100":       {13, 0},
		"qwen3-235b-a22b-h100": {17, 3},
		"qwen3.5-35b-a3b-h200": {13, 0},
	}
	for _, b := range seedBundles {
		d := loadSeed(t, b)
		crashed := 0
		for _, r := range d.list {
			if r.Campaign != d.c.ID {
				t.Errorf("%s: result %s has campaign %q", d.c.ID, r.ID, r.Campaign)
			}
			e, ok := d.c.Experiment(r.Experiment)
			if !ok {
				t.Errorf("%s: result %s: unknown experiment", d.c.ID, r.ID)
				continue
			}
			if _, ok := d.c.Profile(r.Profile); !ok {
				t.Errorf("%s: result %s: unknown profile", d.c.ID, r.ID)
			}
			if r.Engine.Name != e.Engine || r.Hardware == nil || r.Hardware.GPUCount != d.gpus(e.ID) {
				t.Errorf("%s: result %s: engine %q hardware %+v, want %q on %d GPUs", d.c.ID, r.ID, r.Engine.Name, r.Hardware, e.Engine, d.gpus(e.ID))
			}
			if r.RawOutput == "" {
				t.Errorf("%s: result %s has no raw output", d.c.ID, r.ID)
			}
			switch r.Status {
			case schema.StatusCrashed:
				crashed++
				if r.Summary != nil || r.Error == "" {
					t.Errorf("%s: crashed %s: summary %v error %q", d.c.ID, r.ID, r.Summary, r.Error)
				}
			case schema.StatusOK:
				if r.Summary == nil {
					t.Errorf("%s: %s has no summary", d.c.ID, r.ID)
				}
			default:
				t.Errorf("%s: %s status %q", d.c.ID, r.ID, r.Status)
			}
		}
		n := 0
		for _, st := range d.c.Steps {
			for _, e := range st.Experiments {
				for _, p := range e.Profiles {
					n++
					if _, ok := d.results[Key(e.ID, p)]; !ok {
						t.Errorf("%s: no result for experiment %s profile %s", d.c.ID, e.ID, p)
					}
				}
			}
		}
		w := want[d.c.ID]
		if len(d.list) != w.results || n != w.results || crashed != w.crashed {
			t.Errorf("%s: %d results (%d declared), %d crashed; want %d, %d", d.c.ID, len(d.list), n, crashed, w.results, w.crashed)
		}
	}
}

// TestSeedWarnings: the odd data of the seed pages are flagged.
func TestSeedWarnings(t *testing.T) {
	tests := []struct {
		bundle, exp, prof, want string
	}{
		{"qwen3.5-35b-a3b/h200", "vllm-fp8-mtp", "sharegpt", "516 of 1000 requests succeeded (51.6%)"},
		{"qwen3.5-35b-a3b/h200", "vllm-fp8-mtp", "sharegpt", "ITL was not measured"},
		{"qwen3.5-35b-a3b/h200", "vllm", "sharegpt", "peak output token throughput 30810010.86 tok/s is impossible"},
		{"qwen3.5-35b-a3b/h200", "vllm-fp8-prefix-cache-perf-mode", "generation-heavy", "peak output token throughput 100865026.05 tok/s is impossible"},
		{"qwen3.5-35b-a3b/h200", "sglang", "sharegpt", "implausible"},
		{"qwen3.5-35b-a3b/h200", "vllm", "throughput", "GPUStack-generated block from guidellm data"},
		{"qwen3-235b-a22b/h100", "vllm", "sharegpt", "984 of 1000 requests succeeded"},
		{"qwen3-235b-a22b/h100", "vllm", "sharegpt", "no \"Failed requests\" row: failed is recorded as 0, and 16 of the 1000 requests are unaccounted for"},
		{"qwen3.5-35b-a3b/h200", "vllm-fp8-mtp", "sharegpt", "484 of the 1000 requests are unaccounted for"},
		{"qwen3-235b-a22b/h100", "vllm", "long", "total generated tokens 92185 are 7.8% below 500 requests × 200 tokens"},
		{"qwen3-32b/h100", "vllm", "very-long", "total generated tokens 7681 are 23.2% below"},
		// the seed prints an SGLang command under a TensorRT-LLM step
		{"qwen3-32b/h100", "trtllm-fp8", "sharegpt", "the serving command launches sglang, but the experiment's engine is trtllm"},
	}
	cache := map[string]seedData{}
	for _, tt := range tests {
		d, ok := cache[tt.bundle]
		if !ok {
			d = loadSeed(t, tt.bundle)
			cache[tt.bundle] = d
		}
		r := d.get(t, tt.exp, tt.prof)
		if !strings.Contains(strings.Join(r.Warnings, "\n"), tt.want) {
			t.Errorf("%s %s: no warning %q in\n%s", d.c.ID, r.ID, tt.want, strings.Join(r.Warnings, "\n"))
		}
	}
	// clean runs carry no warning
	d := loadSeed(t, "qwen3-32b/h100")
	for _, id := range []string{"vllm--sharegpt", "trtllm-fp8-chunked-prefill--sharegpt", "vllm--long"} {
		if w := d.results[id].Warnings; len(w) != 0 {
			t.Errorf("%s: unexpected warnings %v", id, w)
		}
	}
}

// TestSeedRawOutputsMatchNumbers: in every committed result, every row of
// the raw output equals the number stored in the summary.
func TestSeedRawOutputsMatchNumbers(t *testing.T) {
	for _, b := range seedBundles {
		d := loadSeed(t, b)
		for _, r := range d.list {
			if r.Summary == nil {
				continue
			}
			if n := checkRoundTrip(t, d.c.ID+"/"+r.ID, r.RawOutput, r.Summary); n < 18 {
				t.Errorf("%s/%s: only %d rows compared", d.c.ID, r.ID, n)
			}
		}
	}
}

// TestSeedReproducible: importing the committed sources again gives the
// committed result files byte for byte (what `make seeds` does).
func TestSeedReproducible(t *testing.T) {
	for _, b := range seedBundles {
		d := loadSeed(t, b)
		src := filepath.ToSlash(filepath.Join("results", d.c.ID, "src", "seed.md"))
		data, err := os.ReadFile(filepath.Join(root, src))
		if err != nil {
			t.Fatal(err)
		}
		es, err := Parse(src, data)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := Results(es, Options{Campaign: d.c})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rs {
			got = append(got, r.ID)
			b, err := schema.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(root, "results", d.c.ID, r.ID+".json"))
			if err != nil {
				t.Fatalf("%v (run make seeds)", err)
			}
			if !bytes.Equal(b, want) {
				t.Errorf("%s/%s.json differs from a fresh import of %s: run make seeds", d.c.ID, r.ID, src)
			}
		}
		var have []string
		for id := range d.results {
			have = append(have, id)
		}
		sort.Strings(got)
		sort.Strings(have)
		if strings.Join(got, ",") != strings.Join(have, ",") {
			t.Errorf("%s: committed results %v, fresh import %v", d.c.ID, have, got)
		}
	}
}

// contentBlock is a ```perflab block of a report page (CONTENT.md).
type contentBlock struct {
	Block      string `yaml:"block"`
	Experiment string `yaml:"experiment"`
	Profile    string `yaml:"profile"`
	Step       string `yaml:"step"`
	Metric     string `yaml:"metric"`
}

// TestSeedPagesReferToData: every generated block placed in the seed
// pages is a block type CONTENT.md defines, with only the options it
// defines, naming experiments, profiles and steps the campaign has, and a
// raw block names a run that has a result. Keeps `perflab build` from
// failing on the bundled content.
func TestSeedPagesReferToData(t *testing.T) {
	known := map[string]bool{"comparison": true, "chart": true, "latency-chart": true, "command": true,
		"step": true, "summary": true, "raw": true, "setup": true, "runs": true}
	reFence := regexp.MustCompile("(?m)^([ \t]*)```perflab[ \t]*\n((?:.*\n)*?)[ \t]*```[ \t]*$")
	for _, b := range seedBundles {
		d := loadSeed(t, b)
		page := filepath.Join(root, "content", b, "index.md")
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, []byte("---\n")) || !bytes.Contains(data, []byte("\ncampaign: campaign.yaml\n")) {
			t.Errorf("%s: no front matter naming campaign.yaml", page)
		}
		if bytes.Contains(data, []byte("\n# ")) {
			t.Errorf("%s: has an H1; the title comes from the front matter", page)
		}
		blocks := reFence.FindAllSubmatch(data, -1)
		if len(blocks) < 10 {
			t.Fatalf("%s: only %d perflab blocks", page, len(blocks))
		}
		steps := map[string]bool{}
		for _, st := range d.c.Steps {
			steps[st.ID] = true
		}
		placed := map[string]bool{}
		for _, m := range blocks {
			indent := string(m[1])
			body := strings.ReplaceAll("\n"+string(m[2]), "\n"+indent, "\n")
			dec := yaml.NewDecoder(strings.NewReader(body))
			dec.KnownFields(true)
			var cb contentBlock
			if err := dec.Decode(&cb); err != nil {
				t.Errorf("%s: block %q: %v", page, body, err)
				continue
			}
			if !known[cb.Block] {
				t.Errorf("%s: unknown block type %q", page, cb.Block)
			}
			if cb.Experiment != "" {
				if _, ok := d.c.Experiment(cb.Experiment); !ok {
					t.Errorf("%s: unknown experiment %q", page, cb.Experiment)
				}
			}
			if cb.Profile != "" {
				if _, ok := d.c.Profile(cb.Profile); !ok {
					t.Errorf("%s: unknown profile %q", page, cb.Profile)
				}
			}
			if cb.Step != "" && !steps[cb.Step] {
				t.Errorf("%s: unknown step %q", page, cb.Step)
			}
			if cb.Block == "step" {
				placed[cb.Step] = true
			}
			if cb.Block == "raw" {
				if _, ok := d.results[Key(cb.Experiment, cb.Profile)]; !ok {
					t.Errorf("%s: raw block names %s with no result", page, Key(cb.Experiment, cb.Profile))
				}
			}
		}
		for id := range steps {
			if !placed[id] {
				t.Errorf("%s: step %q is not placed", page, id)
			}
		}
	}
}
