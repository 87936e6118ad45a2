package migrate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
)

func migrateFile(t *testing.T, file string) *Page {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	id := CampaignID(filepath.Base(file))
	pg, err := Migrate(file, data, id, "results/"+id+"/src/"+filepath.Base(file))
	if err != nil {
		t.Fatal(err)
	}
	return pg
}

// pairs lists "experiment/profile" of the results, in order.
func pairs(pg *Page) []string {
	var out []string
	for _, r := range pg.Results {
		out = append(out, r.Experiment+"/"+r.Profile)
	}
	return out
}

func result(t *testing.T, pg *Page, exp, prof string) *schema.Result {
	t.Helper()
	for _, r := range pg.Results {
		if r.Experiment == exp && r.Profile == prof {
			return r
		}
	}
	t.Fatalf("no result %s/%s in %v", exp, prof, pairs(pg))
	return nil
}

// TestVariantLabelsTotalsSGLang: labels inside a fence place blocks in
// profiles ("# random 4K input"), a block without its header line is read,
// unlabelled blocks are placed by their tokens per request, experiments
// are named from the line before their serving script ("TP + DP-Attention",
// "max-running 64"), and SGLang's blocks are SGLang's.
func TestVariantLabelsTotalsSGLang(t *testing.T) {
	pg := migrateFile(t, "testdata/variants/sglang-labels.md")
	want := []string{"tp/random-1k", "tp/random-4k", "tp-dp-attention/random-1k", "max-running-64/random-1k", "max-running-64/random-4k"}
	if got := pairs(pg); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("pairs %v, want %v", got, want)
	}
	if len(pg.Ambiguities) != 0 {
		t.Errorf("ambiguities: %v", pg.Ambiguities)
	}
	c := pg.Campaign
	names := map[string]string{}
	for _, s := range c.Steps {
		for _, x := range s.Experiments {
			names[x.ID] = x.Name
			if x.Engine != "sglang" || x.GPUs != 0 && x.GPUs != 8 {
				t.Errorf("experiment %s: engine %s, %d GPUs", x.ID, x.Engine, x.GPUs)
			}
		}
	}
	if names["tp-dp-attention"] != "TP + DP-Attention" || names["max-running-64"] != "max-running 64" {
		t.Errorf("names %v", names)
	}
	if c.Optimized != "max-running-64" || c.Baseline != "tp" || c.Hardware.Count != 8 || c.Hardware.GPU != "H200" {
		t.Errorf("baseline %s optimized %s hardware %+v", c.Baseline, c.Optimized, c.Hardware)
	}
	if pr, _ := c.Profile("random-1k"); pr.NumPrompts != 800 || pr.Seed != 7 {
		t.Errorf("random-1k from the benchmark command: %+v", pr)
	}
	headerless := result(t, pg, "tp", "random-4k")
	if headerless.Metadata["source_format"] != ingest.FormatVLLMText || headerless.Summary.Completed != 400 {
		t.Errorf("header-less block: %v %+v", headerless.Metadata, headerless.Summary)
	}
	sg := result(t, pg, "tp-dp-attention", "random-1k")
	if sg.Tool.Name != ingest.SGLangTool || sg.Summary.E2EL == nil || sg.Summary.ITL == nil {
		t.Fatalf("SGLang block: tool %q, summary %+v", sg.Tool.Name, sg.Summary)
	}
	if _, ok := sg.Summary.ITL.Get(95); !ok {
		t.Errorf("SGLang P95 ITL missing")
	}
	for _, r := range pg.Results {
		if strings.Contains(strings.ToLower(r.Tool.Name), "guidellm") {
			t.Errorf("%s labelled as guidellm's", r.ID)
		}
	}
	if capped := result(t, pg, "max-running-64", "random-4k"); capped.Load.MaxConcurrency != 64 {
		t.Errorf("SGLang's Max request concurrency 64 not kept: %+v", capped.Load)
	}
	buildProject(t, pg, "sglang-labels.md")
}

