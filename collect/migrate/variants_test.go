package migrate

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render"
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
	// max-running 64 ran at client concurrency 64 where the others ran
	// uncapped: load points of their own, not the same runs (issue 19).
	want := []string{"tp/random-1k", "tp/random-4k", "tp-dp-attention/random-1k", "max-running-64/random-1k-c64", "max-running-64/random-4k-c64"}
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
	if capped := result(t, pg, "max-running-64", "random-4k-c64"); capped.Load.MaxConcurrency != 64 {
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

// TestSourcesSkipOut: an --out folder inside the source folder is not
// walked, so a second run does not migrate the project the first wrote
// (its index.md pages and the verbatim sources under results/…/src/).
func TestSourcesSkipOut(t *testing.T) {
	src := t.TempDir()
	data, err := os.ReadFile("testdata/variants/simple.md")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "simple.md"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(src, "migrated")
	for run := 1; run <= 2; run++ {
		srcs, err := Sources([]string{src}, out)
		if err != nil {
			t.Fatal(err)
		}
		if len(srcs) != 1 || srcs[0].Rel != "simple.md" {
			t.Fatalf("run %d: sources %+v, want simple.md only", run, srcs)
		}
		rep, files, err := Plan(context.Background(), srcs)
		if err != nil {
			t.Fatal(err)
		}
		if err := Write(out, rep, files); err != nil {
			t.Fatal(err)
		}
	}
	// The source folder itself as --out is refused, not walked as empty.
	if _, err := Sources([]string{src}, src); err == nil || !strings.Contains(err.Error(), "is both a source folder and the --out folder") {
		t.Errorf("--out = SRC: err = %v", err)
	}
	// A dry run (no --out) walks everything.
	srcs, err := Sources([]string{src}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) < 2 {
		t.Errorf("with no folder to skip: %d sources", len(srcs))
	}
}

// TestMigrateBadInput: a page that is not text, or whose code fences do
// not pair up, is refused with FILE:LINE (nothing is migrated from it).
func TestMigrateBadInput(t *testing.T) {
	simple, err := os.ReadFile("testdata/variants/simple.md")
	if err != nil {
		t.Fatal(err)
	}
	// simple.md's first output fence (line 11) loses its closing fence
	// (line 24): the "```bash" of line 28, now 27, then opens inside it.
	lines := strings.Split(string(simple), "\n")
	unclosed := strings.Join(append(append([]string{}, lines[:23]...), lines[24:]...), "\n")
	// The last fence of the page never closes.
	trailing := strings.TrimSuffix(strings.TrimRight(string(simple), "\n"), "```")
	for _, tc := range []struct {
		name, data, want string
	}{
		{"nul", "# Page\n\nline two\x00\n", "bad.md:3: not a text page (a NUL byte)"},
		{"latin1", "# Page\n\ncaf\xe9\n", "bad.md:3: not a text page (bytes that are not UTF-8)"},
		{"unclosed", unclosed, "bad.md:27: a code fence (```bash) opens while the one opened at line 11 is still open"},
		{"trailing", trailing, "bad.md:32: this code fence is never closed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Migrate("bad.md", []byte(tc.data), "bad", "results/bad/src/bad.md")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestRelativeLinksFollowThePage: a/b.md becomes content/a/b/index.md, a
// folder deeper, so its relative links are rewritten to name the same
// files; the built page links to the pages the source linked to.
func TestRelativeLinksFollowThePage(t *testing.T) {
	src := filepath.Join(t.TempDir(), "lab")
	simple, err := os.ReadFile("testdata/variants/simple.md")
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Replace(string(simple), "A quick comparison on one L4, run by hand.",
		"A quick comparison on one L4 ([lab](../index.md), [method](./method.md#setup), [vendor](https://example.com/a.md), [top](#vllm)).\n\n"+
			"<a href=\"method.md\">the method</a>, [see][m].\n\n[m]: method.md", 1)
	writeTree(t, src, map[string]string{
		"index.md":          "# Lab\n\n[Llama](engines/simple.md)\n",
		"engines/method.md": "# Method\n\n## Setup\n\nBy hand.\n",
		"engines/simple.md": page,
	})
	rep, files := planDir(t, src)
	out := t.TempDir()
	if err := Write(out, rep, files); err != nil {
		t.Fatal(err)
	}
	idx, err := os.ReadFile(filepath.Join(out, "content", "engines", "simple", "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[lab](../../index.md)", "[method](../method.md#setup)", "[vendor](https://example.com/a.md)", "[top](#vllm)",
		`<a href="../method.md">`, "[m]: ../method.md"} {
		if !bytes.Contains(idx, []byte(want)) {
			t.Errorf("migrated page lacks %s:\n%s", want, idx)
		}
	}
	if err := render.Build(context.Background(), render.Options{
		Content: filepath.Join(out, "content"), Results: filepath.Join(out, "results"), Out: filepath.Join(out, "site")}); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(out, "site", "engines", "simple", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`href="../../index.html">lab`, `href="../../engines/method/index.html#setup">method`} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("built page lacks %s", want)
		}
	}
}

// TestJSONResultReported: a result pasted as JSON (vLLM's --save-result)
// is not imported, but reported at its line, also on a page that has no
// text output (which is otherwise copied as a plain page); JSON that is
// no benchmark result (a config) is not.
func TestJSONResultReported(t *testing.T) {
	rec := `{"date": "20250401-101010", "backend": "vllm", "model_id": "Qwen/Qwen3-8B", "num_prompts": 100, "completed": 100, "total_input_tokens": 51200, "total_output_tokens": 12800, "duration": 10.0, "request_throughput": 10.0, "output_throughput": 1280.0, "total_token_throughput": 6400.0, "mean_ttft_ms": 90.0}`
	for _, tc := range []struct {
		name, page string
		plain      bool
		want       string
	}{
		{"with-text", strings.Replace(mustRead(t, "testdata/variants/simple.md"), "## llama.cpp", "The saved record:\n\n```json\n"+rec+"\n```\n\n## llama.cpp", 1), false,
			"page.md:29: a benchmark result pasted as JSON (vLLM's --save-result record: 100 requests completed, 6400.00 tok/s total) is not imported"},
		{"json-only", "# Qwen3-8B\n\n```bash\nvllm serve Qwen/Qwen3-8B\n```\n\n```json\n" + rec + "\n```\n\n```json\n{\"max_model_len\": 8192}\n```\n", true,
			"page.md:8: a benchmark result pasted as JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pg, err := Migrate("page.md", []byte(tc.page), "page", "results/page/src/page.md")
			if err != nil {
				t.Fatal(err)
			}
			if pg.Plain != tc.plain {
				t.Errorf("plain %v, want %v", pg.Plain, tc.plain)
			}
			if len(pg.Ambiguities) == 0 || !strings.Contains(pg.Ambiguities[0].String(), tc.want) {
				t.Fatalf("ambiguities %v, want one starting %q", pg.Ambiguities, tc.want)
			}
			n := 0
			for _, a := range pg.Ambiguities {
				if strings.Contains(a.Msg, "JSON") {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%d JSON ambiguities, want 1: %v", n, pg.Ambiguities)
			}
		})
	}
}

func mustRead(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInlineChartKeepsTextOrder: a chart image inside a sentence is
// replaced by a chart block between the text before it and the text after
// it, in that order.
func TestInlineChartKeepsTextOrder(t *testing.T) {
	page := strings.Replace(mustRead(t, "testdata/variants/simple.md"), "A quick comparison on one L4, run by hand.",
		"A quick comparison on one L4, run by hand. Throughput: ![tps](img/tps.png) (higher is better).", 1)
	pg, err := Migrate("page.md", []byte(page), "page", "results/page/src/page.md")
	if err != nil {
		t.Fatal(err)
	}
	idx := string(pg.Index)
	before := strings.Index(idx, "run by hand. Throughput:")
	chart := strings.Index(idx, "block: chart")
	after := strings.Index(idx, "(higher is better).")
	if before < 0 || chart < 0 || after < 0 || !(before < chart && chart < after) || strings.Contains(idx, "tps.png") {
		t.Fatalf("text before the image at %d, chart at %d, text after at %d:\n%s", before, chart, after, idx)
	}
}

// TestLinkedFilesCopied: the images and other files a migrated page still
// links to (a diagram on a plain page, a photo on a report) are copied to
// the same place below content/, once; a file outside the folder migrated
// cannot be, and the link to it is reported at its line.
func TestLinkedFilesCopied(t *testing.T) {
	top := t.TempDir()
	src := filepath.Join(top, "lab")
	page := strings.Replace(mustRead(t, "testdata/variants/simple.md"), "A quick comparison on one L4, run by hand.",
		"A quick comparison on one L4, run by hand.\n\n<img src=\"../img/rack.jpg\" alt=\"rack\"> [Notes](../files/notes.txt#top) [elsewhere](../../outside.png)", 1)
	writeTree(t, src, map[string]string{
		"index.md":          "# Lab\n\n![Rack](img/rack.jpg)\n\n[Llama](engines/simple.md) [gone](img/missing.png)\n",
		"engines/simple.md": page,
		"img/rack.jpg":      "JPEG",
		"files/notes.txt":   "notes",
		"files/unused.txt":  "not linked",
		"../outside.png":    "PNG",
	})
	rep, files := planDir(t, src)
	var got []string
	for _, f := range files {
		if strings.HasPrefix(f.Path, "content/img/") || strings.HasPrefix(f.Path, "content/files/") || strings.Contains(f.Path, "outside") {
			got = append(got, f.Path)
		}
	}
	if strings.Join(got, " ") != "content/files/notes.txt content/img/rack.jpg" {
		t.Errorf("copied %v, want content/files/notes.txt content/img/rack.jpg", got)
	}
	var amb []string
	for _, pg := range rep.Pages {
		for _, a := range pg.Ambiguities {
			if strings.Contains(a.Msg, "outside the folder") {
				amb = append(amb, a.String())
			}
		}
	}
	want := filepath.Join(src, "engines", "simple.md") + ":5: the page links to ../../outside.png, outside the folder migrated"
	if len(amb) != 1 || !strings.HasPrefix(amb[0], want) {
		t.Errorf("ambiguities %v, want one starting %q", amb, want)
	}
	out := t.TempDir()
	if err := Write(out, rep, files); err != nil {
		t.Fatal(err)
	}
	if err := render.Build(context.Background(), render.Options{
		Content: filepath.Join(out, "content"), Results: filepath.Join(out, "results"), Out: filepath.Join(out, "site")}); err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(filepath.Join(out, "site", "engines", "simple", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(html, []byte(`src="../../img/rack.jpg"`)) {
		t.Errorf("built page does not show the copied image")
	}
	if _, err := os.Stat(filepath.Join(out, "site", "img", "rack.jpg")); err != nil {
		t.Error(err)
	}
}

// TestEngineVersionMarkup: versions written with emphasis or as code
// ("- **vLLM**: `0.10.1`", "- SGLang `v0.4.9`") are read.
func TestEngineVersionMarkup(t *testing.T) {
	page := strings.Replace(mustRead(t, "testdata/variants/simple.md"), "A quick comparison on one L4, run by hand.",
		"A quick comparison on one L4, run by hand.\n\n## Engine Version\n\n- **vLLM**: `0.10.1`\n- llama.cpp `b5000`\n", 1)
	pg, err := Migrate("page.md", []byte(page), "page", "results/page/src/page.md")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range pg.Campaign.Engines {
		got[e.Name] = e.Version
	}
	if got["vllm"] != "0.10.1" || got["llamacpp"] != "b5000" {
		t.Errorf("engines %v, want vllm 0.10.1 and llamacpp b5000", got)
	}
	for _, a := range pg.Ambiguities {
		if strings.Contains(a.Msg, "no version") {
			t.Errorf("ambiguity: %s", a)
		}
	}
}

// TestVariantLatencySGLang: a latency page of another shape (a Summary
// with the recommended command and a comparison table, "## Setup" with
// `###` parts, "Step N — …" headings, `####` engine headings, labels
// inside the fences naming the dataset list's profiles, unlabelled SGLang
// blocks placed by their tokens per request).
func TestVariantLatencySGLang(t *testing.T) {
	pg := migrateFile(t, "testdata/variants/latency-sglang.md")
	want := "vllm/chat vllm/summarize sglang/chat sglang/summarize torch.compile/chat torch.compile/summarize"
	if got := strings.Join(pairs(pg), " "); got != want {
		t.Fatalf("pairs %s, want %s", got, want)
	}
	c := pg.Campaign
	if c.Objective != "latency" || c.Baseline != "vllm" || c.Optimized != "torch.compile" || c.Hardware.Count != 4 || c.Hardware.GPU != "A100 80GB" {
		t.Errorf("campaign: objective %q, baseline %q, optimized %q, hardware %+v", c.Objective, c.Baseline, c.Optimized, c.Hardware)
	}
	if len(pg.Ambiguities) != 0 {
		t.Errorf("ambiguities: %v", pg.Ambiguities)
	}
	r := result(t, pg, "sglang", "chat")
	if r.Tool.Name != ingest.SGLangTool || r.Summary.E2EL == nil || r.Summary.E2EL.MeanMs == nil || *r.Summary.E2EL.MeanMs != 9103.10 || *r.Summary.TTFT.MeanMs != 655.10 {
		t.Errorf("sglang/chat: tool %q, e2el %+v, ttft %+v", r.Tool.Name, r.Summary.E2EL, r.Summary.TTFT)
	}
	notes := strings.Join(pg.Notes, "\n")
	for _, want := range []string{
		`latency-sglang.md:52: output → experiment vllm, profile chat [label: label "chat" testdata/variants/latency-sglang.md:51]`,
		"latency-sglang.md:107: output → experiment sglang, profile chat [rows: 1000 input / 256 output tokens per request fit its lengths]",
		"latency-sglang.md:13: hand-made table replaced by a generated \"comparison\" block",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	buildProject(t, pg, "latency-sglang.md")
}

// TestHeadingMarkup: experiments and steps are named from their headings'
// text, without the heading's markup: attribute lists, links, code spans.
func TestHeadingMarkup(t *testing.T) {
	page := mustRead(t, "testdata/variants/latency-sglang.md")
	page = strings.Replace(page, "#### vLLM\n", "#### vLLM {#engine-vllm}\n", 1)
	page = strings.Replace(page, "#### SGLang\n", "#### [SGLang](https://github.com/sgl-project/sglang)\n", 1)
	page = strings.Replace(page, "### Step 2 — torch.compile\n\ntorch.compile\n", "### Step 2 — `torch.compile`\n\n`torch.compile`\n", 1)
	pg, err := Migrate("page.md", []byte(page), "page", "results/page/src/page.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range pg.Campaign.Steps {
		for _, x := range s.Experiments {
			got = append(got, s.Title+": "+x.ID+" "+x.Name)
		}
	}
	want := "Step 1 — Engine selection: vllm vLLM|Step 1 — Engine selection: sglang SGLang|Step 2 — torch.compile: torch.compile torch.compile"
	if strings.Join(got, "|") != want {
		t.Errorf("steps and experiments\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}

// TestAPIServerCommand: vLLM's OpenAI server started as a module (python
// -m vllm.entrypoints.openai.api_server, older vLLM's way) is a serving
// command: its outputs are placed in its experiment, not left unassigned.
func TestAPIServerCommand(t *testing.T) {
	page := strings.Replace(mustRead(t, "testdata/variants/simple.md"), "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192",
		"python -m vllm.entrypoints.openai.api_server --model meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192", 1)
	pg, err := Migrate("page.md", []byte(page), "page", "results/page/src/page.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(pairs(pg), " "); got != "vllm/random-512-128 llama.cpp/random-512-128" || pg.Unassigned != 0 {
		t.Fatalf("pairs %s, %d unassigned", got, pg.Unassigned)
	}
	if r := result(t, pg, "vllm", "random-512-128"); r.Engine.Name != "vllm" || pg.Campaign.Model.ID != "meta-llama/Llama-3.1-8B-Instruct" {
		t.Errorf("engine %q, model %q", r.Engine.Name, pg.Campaign.Model.ID)
	}
}

// TestFenceCommentKept: on a page without a level-1 heading, a "# …"
// comment inside a code fence is kept (it was taken for the page's title
// and dropped); the title heading of a page that has one is dropped.
func TestFenceCommentKept(t *testing.T) {
	simple := mustRead(t, "testdata/variants/simple.md")
	cmd := "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192"
	noTitle := strings.Replace(strings.TrimPrefix(simple, "# Llama 3.1 8B: vLLM or llama.cpp?\n"), cmd, "# start the server\n"+cmd, 1)
	pg, err := Migrate("page.md", []byte(noTitle), "page", "results/page/src/page.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(pg.Index, []byte("```bash\n# start the server\n"+cmd)) {
		t.Errorf("the fence's comment was dropped:\n%s", pg.Index)
	}
	pg, err = Migrate("page.md", []byte(simple), "page", "results/page/src/page.md")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(pg.Index, []byte("# Llama 3.1 8B")) || !bytes.Contains(pg.Index, []byte(`title: "Llama 3.1 8B: vLLM or llama.cpp?"`)) {
		t.Errorf("the title heading is not moved to the front matter:\n%s", pg.Index)
	}
}

// TestNonASCIINames: headings and file names with no ASCII letter or
// digit (a Chinese lab) give distinct ids: two experiments named "基线"
// and "优化" were both "experiment", and the page failed to import.
func TestNonASCIINames(t *testing.T) {
	page := strings.Replace(strings.Replace(mustRead(t, "testdata/variants/simple.md"), "## vLLM\n", "## 基线\n", 1), "## llama.cpp\n", "## 优化\n", 1)
	pg, err := Migrate("基线.md", []byte(page), CampaignID("基线.md"), "results/x/src/基线.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(pairs(pg), " "); got != "experiment/random-512-128 experiment-2/random-512-128" {
		t.Errorf("pairs %s", got)
	}
	if x, ok := pg.Campaign.Experiment("experiment-2"); !ok || x.Name != "优化" {
		t.Errorf("experiment-2: %+v", x)
	}
	a, b := CampaignID("性能/基线.md"), CampaignID("性能/优化.md")
	if a == b || !strings.HasPrefix(a, "page-") || CampaignID("index.md") != "index" {
		t.Errorf("campaign ids %q, %q", a, b)
	}
	m := &migration{p: newPage("p.md", ""), out: &Page{}}
	long := m.addProfile(0, schema.Profile{Name: "长提示", Dataset: "random", InputLen: 4000}, "test")
	short := m.addProfile(0, schema.Profile{Name: "短提示", Dataset: "random", InputLen: 128}, "test")
	if long.ID == short.ID || len(m.profiles) != 2 {
		t.Errorf("profiles %+v", m.profiles)
	}
}

// TestTildeFences: a ~~~ fence holding ``` lines (how to paste an output)
// is one fence: its ``` lines neither open nor close one, so the page
// migrates; a ~~~ fence left open is reported where it opens.
func TestTildeFences(t *testing.T) {
	howto := "How to paste an output:\n\n~~~markdown\n```text\n(the output)\n```\n~~~\n\n"
	page := strings.Replace(mustRead(t, "testdata/variants/simple.md"), "## vLLM\n", howto+"## vLLM\n", 1)
	pg, err := Migrate("page.md", []byte(page), "page", "results/page/src/page.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(pairs(pg), " "); got != "vllm/random-512-128 llama.cpp/random-512-128" {
		t.Errorf("pairs %s", got)
	}
	if !bytes.Contains(pg.Index, []byte("~~~markdown\n```text\n(the output)\n```\n~~~")) {
		t.Errorf("the ~~~ fence is not kept as it was:\n%s", pg.Index)
	}
	broken := strings.Replace(page, "```\n~~~\n", "```\n", 1)
	_, err = Migrate("page.md", []byte(broken), "page", "results/page/src/page.md")
	if err == nil || !strings.Contains(err.Error(), "page.md:7: this code fence is never closed") {
		t.Errorf("err = %v", err)
	}
}

// TestShellPrompt: serving commands written after a shell prompt
// ("$ vllm serve …") are serving commands; the outputs after them were
// left unassigned.
func TestShellPrompt(t *testing.T) {
	page := strings.Replace(strings.Replace(mustRead(t, "testdata/variants/simple.md"), "\nvllm serve ", "\n$ vllm serve ", 1), "\nllama-server ", "\n$ llama-server ", 1)
	pg, err := Migrate("page.md", []byte(page), "page", "results/page/src/page.md")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(pairs(pg), " "); got != "vllm/random-512-128 llama.cpp/random-512-128" || pg.Unassigned != 0 {
		t.Fatalf("pairs %s, %d unassigned", got, pg.Unassigned)
	}
	if x, _ := pg.Campaign.Experiment("vllm"); x.Command != "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192" {
		t.Errorf("command %q", x.Command)
	}
}

// TestNoModelReported: a page that names no model anywhere says so.
func TestNoModelReported(t *testing.T) {
	var kept []string
	for _, l := range strings.Split(mustRead(t, "testdata/variants/simple.md"), "\n") {
		if !strings.HasPrefix(l, "vllm serve") && !strings.HasPrefix(l, "llama-server") {
			kept = append(kept, l)
		}
	}
	pg, err := Migrate("page.md", []byte(strings.Join(kept, "\n")), "page", "results/page/src/page.md")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range pg.Ambiguities {
		found = found || a.String() == "page.md:1: the page names no model: no Model section, and no serving or benchmark command names one"
	}
	if !found || pg.Campaign.Model.Name != "" {
		t.Errorf("model %+v; ambiguities %v", pg.Campaign.Model, pg.Ambiguities)
	}
}

// TestStepTableKept: a before/after table inside a step compares that
// step's runs; it is kept, not replaced by the campaign's comparison block
// (which shows the baseline and optimized runs, other numbers). The
// Summary's table still is.
func TestStepTableKept(t *testing.T) {
	page := strings.Replace(mustRead(t, "testdata/variants/latency-sglang.md"),
		"TTFT drops by 37% on chat (655.1 → 412.0 ms).",
		"| Case | Baseline (SGLang) | Optimized (torch.compile) |\n|---|---|---|\n| Chat | 655.10 ms | 412.00 ms |", 1)
	pg, err := Migrate("page.md", []byte(page), "page", "results/page/src/page.md")
	if err != nil {
		t.Fatal(err)
	}
	idx := string(pg.Index)
	if strings.Count(idx, "block: comparison") != 1 || !strings.Contains(idx, "\n| Chat | 655.10 ms | 412.00 ms |") {
		t.Errorf("want the Summary's table replaced and the step's kept:\n%s", idx)
	}
}

// TestStepNamingSeveralEngines: a step whose heading compares engines
// ("vLLM vs SGLang") is no ambiguity for either engine's experiment; one
// naming only other engines still is.
func TestStepNamingSeveralEngines(t *testing.T) {
	for _, tc := range []struct{ title, want string }{
		{"Step 1 — vLLM vs SGLang", ""},
		{"Step 1 — vLLM/SGLang", ""},
		{"Step 1 — TensorRT-LLM", "page.md:47: experiment vllm runs vllm, but its step \"Step 1 — TensorRT-LLM\" names TensorRT-LLM"},
	} {
		page := strings.Replace(mustRead(t, "testdata/variants/latency-sglang.md"), "### Step 1 — Engine selection\n", "### "+tc.title+"\n", 1)
		pg, err := Migrate("page.md", []byte(page), "page", "results/page/src/page.md")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, a := range pg.Ambiguities {
			got = append(got, a.String())
		}
		if tc.want == "" && len(got) != 0 || tc.want != "" && (len(got) != 2 || got[0] != tc.want) {
			t.Errorf("%s: ambiguities %q, want %q", tc.title, got, tc.want)
		}
	}
}

// TestModelSectionMarkup: the Model section's model is read without its
// markup (a link, a "Model:" label, code, a note in parentheses); the
// whole line was taken as the model id, and every command's model then
// reported as another model.
func TestModelSectionMarkup(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"[meta-llama/Llama-3.3-70B-Instruct](https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct)", "meta-llama/Llama-3.3-70B-Instruct"},
		{"[Llama 3.3 70B](https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct)", "meta-llama/Llama-3.3-70B-Instruct"},
		{"Model: `meta-llama/Llama-3.3-70B-Instruct`", "meta-llama/Llama-3.3-70B-Instruct"},
		{"meta-llama/Llama-3.3-70B-Instruct (BF16)", "meta-llama/Llama-3.3-70B-Instruct"},
		{"**Llama-3.3-70B-Instruct** (BF16)", "Llama-3.3-70B-Instruct"},
		{"Qwen3-32B", "Qwen3-32B"},
		{"Qwen/Qwen3.5-35B-A3B", "Qwen/Qwen3.5-35B-A3B"},
	} {
		if got := modelText(tc.line); got != tc.want {
			t.Errorf("modelText(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
	page := strings.Replace(mustRead(t, "testdata/variants/latency-sglang.md"), "\nmeta-llama/Llama-3.3-70B-Instruct\n",
		"\n- Model: [Llama 3.3 70B](https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct) (BF16)\n", 1)
	pg, err := Migrate("page.md", []byte(page), "page", "results/page/src/page.md")
	if err != nil {
		t.Fatal(err)
	}
	if pg.Campaign.Model.ID != "meta-llama/Llama-3.3-70B-Instruct" || len(pg.Ambiguities) != 0 {
		t.Errorf("model %+v, ambiguities %v", pg.Campaign.Model, pg.Ambiguities)
	}
}

// TestByteOrderMark: a page saved with a byte order mark keeps its title
// (the first line did not read as a heading, and the title was lost).
func TestByteOrderMark(t *testing.T) {
	pg, err := Migrate("page.md", []byte("\ufeff"+mustRead(t, "testdata/variants/simple.md")), "page", "results/page/src/page.md")
	if err != nil {
		t.Fatal(err)
	}
	if pg.Campaign.Title != "Llama 3.1 8B: vLLM or llama.cpp?" || bytes.Contains(pg.Index, []byte("\ufeff")) {
		t.Errorf("title %q; index starts %q", pg.Campaign.Title, pg.Index[:40])
	}
}

// TestFrontMatter: MkDocs front matter is the page's own, not text: its
// title and description are kept, its other keys (hide, tags), which stop
// perflab's build, are dropped with a note, on plain and report pages; a
// "# comment" in it is no title; front matter that is no YAML is refused
// at its line.
func TestFrontMatter(t *testing.T) {
	src := filepath.Join(t.TempDir(), "lab")
	report := "---\n# shown in the nav\ntitle: Llama vs llama.cpp on L4\ndescription: By hand.\ntags:\n  - l4\n---\n\n" + mustRead(t, "testdata/variants/simple.md")
	writeTree(t, src, map[string]string{
		"about.md":  "---\ntitle: About\nhide:\n  - navigation\n---\n\n# About\n\nProse.\n",
		"plain.md":  "---\ntitle: Plain\n---\n\nAs it was.\n",
		"simple.md": report,
	})
	rep, files := planDir(t, src)
	got := map[string]string{}
	for _, f := range files {
		got[f.Path] = string(f.Data)
	}
	if want := "---\ntitle: About\n---\n\n# About\n\nProse.\n"; got["content/about.md"] != want {
		t.Errorf("about.md:\n%s\nwant\n%s", got["content/about.md"], want)
	}
	if want := "---\ntitle: Plain\n---\n\nAs it was.\n"; got["content/plain.md"] != want {
		t.Errorf("plain.md changed:\n%s", got["content/plain.md"])
	}
	if idx := got["content/simple/index.md"]; !strings.HasPrefix(idx, "---\ntitle: Llama vs llama.cpp on L4\ndescription: By hand.\ncampaign: campaign.yaml\n---\n") || strings.Contains(idx, "tags") {
		t.Errorf("report page's front matter:\n%s", idx)
	}
	if rep.Pages[2].Campaign.Title != "Llama 3.1 8B: vLLM or llama.cpp?" {
		t.Errorf("campaign title %q", rep.Pages[2].Campaign.Title)
	}
	if !strings.Contains(strings.Join(rep.Pages[0].Notes, "\n"), "about.md:1: front matter keys hide dropped") {
		t.Errorf("notes %v", rep.Pages[0].Notes)
	}
	out := t.TempDir()
	if err := Write(out, rep, files); err != nil {
		t.Fatal(err)
	}
	if err := render.Build(context.Background(), render.Options{
		Content: filepath.Join(out, "content"), Results: filepath.Join(out, "results"), Out: filepath.Join(out, "site")}); err != nil {
		t.Fatalf("the migrated project does not build: %v", err)
	}
	_, err := Migrate("bad.md", []byte("---\ntitle: [unclosed\n---\n\n# Bad\n"), "bad", "results/bad/src/bad.md")
	if err == nil || !strings.Contains(err.Error(), "bad.md:1: front matter:") {
		t.Errorf("err = %v", err)
	}
}

// TestSetupImageKept: an image in a setup section (the GPUs' topology
// under Hardware) is kept, not replaced by a throughput chart; one under
// the Summary or the results is a chart.
func TestSetupImageKept(t *testing.T) {
	page := strings.Replace(mustRead(t, "testdata/variants/latency-sglang.md"), "4x NVIDIA A100 80GB\n",
		"4x NVIDIA A100 80GB\n\n![NVLink topology](img/topo.png)\n", 1)
	page = strings.Replace(page, "## Results\n", "## Benchmark Results\n\n![TTFT per step](img/steps.png)\n", 1)
	pg, err := Migrate("page.md", []byte(page), "page", "results/page/src/page.md")
	if err != nil {
		t.Fatal(err)
	}
	idx := string(pg.Index)
	if !strings.Contains(idx, "![NVLink topology](img/topo.png)") || strings.Contains(idx, "steps.png") || strings.Count(idx, "block: chart") != 2 {
		t.Errorf("want the topology kept and two charts:\n%s", idx)
	}
}

// TestLinkedFileEscaped: a link that escapes its file name
// ("my%20rack.jpg") names the file "my rack.jpg", which is copied.
func TestLinkedFileEscaped(t *testing.T) {
	src := t.TempDir()
	for name, data := range map[string]string{"index.md": "# Lab\n\n![Rack](img/my%20rack.jpg)\n", "img/my rack.jpg": "JPEG"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, files := planDir(t, src)
	if len(files) != 2 || files[1].Path != "content/img/my rack.jpg" || string(files[1].Data) != "JPEG" {
		t.Errorf("files %+v", files)
	}
}

// TestCollapsedPageWithBrokenLines: a page that lost most of its line
// breaks but kept some (the bundled Qwen3.5 source: the collapsed seed with
// a "# perflab:" line before each output) indexes its lines as ingest counts
// them. It panicked with an index out of range.
func TestCollapsedPageWithBrokenLines(t *testing.T) {
	pg := migrateFile(t, "../../results/qwen3.5-35b-a3b-h200/src/seed.md")
	if len(pg.Results) != 13 {
		t.Fatalf("%d results: %v", len(pg.Results), pairs(pg))
	}
}

// TestVariantSweep: outputs of one serving command at several max
// concurrencies (or request rates) on one page are the points of a sweep
// profile, named as collect names them (--c64), and the page renders as a
// curve page with one raw block per point; a profile that another
// experiment ran at one load gets a "-sweep" copy instead.
func TestVariantSweep(t *testing.T) {
	data, err := os.ReadFile("testdata/variants/sweep.md")
	if err != nil {
		t.Fatal(err)
	}
	ids := func(pg *Page) string {
		var out []string
		for _, r := range pg.Results {
			out = append(out, r.ID+"@"+r.Load.Sweep)
		}
		return strings.Join(out, " ")
	}
	rate := strings.NewReplacer("Maximum request concurrency:             1\n", "Request rate configured (RPS):           1.00\n",
		"Maximum request concurrency:             8\n", "Request rate configured (RPS):           8.00\n",
		"Maximum request concurrency:             64\n", "").Replace(string(data))
	// vLLM prints no rate line for an unlimited rate (inf).
	// A second serving command on the same profile, run at one load (its
	// own numbers: the c1 block with another mean TTFT; the very same
	// numbers would be the c1 run pasted again).
	mixed := string(data) + "\n## SGLang\n\n```bash\npython3 -m sglang.launch_server --model-path Qwen/Qwen3-8B\n```\n\n" +
		strings.Replace(string(data[strings.Index(string(data), "```\n====="):strings.Index(string(data), "Max concurrency 8:")]),
			"Mean TTFT (ms):                          60.00", "Mean TTFT (ms):                          55.00", 1)
	for _, tc := range []struct {
		name, page, ids, profile string
		points                   []string
	}{
		{"concurrency", string(data), "benchmark--random-1024-256--c1@max_concurrency benchmark--random-1024-256--c8@max_concurrency benchmark--random-1024-256--c64@max_concurrency",
			"random-1024-256", []string{"1", "8", "64"}},
		{"rate", rate, "benchmark--random-1024-256--rate1@request_rate benchmark--random-1024-256--rate8@request_rate benchmark--random-1024-256--rateinf@request_rate",
			"random-1024-256", []string{"1", "8", "inf"}},
		// A crash marker states no load: it is no point of the sweep.
		{"crash", string(data) + "\nMax concurrency 256:\n\n```\n# Crash: out of memory\n```\n",
			"benchmark--random-1024-256--c1@max_concurrency benchmark--random-1024-256--c8@max_concurrency benchmark--random-1024-256--c64@max_concurrency unassigned-1--unassigned@",
			"random-1024-256", []string{"1", "8", "64"}},
		{"mixed", mixed, "benchmark--random-1024-256-sweep--c1@max_concurrency benchmark--random-1024-256-sweep--c8@max_concurrency benchmark--random-1024-256-sweep--c64@max_concurrency sglang--random-1024-256@",
			"random-1024-256-sweep", []string{"1", "8", "64"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pg, err := Migrate("sweep.md", []byte(tc.page), "sweep", "results/sweep/src/sweep.md")
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(pg); got != tc.ids {
				t.Errorf("results %s\nwant %s", got, tc.ids)
			}
			for _, a := range pg.Ambiguities {
				if strings.Contains(a.Msg, "not placed") && (tc.name != "crash" || !strings.Contains(a.Msg, "a crash marker among the outputs of experiment benchmark's sweep")) {
					t.Errorf("ambiguity %s", a)
				}
			}
			pr, ok := pg.Campaign.Profile(tc.profile)
			if !ok || strings.Join(pr.PointValues(), ",") != strings.Join(tc.points, ",") {
				t.Fatalf("profile %s: %+v", tc.profile, pr)
			}
			if tc.name == "mixed" {
				if one, _ := pg.Campaign.Profile("random-1024-256"); one == nil || one.Sweep() != "" {
					t.Errorf("the profile at one load: %+v", one)
				}
			}
			// Built: the curve blocks and one raw output per point.
			out := t.TempDir()
			files, err := pg.Files("sweep.md")
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range files {
				p := filepath.Join(out, filepath.FromSlash(f.Path))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, f.Data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := render.Build(context.Background(), render.Options{
				Content: filepath.Join(out, "content"), Results: filepath.Join(out, "results"), Out: filepath.Join(out, "site")}); err != nil {
				t.Fatal(err)
			}
			html, err := os.ReadFile(filepath.Join(out, "site", "sweep", "index.html"))
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(html, []byte(`<figure class="chart-figure">`)); n != 2 {
				t.Errorf("%d charts, want the curve and the latency curve", n)
			}
			for _, pt := range []string{"Total Token throughput (tok/s):          1280.00", "Total Token throughput (tok/s):          8000.00", "Total Token throughput (tok/s):          32000.00"} {
				if !bytes.Contains(html, []byte(pt)) {
					t.Errorf("built page lacks the raw output with %q", pt)
				}
			}
		})
	}
}

// TestVariantDocker: serving commands run in containers (`docker run …
// vllm/vllm-openai:v0.11.0 --model …`, `docker run … lmsysorg/sglang …
// python3 -m sglang.launch_server …`) are experiments: engine from the
// inner command or the image, model from --model / --model-path, engine
// version from the image tag; no output is unassigned.
func TestVariantDocker(t *testing.T) {
	pg := migrateFile(t, "testdata/variants/docker.md")
	if got := strings.Join(pairs(pg), " "); got != "vllm/random-512-128 sglang/random-512-128" {
		t.Fatalf("pairs %s", got)
	}
	if pg.Unassigned != 0 {
		t.Errorf("%d unassigned", pg.Unassigned)
	}
	for _, tc := range []struct{ exp, engine, image string }{{"vllm", "vllm", "vllm/vllm-openai:v0.11.0"}, {"sglang", "sglang", "lmsysorg/sglang:v0.5.4"}} {
		x, ok := pg.Campaign.Experiment(tc.exp)
		if !ok || x.Engine != tc.engine || !strings.HasPrefix(x.Command, "docker run") || !strings.Contains(x.Command, tc.image) {
			t.Errorf("experiment %s: %+v", tc.exp, x)
		}
		r := result(t, pg, tc.exp, "random-512-128")
		if r.Engine.Name != tc.engine || r.Model.ID != "meta-llama/Llama-3.1-8B-Instruct" || !strings.Contains(r.Engine.Command, tc.image) {
			t.Errorf("result %s: engine %+v model %+v", r.ID, r.Engine, r.Model)
		}
	}
	if pg.Campaign.Model.ID != "meta-llama/Llama-3.1-8B-Instruct" {
		t.Errorf("model %+v", pg.Campaign.Model)
	}
	want := map[string]string{"vllm": "v0.11.0", "sglang": "v0.5.4"}
	for _, e := range pg.Campaign.Engines {
		if want[e.Name] != e.Version {
			t.Errorf("engine %+v, want version %s", e, want[e.Name])
		}
	}
}

// writeTree writes files (path → content) below dir, making folders.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// planDir plans the migration of the folder dir.
func planDir(t *testing.T, dir string) (*Report, []File) {
	t.Helper()
	srcs, err := Sources([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	rep, files, err := Plan(context.Background(), srcs)
	if err != nil {
		t.Fatal(err)
	}
	return rep, files
}

// TestResultsUnderTheirConfigsHeading: a page that lists its serving
// commands first, each under a heading ("### TP8", "### TP4 x DP2"), and
// their outputs after under headings naming them ("### Results: TP8",
// "### 基线 (TP8) 结果", CRLF) places each output on the command its
// heading names, not on the last command above it (which made the first
// config's output a run of the second and lost the first config).
func TestResultsUnderTheirConfigsHeading(t *testing.T) {
	for _, c := range []struct{ file, want, base, tput string }{
		{"testdata/otherlabs/recipe-results-after.md", "tp8/random-1024-1024 tp4-x-dp2/random-1024-1024", "tp8", "5673.13"},
		{"testdata/otherlabs/zh-results-after-crlf.md", "tp8/random-4096-1024 dp-attention/random-4096-1024", "tp8", "1247.32"},
	} {
		pg := migrateFile(t, c.file)
		if got := strings.Join(pairs(pg), " "); got != c.want {
			t.Errorf("%s: pairs %s, want %s", c.file, got, c.want)
		}
		if pg.Campaign.Baseline != c.base {
			t.Errorf("%s: baseline %q", c.file, pg.Campaign.Baseline)
		}
		r := result(t, pg, c.base, pg.Results[0].Profile)
		if got := fmt.Sprintf("%.2f", r.Summary.OutputThroughput); got != c.tput {
			t.Errorf("%s: %s output throughput %s, want %s (the first block's)", c.file, c.base, got, c.tput)
		}
		x, _ := pg.Campaign.Experiment(c.base)
		if strings.Contains(x.Command, "--dp") || strings.Contains(x.Command, "--data-parallel-size") {
			t.Errorf("%s: %s command %q", c.file, c.base, x.Command)
		}
	}
}

// TestSweepPointPastedAgain: a blog's concurrency sweep (1..256) whose
// c64 point is pasted again at the end "for reference", below another
// serving command (prefix caching off), is the same run: imported once as
// the sweep's c64 point, not a run of the other command ("vLLM (run 2)")
// nor a second c64 point ("--c64--r1"). Without the other command between
// them the repeat of a point that is not the sweep's first is imported
// once too.
func TestSweepPointPastedAgain(t *testing.T) {
	page := mustRead(t, "testdata/otherlabs/blog-sweep-repeat.md")
	from, to := strings.Index(page, "## Prefix caching off"), strings.Index(page, "For reference")
	direct := page[:from] + page[to:]
	for _, c := range []struct {
		name, page string
		want       int
	}{{"with another command between", page, 10}, {"directly after", direct, 9}} {
		pg, err := Migrate("blog.md", []byte(c.page), "blog", "results/blog/src/blog.md")
		if err != nil {
			t.Fatal(err)
		}
		if len(pg.Results) != c.want || pg.Repeats != 1 {
			t.Errorf("%s: %d results (want %d), %d repeats: %v", c.name, len(pg.Results), c.want, pg.Repeats, pairs(pg))
		}
		c64 := 0
		for _, r := range pg.Results {
			if strings.HasPrefix(r.Experiment, "vllm-run") {
				t.Errorf("%s: the repeat made experiment %s", c.name, r.Experiment)
			}
			if r.Experiment == "server" && r.Load.MaxConcurrency == 64 {
				c64++
				if r.ID != "server--random-2048-512-sweep--c64" && r.ID != "server--random-2048-512--c64" {
					t.Errorf("%s: c64 point id %s", c.name, r.ID)
				}
			}
		}
		if c64 != 1 {
			t.Errorf("%s: %d results of server at concurrency 64", c.name, c64)
		}
	}
}

// TestCommandNamedBySection: a blog's serving command under "## Prefix
// caching off" with a sentence between the heading and the command is
// named by that section, not by its engine ("vLLM").
func TestCommandNamedBySection(t *testing.T) {
	pg := migrateFile(t, "testdata/otherlabs/blog-sweep-repeat.md")
	x, ok := pg.Campaign.Experiment("prefix-caching-off")
	if !ok || x.Name != "Prefix caching off" || !strings.Contains(x.Command, "--no-enable-prefix-caching") {
		t.Errorf("experiment prefix-caching-off: %+v; results %v", x, pairs(pg))
	}
}

// TestTabTitleNamesRun: an MkDocs page with its outputs in content tabs
// (=== "H100", === "A100", indented fences) under one command names the
// second run by its tab's title, not "vLLM (run 2)" with a rerun
// ambiguity.
func TestTabTitleNamesRun(t *testing.T) {
	pg := migrateFile(t, "testdata/otherlabs/mkdocs-tabs.md")
	if got := strings.Join(pairs(pg), " "); got != "vllm/sharegpt a100/sharegpt" {
		t.Errorf("pairs %s", got)
	}
	if x, ok := pg.Campaign.Experiment("a100"); !ok || x.Name != "A100" {
		t.Errorf("experiment a100: %+v", x)
	}
	for _, a := range pg.Ambiguities {
		if a.Kind == "rerun" {
			t.Errorf("ambiguity %s", a)
		}
	}
}

// TestBenchmarkServingModuleAndLoad: TensorRT-LLM's `python -m
// tensorrt_llm.serve.scripts.benchmark_serving` is the page's benchmark
// command (its profile, not one made from an output's tokens with a
// new-profile ambiguity), and a profile every output of which ran at one
// concurrency the page states (--max-concurrency 256, "Maximum request
// concurrency: 256") records that load.
func TestBenchmarkServingModuleAndLoad(t *testing.T) {
	pg := migrateFile(t, "testdata/otherlabs/trtllm-benchmark-serving.md")
	pr, ok := pg.Campaign.Profile("random-1024-128")
	if !ok || pr.NumPrompts != 2000 || pr.MaxConcurrency != 256 {
		t.Errorf("profile %+v", pr)
	}
	for _, a := range pg.Ambiguities {
		if a.Kind == "new-profile" {
			t.Errorf("ambiguity %s", a)
		}
	}
	if got := strings.Join(pairs(pg), " "); got != "serve/random-1024-128 with-overlap-scheduler-disabled/random-1024-128" {
		t.Errorf("pairs %s", got)
	}
}

// TestConcurrencyAndRateSweepsOfOneProfile: vLLM and SGLang each swept by
// concurrency (1..64) on one profile, and SGLang also by request rate
// alone (2, 8 req/s; "Max request concurrency: not set") on it: the rate
// outputs are a sweep of their own ("-rate"), the page migrates (its
// concurrency points all fell on the rate sweep's "inf" point and the page
// was not migrated at all).
func TestConcurrencyAndRateSweepsOfOneProfile(t *testing.T) {
	pg := migrateFile(t, "testdata/otherlabs/sweep-concurrency-and-rate.md")
	var ids []string
	for _, r := range pg.Results {
		ids = append(ids, r.ID)
	}
	want := "vllm--random-1000-1000--c1 vllm--random-1000-1000--c4 vllm--random-1000-1000--c16 vllm--random-1000-1000--c64 " +
		"sglang--random-1000-1000--c1 sglang--random-1000-1000--c4 sglang--random-1000-1000--c16 sglang--random-1000-1000--c64 " +
		"sglang--random-1000-1000-rate--rate2 sglang--random-1000-1000-rate--rate8"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("results %s\nwant %s", got, want)
	}
	if pr, ok := pg.Campaign.Profile("random-1000-1000-rate"); !ok || strings.Join(pr.PointValues(), ",") != "2,8" {
		t.Errorf("profile random-1000-1000-rate: %+v", pr)
	}
	if pr, ok := pg.Campaign.Profile("random-1000-1000"); !ok || strings.Join(pr.PointValues(), ",") != "1,4,16,64" {
		t.Errorf("profile random-1000-1000: %+v", pr)
	}
	// Each point ran its own number of prompts (20 at concurrency 1, the
	// profile's 200 is the rate runs'): none lost requests.
	for _, n := range pg.Notes {
		if strings.Contains(n, "not a candidate") {
			t.Errorf("note %s", n)
		}
	}
}

// TestEngineVersionFromInstall: a recipe without an Engine Version
// section or a version in its prose pins its engine in its install
// command ("uv pip install vllm==0.11.0", `pip install "sglang[all]==0.5.3"`):
// that is the engine's version, not an "engine" ambiguity.
func TestEngineVersionFromInstall(t *testing.T) {
	page := mustRead(t, "testdata/otherlabs/recipe-results-after.md")
	for _, c := range []struct{ from, to, want string }{
		{"", "", "vllm v0.11.0"},
		{"uv pip install vllm==0.11.0 --torch-backend=auto", `pip install "vllm[flashinfer]==0.10.2"`, "vllm v0.10.2"},
	} {
		src := strings.Replace(page, c.from, c.to, 1)
		pg, err := Migrate("r.md", []byte(src), "r", "results/r/src/r.md")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range pg.Campaign.Engines {
			got = append(got, e.Name+" "+e.Version)
		}
		if strings.Join(got, ", ") != c.want {
			t.Errorf("%q: engines %v, want %s", c.to, got, c.want)
		}
		for _, a := range pg.Ambiguities {
			if a.Kind == "engine" {
				t.Errorf("%q: ambiguity %s", c.to, a)
			}
		}
	}
}

// TestTwoExperimentsSweepOneProfileTwoWays: vLLM swept by concurrency and
// SGLang by request rate alone on one profile: SGLang's rate sweep is
// profile "-rate" and the page migrates (the rate outputs stayed in the
// concurrency sweep's profile, collided, and the page was not migrated).
func TestTwoExperimentsSweepOneProfileTwoWays(t *testing.T) {
	page := mustRead(t, "testdata/otherlabs/sweep-concurrency-and-rate.md")
	a, b := strings.Index(page, "**SGLang @ concurrency 1**"), strings.Index(page, "## Rate sweep (SGLang)")
	pg, err := Migrate("two.md", []byte(page[:a]+page[b:]), "two", "results/two/src/two.md")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range pg.Results {
		ids = append(ids, r.ID)
	}
	want := "vllm--random-1000-1000--c1 vllm--random-1000-1000--c4 vllm--random-1000-1000--c16 vllm--random-1000-1000--c64 " +
		"sglang--random-1000-1000-rate--rate2 sglang--random-1000-1000-rate--rate8"
	if got := strings.Join(ids, " "); got != want {
		t.Errorf("results %s\nwant %s", got, want)
	}
	for _, x := range pg.Ambiguities {
		if x.Kind == "sweep" {
			t.Errorf("ambiguity %s", x)
		}
	}
}

// TestGuideLLMConsoleTableReported: a page whose results are guidellm's
// console table ("Benchmarks Stats:") has no output perflab reads; it is
// copied as a plain page, but with an ambiguity saying its results were
// not brought over (it was silent: 0 ambiguities, --strict passed).
func TestGuideLLMConsoleTableReported(t *testing.T) {
	pg := migrateFile(t, "testdata/otherlabs/guidellm-console.md")
	if !pg.Plain {
		t.Errorf("not plain: %d results", len(pg.Results))
	}
	n := 0
	for _, a := range pg.Ambiguities {
		if a.Kind == "console-table" {
			n++
			if !strings.HasSuffix(a.Loc, ":14") || !strings.Contains(a.Msg, "perflab import") {
				t.Errorf("ambiguity %s", a)
			}
		}
	}
	if n != 1 {
		t.Errorf("%d console-table ambiguities, want 1: %v", n, pg.Ambiguities)
	}
}
