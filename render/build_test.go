package render

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/perflab/perflab/render/blocks"
)

// buildFixture builds testdata/site into a fresh directory and returns it.
func buildFixture(t *testing.T, base string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "site")
	st, err := BuildStats(context.Background(), Options{Content: fixtureSite + "/content", Results: fixtureSite + "/results", Out: out, BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	if st.Pages != 4 || st.Reports != 2 {
		t.Fatalf("built %d pages, %d reports; want 4 pages (home, about, 2 reports), 2 reports", st.Pages, st.Reports)
	}
	return out
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// treeOf returns every file under dir with its content.
func treeOf(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// reportDataFile is data.json's value (render/blocks).
type reportDataFile = blocks.ReportDataFile

func TestBuildFixtureSite(t *testing.T) {
	out := buildFixture(t, "/")
	report := readFile(t, filepath.Join(out, "demo/h100/index.html"))
	blocks := readFile(t, filepath.Join(out, "demo/blocks/index.html"))
	about := readFile(t, filepath.Join(out, "about/index.html"))
	home := readFile(t, filepath.Join(out, "index.html"))

	mustContain := func(name, page string, subs ...string) {
		t.Helper()
		for _, s := range subs {
			if !strings.Contains(page, s) {
				t.Errorf("%s: missing %q", name, s)
			}
		}
	}
	mustNot := func(name, page string, subs ...string) {
		t.Helper()
		for _, s := range subs {
			if strings.Contains(page, s) {
				t.Errorf("%s: must not contain %q", name, s)
			}
		}
	}
	// The skeleton, in GPUStack's order.
	order := []string{`id="conclusion"`, `id="hardware-notes"`, `id="optimization-objective"`, `id="experimental-setup"`,
		`id="experiment-results"`, `id="1-choosing-the-inference-engine"`, `id="2-quantization-in-vllm"`,
		`id="summary-of-optimization-options"`, `id="other-benchmark-cases"`, `id="all-runs"`}
	last := -1
	for _, s := range order {
		i := strings.Index(report, s)
		if i < 0 || i < last {
			t.Errorf("report: section %s missing or out of order", s)
		}
		last = i
	}
	mustContain("report", report,
		`<title>Optimizing Qwen3-32B Throughput on 2× H100 (demo) · Inference Performance Lab</title>`,
		// Per-GPU normalisation: 4005.62/1 vs 2352.82/2 = +240.5%, and the rule is shown.
		`(+240.5%)`, `Per-GPU normalisation:`, `the baseline uses 2 GPUs and the optimized configuration 1 GPU`,
		// Latency deltas: lower is better, so a higher TPOT is a regression.
		`95.30</span> <span class="delta worse">(+8.2%)</span>`,
		// Honesty: partial success, implausible peak, the run's own warning, the crash.
		`516 of 1000 requests succeeded (51.6%)`, `implausible peak output throughput: 30,810,010.86 tok/s`,
		`484 requests failed: HTTP 503 (server overloaded)`, `crashed: engine exited with status 1`,
		// The raw output is escaped, the crash log too.
		`&lt;script&gt;alert(&#39;raw output must be escaped&#39;)&lt;/script&gt;`, `&lt;allocating 2.00 GiB&gt;`,
		// A block written from the summary is labelled as such, in vLLM's layout.
		`this block is written from its recorded summary`, `Mean TTFT (ms):                          78118.74  `,
		// Narrative placed: the Conclusion's note, the extra section, the results preamble.
		`<p class="admonition-title">Note</p>`, `The node has NVLink`, `BF16 needs two GPUs`,
		`<details class="tip" open="open">`, `vllm serve Qwen/Qwen3-32B-FP8`,
		`id="chart-bar-1"`, `assets/echarts.min.js`, `data.json`, `data.csv`,
		`Total token throughput on ShareGPT: vLLM (2,352.82 tok/s) &gt; SGLang (1,690.84 tok/s, only 516 of 1000 requests succeeded)`,
	)
	mustNot("report", report, `<script>alert`, "???", "!!!", `This heading is replaced`)
	mustContain("blocks", blocks, `id="chart-bar-1"`, `id="chart-latency-2"`, `Benchmark result: SGLang / ShareGPT`,
		`<details class="info">`+"\n"+`<summary>The recommended command</summary>`, `Total TPS per GPU (Long Prompt)`)
	mustNot("blocks", blocks, "```perflab", "block: ")
	mustContain("about", about, `<title>About this lab · Inference Performance Lab</title>`,
		// Relative links by default, index.html spelled out (file:// works).
		`href="../demo/h100/index.html#conclusion"`, `href="../demo/blocks/index.html"`, `src="../img/logo.png"`,
		`<link rel="stylesheet" href="../assets/site.css">`, `<a href="../index.html">Overview</a>`,
		`<div class="admonition tip">`, `<details class="example">`, `<div class="admonition warning">`,
		`<span style="background-color:lightgreen;">fast</span><br>`, `<button class="copy"`)
	mustNot("about", about, "echarts.min.js") // scripts only where used
	mustContain("home", home, `<title>Demo Performance Lab</title>`, `Welcome to the <strong>demo</strong> lab. Read <a href="about/index.html">about it</a>.`,
		`<a href="demo/h100/index.html">Optimizing Qwen3-32B Throughput on 2× H100 (demo)</a>`, `4,005.62 tok/s`, `2 × NVIDIA H100`, `Optimizing Throughput`)

	// Downloads parse and hold every run.
	var data reportDataFile
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "demo/h100/data.json"))), &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Runs) != 6 {
		t.Errorf("data.json: %d runs, want 6", len(data.Runs))
	}
	rows, err := csv.NewReader(strings.NewReader(readFile(t, filepath.Join(out, "demo/h100/data.csv")))).ReadAll()
	if err != nil || len(rows) != 7 {
		t.Errorf("data.csv: %d rows (%v), want header + 6", len(rows), err)
	}
	var idx []searchEntry
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "search.json"))), &idx); err != nil || len(idx) != 4 {
		t.Errorf("search.json: %d entries (%v), want 4", len(idx), err)
	}
}

