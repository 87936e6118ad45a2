package migrate

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render"
)

var reValidID = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)

// checkPages asserts what every migration must give (issue 19): every
// output a result (repeats of one run are one), none unassigned, no
// experiment named by a rule line or nothing, every id a bounded slug, and
// every result's tokens per request consistent with its profile.
func checkPages(t *testing.T, pages []*Page) (blocks, results int) {
	t.Helper()
	for _, pg := range pages {
		if pg.Skipped {
			t.Errorf("%s not migrated: %v", pg.Source, pg.Ambiguities)
			continue
		}
		if pg.Plain {
			continue
		}
		blocks += pg.Blocks
		results += len(pg.Results)
		if len(pg.Results)+pg.Repeats != pg.Blocks {
			t.Errorf("%s: %d outputs, %d results + %d repeats", pg.Source, pg.Blocks, len(pg.Results), pg.Repeats)
		}
		if pg.Unassigned != 0 {
			t.Errorf("%s: %d unassigned: %v", pg.Source, pg.Unassigned, pg.Ambiguities)
		}
		c := pg.Campaign
		ids := []string{c.ID}
		for _, p := range c.Profiles {
			ids = append(ids, p.ID)
		}
		for _, s := range c.Steps {
			ids = append(ids, s.ID)
			for _, x := range s.Experiments {
				ids = append(ids, x.ID)
				if reRule.MatchString(x.Name) || reCodeLike.MatchString(x.Name) {
					t.Errorf("%s: experiment %s is named %q", pg.Source, x.ID, x.Name)
				}
			}
		}
		for _, id := range ids {
			if len(id) > maxID || !reValidID.MatchString(id) {
				t.Errorf("%s: id %q is not a slug of at most %d characters", pg.Source, id, maxID)
			}
		}
		for _, r := range pg.Results {
			if len(r.ID)+len(".json") > 255 {
				t.Errorf("%s: result file name %s.json too long", pg.Source, r.ID)
			}
			pr, ok := c.Profile(r.Profile)
			if !ok {
				t.Errorf("%s: result %s: no profile %s", pg.Source, r.ID, r.Profile)
				continue
			}
			if ok, why := fitsSummary(pr, r.Summary); !ok {
				t.Errorf("%s: result %s (%s) does not fit its profile: %s", pg.Source, r.ID, r.Metadata["source"], why)
			}
		}
	}
	return blocks, results
}