// TestVariantWrongModel: a serving command naming another model is an
// ambiguity at its line (and its result carries a warning); the hand-made
// table (with a number no output has) becomes the generated comparison,
// the original kept collapsed; the chart image becomes a chart block.
func TestVariantWrongModel(t *testing.T) {
	pg := migrateFile(t, "testdata/variants/wrong-model.md")
	var found bool
	for _, a := range pg.Ambiguities {
		if a.Loc == "testdata/variants/wrong-model.md:65" && strings.Contains(a.Msg, "Qwen/Qwen3-8B") {
			found = true
		}
	}
	if !found {
		t.Errorf("no ambiguity at wrong-model.md:65 for Qwen/Qwen3-8B: %v", pg.Ambiguities)
	}
	r := result(t, pg, "tp2", "sharegpt")
	if !strings.Contains(strings.Join(r.Warnings, "\n"), "Qwen/Qwen3-8B") {
		t.Errorf("result warnings %v", r.Warnings)
	}
	if r.Hardware == nil || r.Hardware.GPUCount != 2 {
		t.Errorf("tp2 hardware %+v", r.Hardware)
	}
	idx := string(pg.Index)
	for _, want := range []string{"block: comparison", "block: chart", "??? note \"Original table", "    | **ShareGPT** | Total TPS: 2000.00 | Total TPS: 3100.00 (+55.0%) |", "block: raw\nexperiment: tp2\nprofile: sharegpt"} {
		if !strings.Contains(idx, want) {
			t.Errorf("index.md lacks %q:\n%s", want, idx)
		}
	}
	if strings.Contains(idx, "![chart]") || strings.Contains(idx, "Successful requests:") {
		t.Errorf("index.md keeps the image or a pasted output:\n%s", idx)
	}
	buildProject(t, pg, "wrong-model.md")
}

// TestVariantUnplaceable: a block that cannot be placed is kept, as an
// unassigned run with a warning and an ambiguity; the project still builds.
func TestVariantUnplaceable(t *testing.T) {
	pg := migrateFile(t, "testdata/variants/unplaceable.md")
	if pg.Unassigned != 1 || len(pg.Results) != 1 || pg.Results[0].Experiment != "unassigned-1" {
		t.Fatalf("unassigned %d, results %v", pg.Unassigned, pairs(pg))
	}
	if !strings.Contains(strings.Join(pg.Results[0].Warnings, "\n"), "could not be placed") {
		t.Errorf("warnings %v", pg.Results[0].Warnings)
	}
	if len(pg.Ambiguities) == 0 || pg.Ambiguities[0].Loc != "testdata/variants/unplaceable.md:23" {
		t.Errorf("ambiguities %v", pg.Ambiguities)
	}
	buildProject(t, pg, "unplaceable.md")
}

// TestVariantGenerator: GPUStack's generator page with its line breaks
// (seed 000 as GPUStack serves it) gives the same runs as the collapsed
// copy: experiments from headings and Backend Parameters, profiles from the
// Benchmark Profiles section and "Profile:" lines.
func TestVariantGenerator(t *testing.T) {
	a := migrateFile(t, "testdata/variants/generator.md")
	b := migrateFile(t, "testdata/seed-000-qwen3.5-35b-a3b-h200.md")
	if strings.Join(pairs(a), " ") != strings.Join(pairs(b), " ") || len(a.Results) != 13 {
		t.Fatalf("generator page %v\ncollapsed seed %v", pairs(a), pairs(b))
	}
	if a.Campaign.Bench.Tool != "guidellm" {
		t.Errorf("bench tool %q", a.Campaign.Bench.Tool)
	}
	for _, r := range a.Results {
		if r.Tool.Name != "guidellm" || r.Metadata["source_format"] != ingest.FormatGPUStackText {
			t.Errorf("%s: tool %q format %q", r.ID, r.Tool.Name, r.Metadata["source_format"])
		}
	}
	if pr, _ := a.Campaign.Profile("long-context"); pr.InputLen != 32000 || pr.NumPrompts != 100 || pr.RequestRate != 1000 {
		t.Errorf("long-context profile %+v", pr)
	}
}