// TestDeterministic builds the fixture twice: every file must be
// byte-identical (no map order, no time, no random ids).
func TestDeterministic(t *testing.T) {
	a, b := treeOf(t, buildFixture(t, "/")), treeOf(t, buildFixture(t, "/"))
	if len(a) != len(b) {
		t.Fatalf("%d files vs %d", len(a), len(b))
	}
	for p, x := range a {
		if !bytes.Equal(x, b[p]) {
			t.Errorf("%s differs between two builds", p)
		}
	}
}

var linkRE = regexp.MustCompile(`(?:href|src)="([^"]*)"`)

// TestLinks builds under /perflab/ (absolute links with pretty URLs) and
// with the default base (links relative to each page, index.html spelled
// out): every link points at a file the build wrote.
func TestLinks(t *testing.T) {
	for _, base := range []string{"perflab", "/"} {
		t.Run(base, func(t *testing.T) {
			out := buildFixture(t, base)
			files := treeOf(t, out)
			checked := 0
			for p, data := range files {
				if !strings.HasSuffix(p, ".html") {
					continue
				}
				for _, m := range linkRE.FindAllStringSubmatch(string(data), -1) {
					u := m[1]
					if strings.HasPrefix(u, "#") || strings.HasPrefix(u, "http") {
						continue
					}
					var target string
					switch {
					case base == "perflab" && strings.HasPrefix(u, "/perflab/"):
						target = strings.TrimPrefix(u, "/perflab/")
					case strings.HasPrefix(u, "/"):
						t.Errorf("%s: link %q is absolute outside the base URL", p, u)
						continue
					case base == "perflab":
						t.Errorf("%s: link %q is relative under a base URL", p, u)
						continue
					default: // relative to the page's directory
						target = path.Clean(path.Join(path.Dir(p), u))
					}
					target, _, _ = strings.Cut(target, "#")
					if target == "img/logo.png" {
						continue // the about page links a file that does not exist, on purpose
					}
					if u2, _, _ := strings.Cut(u, "#"); u2 == "" || strings.HasSuffix(u2, "/") {
						if base == "/" {
							t.Errorf("%s: link %q to a directory does not work from file://", p, u)
						}
						target = path.Join(target, "index.html")
					}
					if _, ok := files[target]; !ok {
						t.Errorf("%s: link %q points at %s, which the build did not write", p, u, target)
					}
					checked++
				}
			}
			if checked < 20 {
				t.Errorf("only %d links checked", checked)
			}
			about := string(files["about/index.html"])
			want := map[string]string{"perflab": `href="/perflab/demo/h100/#conclusion"`, "/": `href="../demo/h100/index.html#conclusion"`}[base]
			if !strings.Contains(about, want) {
				t.Errorf("about: the .md link is not rewritten to %s", want)
			}
		})
	}
}