// TestCorpusMigratesWhole is issue 19's must-show: the ten GPUStack pages
// of testdata/corpus-gpustack (unedited, Apache-2.0) and the three seeds
// migrate in one call without a page stopping it; every output is a
// result, none collides or is unassigned, no experiment is named by a rule
// line, every result fits its profile, and the project builds.
func TestCorpusMigratesWhole(t *testing.T) {
	var srcs []Source
	corpus, err := Sources([]string{filepath.Join("testdata", "corpus-gpustack")})
	if err != nil {
		t.Fatal(err)
	}
	srcs = append(srcs, corpus...)
	for _, sd := range seeds {
		srcs = append(srcs, Source{Path: filepath.Join("testdata", sd.file), Rel: "seeds/" + sd.file})
	}
	rep, files, err := Plan(context.Background(), srcs)
	if err != nil {
		t.Fatal(err)
	}
	blocks, results := checkPages(t, rep.Pages)
	if blocks < 170 || results < 160 {
		t.Errorf("%d outputs, %d results: the corpus holds more", blocks, results)
	}
	// The batch-size blocks of three pages are load points of ShareGPT.
	loadPoints := 0
	for _, pg := range rep.Pages {
		for _, r := range pg.Results {
			if strings.HasSuffix(r.Profile, "sharegpt-c4") {
				loadPoints++
				if r.Load.MaxConcurrency != 4 || r.Load.NumPrompts != 100 {
					t.Errorf("%s: %s load %+v", pg.Source, r.ID, r.Load)
				}
			}
		}
	}
	if loadPoints != 4 {
		t.Errorf("%d ShareGPT batch-size-4 results in a load-point profile, want the corpus's 4", loadPoints)
	}
	// qwen3-8b: the "Optimized serving script" of Other Benchmark Cases
	// is the speculative step's configuration (spelled --model there),
	// run again at batch sizes 1–8: its four outputs are one experiment,
	// a sweep, and the campaign's optimized.
	for _, pg := range rep.Pages {
		if !strings.HasSuffix(pg.Source, "qwen3-8b/h100-latency.md") {
			continue
		}
		if pg.Campaign.Optimized != "optimized" {
			t.Errorf("qwen3-8b optimized %q", pg.Campaign.Optimized)
		}
		n := 0
		for _, r := range pg.Results {
			if r.Experiment == "optimized" && r.Profile == "sharegpt-sweep" {
				n++
			}
		}
		if n != 4 {
			t.Errorf("qwen3-8b: %d results of the optimized sweep, want 4: %v", n, pairs(pg))
		}
	}
	dir := t.TempDir()
	if err := Write(dir, rep, files); err != nil {
		t.Fatal(err)
	}
	err = render.Build(context.Background(), render.Options{
		Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")})
	if err != nil {
		t.Fatalf("the migrated corpus does not build: %v", err)
	}
}

// TestOtherLabStyles migrates pages written in other labs' styles: a blog
// page with CRLF line ends whose outputs are unfenced, in a block quote,
// in list items and several to a fence with labels between them (one
// dataset at three concurrencies), SGLang's and TensorRT-LLM's variants,
// ShareGPT at batch size 4, a "1k random input + 2k generation" block no
// profile fits and a block cut short; and a page whose only name for its
// experiments is a serving command of over 500 characters.
func TestOtherLabStyles(t *testing.T) {
	crlf := migrateFile(t, "testdata/otherlabs/blog-crlf.md")
	data, err := os.ReadFile("testdata/otherlabs/blog-crlf.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\r\n") {
		t.Fatal("the test page lost its CRLF line ends")
	}
	lf, err := Migrate("testdata/otherlabs/blog-crlf.md", []byte(strings.ReplaceAll(string(data), "\r\n", "\n")), crlf.Campaign.ID, "results/x/src/blog-crlf.md")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(pairs(crlf), " ") != strings.Join(pairs(lf), " ") {
		t.Errorf("CRLF %v\nLF   %v", pairs(crlf), pairs(lf))
	}
	long := migrateFile(t, "testdata/otherlabs/long-command.md")
	checkPages(t, []*Page{crlf, long})

	want := []string{
		"vllm/chat",
		"vllm/chat-sweep", "vllm/chat-sweep", "vllm/chat-sweep", // concurrency 1, 8, 64 in one fence
		"vllm/sharegpt",                    // in a block quote
		"vllm/sharegpt-c4",                 // "ShareGPT batch size 4" in a list item
		"vllm/random-1000-2000",            // "1k random input + 2k generation": not ShareGPT
		"sglang/chat", "tensorrt-llm/chat", // the engines' variants
		"tensorrt-llm/sharegpt", // cut short
	}
	if got := pairs(crlf); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("pairs %v\nwant  %v", got, want)
	}
	sw, _ := crlf.Campaign.Profile("chat-sweep")
	if sw == nil || strings.Join(sw.PointValues(), ",") != "1,8,64" {
		t.Errorf("chat-sweep %+v", sw)
	}
	if p, _ := crlf.Campaign.Profile("sharegpt-c4"); p == nil || p.MaxConcurrency != 4 || p.Dataset != "sharegpt" || p.NumPrompts != 100 {
		t.Errorf("sharegpt-c4 %+v", p)
	}
	if p, _ := crlf.Campaign.Profile("random-1000-2000"); p == nil || p.InputLen != 1000 || p.OutputLen != 2000 || p.NumPrompts != 100 {
		t.Errorf("random-1000-2000 %+v", p)
	}
	sg := result(t, crlf, "sglang", "chat")
	if sg.Engine.Name != "sglang" || !strings.Contains(strings.ToLower(sg.Tool.Name), "sglang") {
		t.Errorf("SGLang result: engine %q tool %q", sg.Engine.Name, sg.Tool.Name)
	}
	if trt := result(t, crlf, "tensorrt-llm", "chat"); trt.Engine.Name != "trtllm" {
		t.Errorf("TensorRT-LLM result: engine %q", trt.Engine.Name)
	}
	cut := result(t, crlf, "tensorrt-llm", "sharegpt")
	if cut.Summary.Completed != 1000 || cut.Summary.TTFT == nil || !strings.Contains(strings.Join(cut.Warnings, "\n"), "cut short") {
		t.Errorf("cut block: %+v warnings %v", cut.Summary, cut.Warnings)
	}
	// A name a reader would choose: the line before each serving script.
	for _, x := range []string{"vllm", "sglang", "tensorrt-llm"} {
		if _, ok := crlf.Campaign.Experiment(x); !ok {
			t.Errorf("no experiment %s", x)
		}
	}
	buildProject(t, crlf, "blog-crlf.md")

	// Two commands of over 500 characters sharing their first 64: two
	// bounded ids, told apart by their hash.
	if len(long.Results) != 2 || long.Results[0].Experiment == long.Results[1].Experiment {
		t.Fatalf("long commands: %v", pairs(long))
	}
	for _, r := range long.Results {
		x, _ := long.Campaign.Experiment(r.Experiment)
		if len(x.Command) < 500 || len(x.ID) > maxID || len([]rune(x.Name)) > 64 {
			t.Errorf("experiment %s (%d-character command) named %q", x.ID, len(x.Command), x.Name)
		}
	}
	buildProject(t, long, "long-command.md")
}

// TestLabelFacts: what labels of other labs say about their blocks.
func TestLabelFacts(t *testing.T) {
	for _, tc := range []struct {
		label string
		want  facts
	}{
		{"ShareGPT batch size 4", facts{dataset: "sharegpt", conc: 4}},
		{"1k random input + 2k generation", facts{dataset: "random", in: 1000, out: 2000}},
		{"4000 in / 200 out", facts{dataset: "random", in: 4000, out: 200}},
		{"random 32K input", facts{dataset: "random", in: 32000}},
		{"random 32K", facts{dataset: "random", in: 32000}},
		{"BS=8", facts{conc: 8}},
		{"concurrency 64", facts{conc: 64}},
		{"rate 10", facts{rate: 10}},
		{"ShareGPT at 2.5 req/s", facts{dataset: "sharegpt", rate: 2.5}},
		{"ISL 1024 OSL 128", facts{dataset: "random", in: 1024, out: 128}},
		{"--max-num-batched-tokens 8192", facts{}}, // a flag label says which command, not which workload
		{"triton", facts{}},
	} {
		if got := labelFacts(tc.label); got != tc.want {
			t.Errorf("labelFacts(%q) = %+v, want %+v", tc.label, got, tc.want)
		}
	}
}

// TestNamesNeverRules: a serving command right after another block's
// closing rule, and labels that are rules, code or empty, never name an
// experiment; the heading does.
func TestNamesNeverRules(t *testing.T) {
	for _, l := range []string{"==================================================", "---", "", "`vllm serve x`", "--tp 4", "$ vllm serve x", "| a | b |"} {
		if nameLike(l) {
			t.Errorf("nameLike(%q)", l)
		}
	}
	for _, l := range []string{"vLLM", "TP4+EP", "SGLang (torch.compile)"} {
		if !nameLike(l) {
			t.Errorf("!nameLike(%q)", l)
		}
	}
	if got := admonitionName("Optimized serving script"); got != "Optimized" {
		t.Errorf("admonitionName = %q", got)
	}
	if got := admonitionName("Benchmark result"); got != "" {
		t.Errorf("admonitionName = %q", got)
	}
}

// TestBoundedIDs: ids are cut to maxID characters with a hash of the
// whole, so two long names sharing their start stay apart.
func TestBoundedIDs(t *testing.T) {
	a := idSlug(strings.Repeat("very long experiment name ", 10) + "A")
	b := idSlug(strings.Repeat("very long experiment name ", 10) + "B")
	if len(a) > maxID || len(b) > maxID || a == b || !reValidID.MatchString(a) {
		t.Errorf("%q %q", a, b)
	}
	if got := idSlug("TP4+EP"); got != "tp4-ep" {
		t.Errorf("short id changed: %q", got)
	}
	taken := map[string]bool{a: true}
	if u := uniqueID(a, func(s string) bool { return taken[s] }); len(u) > maxID || u == a {
		t.Errorf("uniqueID %q", u)
	}
}

// TestPlanSkipsBrokenPage: a page whose code fence never closes is
// reported and skipped; the other pages are migrated.
func TestPlanSkipsBrokenPage(t *testing.T) {
	src := t.TempDir()
	good, err := os.ReadFile("testdata/variants/simple.md")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "a-broken.md"), []byte("# Broken\n\n```bash\nvllm serve x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "b-good.md"), good, 0o644); err != nil {
		t.Fatal(err)
	}
	srcs, err := Sources([]string{src})
	if err != nil {
		t.Fatal(err)
	}
	rep, files, err := Plan(context.Background(), srcs)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Pages) != 2 || !rep.Pages[0].Skipped || rep.Pages[1].Skipped || len(rep.Pages[1].Results) == 0 {
		t.Fatalf("pages %+v", rep.Pages)
	}
	a := rep.Pages[0].Ambiguities
	if len(a) != 1 || a[0].Kind != "page" || !strings.Contains(a[0].Msg, "never closed") {
		t.Errorf("ambiguities %v", a)
	}
	for _, f := range files {
		if strings.Contains(f.Path, "broken") {
			t.Errorf("wrote %s", f.Path)
		}
	}
}