// TestRunIdempotent: migrating a folder twice writes the same bytes, a
// plain page is copied, and a stale result of an earlier run is removed.
func TestRunIdempotent(t *testing.T) {
	src := t.TempDir()
	for _, f := range []string{"seed-002-qwen3-32b-h100.md", "variants/sglang-labels.md"} {
		data, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(src, "perf", filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, "perf", f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(src, "perf", "about.md"), []byte("# About\n\nProse only.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	snapshot := func() map[string][]byte {
		m := map[string][]byte{}
		filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := os.ReadFile(p)
				m[p] = b
			}
			return nil
		})
		return m
	}
	run := func() *Report {
		srcs, err := Sources([]string{filepath.Join(src, "perf")})
		if err != nil {
			t.Fatal(err)
		}
		rep, files, err := Plan(context.Background(), srcs)
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(out, rep, files); err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := run()
	if len(rep.Pages) != 3 || !rep.Pages[0].Plain {
		t.Fatalf("pages %d, first plain %v", len(rep.Pages), rep.Pages[0].Plain)
	}
	if b, err := os.ReadFile(filepath.Join(out, "content", "about.md")); err != nil || !bytes.Contains(b, []byte("Prose only.")) {
		t.Errorf("plain page not copied: %v", err)
	}
	stale := filepath.Join(out, "results", "variants-sglang-labels", "old--run.json")
	if err := os.WriteFile(stale, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	first := snapshot()
	delete(first, stale)
	run()
	second := snapshot()
	if _, ok := second[stale]; ok {
		t.Errorf("stale result %s kept", stale)
	}
	if len(first) != len(second) {
		t.Fatalf("%d files, then %d", len(first), len(second))
	}
	for p, b := range first {
		if !bytes.Equal(b, second[p]) {
			t.Errorf("%s changed on re-run", p)
		}
	}
	if _, ok := first[filepath.Join(out, "results", "seed-002-qwen3-32b-h100", "src", "seed-002-qwen3-32b-h100.md")]; !ok {
		t.Errorf("verbatim source not written")
	}
}

// TestVariantPlainComparison: a hand-made page without GPUStack's
// sections (no Model, Hardware or dataset section, one `##` per engine,
// header-less blocks) still migrates: one step, a profile made from the
// outputs' tokens per request, each gap reported.
func TestVariantPlainComparison(t *testing.T) {
	pg := migrateFile(t, "testdata/variants/simple.md")
	want := "vllm/random-512-128 llama.cpp/random-512-128"
	if got := strings.Join(pairs(pg), " "); got != want {
		t.Fatalf("pairs %s, want %s", got, want)
	}
	c := pg.Campaign
	if len(c.Steps) != 1 || len(c.Steps[0].Experiments) != 2 || c.Steps[0].Chosen != "vllm" {
		t.Errorf("steps %+v", c.Steps)
	}
	if c.Model.ID != "meta-llama/Llama-3.1-8B-Instruct" {
		t.Errorf("model %+v", c.Model)
	}
	if r := result(t, pg, "llama.cpp", "random-512-128"); r.Engine.Name != "llamacpp" {
		t.Errorf("engine %+v", r.Engine)
	}
	var msgs []string
	for _, a := range pg.Ambiguities {
		msgs = append(msgs, a.String())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"simple.md:12: the page describes no benchmark profile", "no Hardware section", "no Model section"} {
		if !strings.Contains(all, want) {
			t.Errorf("ambiguities lack %q:\n%s", want, all)
		}
	}
	buildProject(t, pg, "simple.md")
}