// TestImportRule: render depends on collect/schema, never on how results
// are produced (DESIGN.md §2). Of collect it may use only collect/schema
// and its subpackages (collect/schema/campaignfile: the campaign file's
// one reader), the statistics leaf collect/stats and the redaction leaf
// collect/redact (the site holds no secret collect would not write).
func TestImportRule(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/perflab/perflab/render/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const collect, schema = "github.com/perflab/perflab/collect", "github.com/perflab/perflab/collect/schema"
	const stats, redact = "github.com/perflab/perflab/collect/stats", "github.com/perflab/perflab/collect/redact"
	for _, dep := range strings.Fields(string(out)) {
		if (dep == collect || strings.HasPrefix(dep, collect+"/")) && dep != schema && !strings.HasPrefix(dep, schema+"/") && dep != stats && dep != redact {
			t.Errorf("render imports %s", dep)
		}
	}
	if !strings.Contains(string(out), "github.com/perflab/perflab/collect/schema") {
		t.Error("render should depend on collect/schema")
	}
}

// TestServeOptions: the reload script only in serve mode; templates read
// from disk when TemplatesDir is set; each page lists its input files.
func TestServeOptions(t *testing.T) {
	out := buildFixture(t, "/")
	if strings.Contains(readFile(t, filepath.Join(out, "about/index.html")), "EventSource") {
		t.Error("reload script injected outside serve mode")
	}
	// A copy of the templates with a marker in the layout.
	tdir := t.TempDir()
	err := fs.WalkDir(os.DirFS("../templates"), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".go") {
			return err
		}
		b, err := os.ReadFile(filepath.Join("../templates", p))
		if err != nil {
			return err
		}
		if p == "layout.html" {
			b = bytes.Replace(b, []byte("<footer"), []byte("<p>from-disk-marker</p><footer"), 1)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(tdir, p)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tdir, p), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	serveOut := filepath.Join(t.TempDir(), "site")
	opt := Options{Content: fixtureSite + "/content", Results: fixtureSite + "/results", Out: serveOut, BaseURL: "/x/", TemplatesDir: tdir, LiveReload: true}
	if err := Build(context.Background(), opt); err != nil {
		t.Fatal(err)
	}
	page := readFile(t, filepath.Join(serveOut, "about/index.html"))
	if !strings.Contains(page, `new EventSource("/x/_perflab/reload")`) {
		t.Error("serve mode: reload script missing or not under the base URL")
	}
	if !strings.Contains(page, "from-disk-marker") {
		t.Error("TemplatesDir: templates not read from disk")
	}
	site, err := Load(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range site.Pages {
		if p.URL != "demo/h100/" {
			continue
		}
		want := []string{
			fixtureSite + "/content/demo/h100/campaign.yaml",
			fixtureSite + "/content/demo/h100/index.md",
			fixtureSite + "/results/demo-h100/sglang-base--long.json",
		}
		for _, w := range want {
			found := false
			for _, d := range p.Deps {
				found = found || d == w
			}
			if !found {
				t.Errorf("Deps of %s lack %s: %v", p.Src, w, p.Deps)
			}
		}
		if len(p.Deps) != 9 {
			t.Errorf("Deps: %d files, want 9 (page, campaign, 6 results, the absent rounds directory)", len(p.Deps))
		}
	}
}

// TestEditorFilesAreNotPublished checks that editors' backups and
// auto-saves beside a page are not copied into the site (an Emacs user's
// index.md~ would be published with the draft it holds), while other
// files beside a page still are.
func TestEditorFilesAreNotPublished(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, fixtureSite, dir)
	extra := map[string]bool{ // name beside the report's index.md → copied
		"index.md~":      false, // Emacs and Vim backups
		"campaign.yaml~": false,
		"#index.md#":     false, // Emacs auto-save
		"notes.txt":      true,
		"chart~v2.png":   true, // a "~" inside a name is an ordinary name
	}
	for name := range extra {
		if err := os.WriteFile(filepath.Join(dir, "content", "demo", "h100", name), []byte("draft"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "site")
	if err := Build(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: out}); err != nil {
		t.Fatal(err)
	}
	for name, copied := range extra {
		_, err := os.Stat(filepath.Join(out, "demo", "h100", name))
		if got := err == nil; got != copied {
			t.Errorf("%s in the site: %v, want %v", name, got, copied)
		}
	}
}