// TestWriteAllOrNothing: a write that fails part-way leaves --out as it
// was (files kept, none added, no folder left beside it); one that
// succeeds keeps files it does not write and drops stale results of the
// campaigns it writes.
func TestWriteAllOrNothing(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "lab")
	for p, d := range map[string]string{"keep.txt": "mine", "results/c/old.json": "{}", "results/other/x.json": "{}"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(out, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, p), []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snapshot := func() string {
		var sb strings.Builder
		filepath.WalkDir(parent, func(p string, d os.DirEntry, err error) error {
			rel, _ := filepath.Rel(parent, p)
			sb.WriteString(rel + "\n")
			return nil
		})
		return sb.String()
	}
	before := snapshot()
	pg := &Page{Campaign: &schema.Campaign{ID: "c"}}
	rep := &Report{Pages: []*Page{pg}}
	// The second file cannot be written: its path is the first's folder.
	bad := []File{{Path: "content/a/index.md", Data: []byte("x")}, {Path: "content/a", Data: []byte("y")}}
	if err := Write(out, rep, bad); err == nil {
		t.Fatal("no error")
	}
	if got := snapshot(); got != before {
		t.Errorf("a failed write changed the folder:\nbefore %s\nafter  %s", before, got)
	}
	ok := []File{{Path: "content/a/index.md", Data: []byte("x")}, {Path: "results/c/new.json", Data: []byte("{}")}}
	if err := Write(out, rep, ok); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{"keep.txt": true, "results/other/x.json": true, "content/a/index.md": true, "results/c/new.json": true, "results/c/old.json": false} {
		if _, err := os.Stat(filepath.Join(out, p)); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", p, err == nil, want)
		}
	}
	if ents, _ := os.ReadDir(parent); len(ents) != 1 {
		t.Errorf("beside --out: %v", ents)
	}
}

// TestSourcesPagesSavedAsText: a folder's .txt files that are Markdown
// pages (the seeds as received: "# Title" first) are pages; other text
// files (a log) are not; a plain one is copied as .md.
func TestSourcesPagesSavedAsText(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string]string{
		"000_abc.txt": "# Optimizing X\n\nSome prose.\n",
		"server.log":  "INFO started\n",
		"notes.txt":   "just notes, no heading\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srcs, err := Sources([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(srcs) != 1 || srcs[0].Rel != "000_abc.txt" {
		t.Fatalf("sources %+v", srcs)
	}
	_, files, err := Plan(context.Background(), srcs)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != "content/000_abc.md" {
		t.Errorf("files %+v", files)
	}
}

// TestHardwareFromProse: a page without Hardware and Engine Version
// sections that says them in its text ("We ran on 2x H100 80GB",
// "Engines: vLLM v0.10.1, SGLang v0.5.0") has them.
func TestHardwareFromProse(t *testing.T) {
	data, err := os.ReadFile("testdata/otherlabs/long-command.md")
	if err != nil {
		t.Fatal(err)
	}
	page := "We ran everything on 2x H100 80GB (one node).\n\nEngines: vLLM v0.10.1, SGLang v0.5.0\n\n" + string(data)
	pg, err := Migrate("p.md", []byte(page), "p", "results/p/src/p.md")
	if err != nil {
		t.Fatal(err)
	}
	if hw := pg.Campaign.Hardware; hw.GPU != "H100 80GB" || hw.Vendor != "NVIDIA" || hw.Count != 2 {
		t.Errorf("hardware %+v", hw)
	}
	if e := pg.Campaign.Engines; len(e) < 1 || e[0].Name != "vllm" || e[0].Version != "v0.10.1" {
		t.Errorf("engines %+v", e)
	}
}

// TestCmdKeyAliases: two spellings of one configuration are one
// experiment: an engine's flag aliases, --flag=value, flag order and the
// listening address do not matter; values and other flags do.
func TestCmdKeyAliases(t *testing.T) {
	same := [][2]string{
		{"python3 -m sglang.launch_server --model-path X --tp-size 8 --host 0.0.0.0 --port 8000", "python3 -m sglang.launch_server --model X --tp 8"},
		{"vllm serve X -tp 4 --max-num-seqs=256", "vllm serve X --max-num-seqs 256 --tensor-parallel-size 4"},
		{"A=1 B=2 vllm serve X", "B=2 A=1 vllm serve X"},
	}
	for _, p := range same {
		if cmdKey(p[0]) != cmdKey(p[1]) {
			t.Errorf("%q and %q differ: %q %q", p[0], p[1], cmdKey(p[0]), cmdKey(p[1]))
		}
	}
	differ := [][2]string{
		{"vllm serve X -tp 4", "vllm serve X -tp 8"},
		{"vllm serve X", "vllm serve Y"},
		{"vllm serve X --enable-expert-parallel", "vllm serve X"},
		{"trtllm-serve X --tp_size 2", "trtllm-serve X --tp_size 4"},
	}
	for _, p := range differ {
		if cmdKey(p[0]) == cmdKey(p[1]) {
			t.Errorf("%q and %q are one key", p[0], p[1])
		}
	}
}
