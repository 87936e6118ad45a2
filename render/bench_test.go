package render

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/analysis"
	"github.com/perflab/perflab/render/blocks"
	"github.com/perflab/perflab/render/corpus"
	"github.com/perflab/perflab/render/layout"
)

// writeSyntheticSite writes n report bundles of seed size into dir: each a
// campaign of 5 profiles and 3 steps of 2 experiments, 14 results (the
// baseline and the optimized configuration on every profile, the others on
// the first) with raw text, and a narrative page.
func writeSyntheticSite(tb testing.TB, dir string, n int) {
	tb.Helper()
	profiles := []string{"sharegpt", "short", "medium", "long", "very-long"}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("model-%04d-h100", i)
		bundle := filepath.Join(dir, "content", fmt.Sprintf("model-%04d", i), "h100")
		var c strings.Builder
		fmt.Fprintf(&c, "id: %s\nobjective: throughput\nmodel: {id: Org/Model-%04d, name: Model-%04d}\nhardware: {vendor: NVIDIA, gpu: H100, count: 8}\nprofiles:\n", id, i, i)
		for j, p := range profiles {
			fmt.Fprintf(&c, "  - {id: %s, name: Profile %d, dataset: random, input_len: %d, output_len: 100, num_prompts: 500, seed: 42}\n", p, j, 1000*(j+1))
		}
		c.WriteString("steps:\n")
		for s := 0; s < 3; s++ {
			fmt.Fprintf(&c, "  - id: step%d\n    title: Step %d\n    chosen: e%d-a\n    experiments:\n", s, s, s)
			for _, v := range []string{"a", "b"} {
				fmt.Fprintf(&c, "      - {id: e%d-%s, name: Experiment %d%s, engine: vllm, command: vllm serve Org/Model-%04d -tp %d --max-num-seqs 512, gpus: %d}\n", s, v, s, v, i, 8/(s+1), 8/(s+1))
			}
		}
		c.WriteString("baseline: e0-a\noptimized: e2-a\n")
		if err := os.MkdirAll(bundle, 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bundle, "campaign.yaml"), []byte(c.String()), 0o644); err != nil {
			tb.Fatal(err)
		}
		md := "---\ntitle: Optimizing Model Throughput\n---\n\n## Conclusion\n\n!!! note\n    1. A caveat.\n    2. Another one with **bold** and a [link](https://example.com).\n\nSome narrative text about the results.\n"
		if err := os.WriteFile(filepath.Join(bundle, "index.md"), []byte(md), 0o644); err != nil {
			tb.Fatal(err)
		}
		for _, e := range []string{"e0-a", "e0-b", "e1-a", "e1-b", "e2-a", "e2-b"} {
			for k, p := range profiles {
				if k > 0 && e != "e0-a" && e != "e2-a" {
					continue
				}
				r := fixtureResults()[0]
				r.ID, r.Campaign, r.Experiment, r.Profile = id+"--"+e+"--"+p, id, e, p
				r.Summary.TotalTokenThroughput += float64(i + k*100 + len(e))
				r.RawOutput = blocks.SummaryText(r)
				if err := schema.WriteFile(filepath.Join(dir, "results", id, e+"--"+p+".json"), r); err != nil {
					tb.Fatal(err)
				}
			}
		}
	}
}

// BenchmarkBuild builds a synthetic site of N seed-size reports.
//
//	go test -run '^$' -bench Build -benchtime 1x -benchmem ./render/
func BenchmarkBuild(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("reports=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			writeSyntheticSite(b, dir, n)
			opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
			coldBuilds(b, opt)
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N)/float64(n), "ms/report")
		})
	}
}

// TestWriteSyntheticSite writes a 1000-report synthetic site to
// $PERFLAB_SYNTHETIC_OUT (for measuring peak memory and comparing with
// Hugo outside go test), with $PERFLAB_SYNTHETIC_ROUNDS rounds when set
// (writeSyntheticRounds; 100 rounds are 1.4 million files, ~6 GB), and
// $PERFLAB_SYNTHETIC_REPORTS reports instead of 1000 when set; it is
// skipped otherwise.
func TestWriteSyntheticSite(t *testing.T) {
	out := os.Getenv("PERFLAB_SYNTHETIC_OUT")
	if out == "" {
		t.Skip("set PERFLAB_SYNTHETIC_OUT=DIR to write a 1000-report synthetic site")
	}
	n := 1000 // PERFLAB_SYNTHETIC_REPORTS: fewer
	if v, err := strconv.Atoi(os.Getenv("PERFLAB_SYNTHETIC_REPORTS")); err == nil && v > 0 {
		n = v
	}
	writeSyntheticSite(t, out, n)
	if r, err := strconv.Atoi(os.Getenv("PERFLAB_SYNTHETIC_ROUNDS")); err == nil && r > 1 {
		writeSyntheticRounds(t, out, n, r)
	}
}

// BenchmarkBuildCorpus builds the MkDocs-page corpus of issue 11 (package
// corpus: the seed pages and pages of their shape, 28 a lab): one lab,
// and 33 copies of it (924 pages), as render/bench/compare-hugo.sh does
// against Hugo.
func BenchmarkBuildCorpus(b *testing.B) {
	seeds := corpusSeeds(b)
	for _, copies := range []int{1, 33} {
		b.Run(fmt.Sprintf("pages=%d", copies*corpus.PagesPerLab), func(b *testing.B) {
			dir := b.TempDir()
			if _, err := corpus.Write(dir, copies, seeds); err != nil {
				b.Fatal(err)
			}
			opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
			coldBuilds(b, opt)
		})
	}
}

// coldBuilds builds b.N times, each with an empty build cache (a fresh
// directory: the first build of a checkout, cache writes included).
func coldBuilds(b *testing.B, opt Options) {
	runtime.GC()
	b.ResetTimer()
	cpu0, ok := processCPU()
	for i := 0; i < b.N; i++ {
		opt.CacheDir = filepath.Join(filepath.Dir(opt.Out), fmt.Sprintf("cache-%d", i))
		if err := Build(context.Background(), opt); err != nil {
			b.Fatal(err)
		}
	}
	if cpu1, _ := processCPU(); ok {
		// User and system time of the whole process: steadier than wall
		// time on a shared machine.
		b.ReportMetric(float64((cpu1-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkRebuild builds again with nothing changed: every page comes
// from the build cache (the 1000-report synthetic site and the 924-page
// corpus).
func BenchmarkRebuild(b *testing.B) {
	for _, name := range []string{"reports=1000", "pages=924"} {
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			if name == "reports=1000" {
				writeSyntheticSite(b, dir, 1000)
			} else if _, err := corpus.Write(dir, 33, corpusSeeds(b)); err != nil {
				b.Fatal(err)
			}
			opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
			// The cold build, then an unchanged one, which leaves the
			// site stamp (sitestamp.go) that every timed build finds.
			for i := 0; i < 2; i++ {
				if err := Build(context.Background(), opt); err != nil {
					b.Fatal(err)
				}
				settle()
			}
			runtime.GC()
			b.ResetTimer()
			cpu0, cpuOK := processCPU()
			defer func() {
				if cpu1, _ := processCPU(); cpuOK {
					b.ReportMetric(float64((cpu1-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
				}
			}()
			for i := 0; i < b.N; i++ {
				st, err := BuildStats(context.Background(), opt)
				if err != nil {
					b.Fatal(err)
				}
				if !st.Unchanged {
					b.Fatal("the site stamp's fast path was not taken")
				}
				if st.Cached != st.Pages-1 {
					b.Fatalf("%d of %d pages from the cache", st.Cached, st.Pages-1)
				}
			}
		})
	}
}

// corpusSeeds reads the seed pages the importer keeps (results/*/src/seed.md).
func corpusSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), "results", "*", "src", "seed.md"))
	if len(files) == 0 {
		tb.Skip("no results/*/src/seed.md in this checkout")
	}
	var out [][]byte
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, data)
	}
	return out
}

// BenchmarkBuildBundled builds the repository's own content/ and results/.
func BenchmarkBuildBundled(b *testing.B) {
	dir, err := os.Getwd()
	if err != nil {
		b.Fatal(err)
	}
	root := filepath.Dir(dir)
	if _, err := os.Stat(filepath.Join(root, "content")); err != nil {
		b.Skip("no content/ in this checkout")
	}
	opt := Options{Content: filepath.Join(root, "content"), Results: filepath.Join(root, "results"), Out: filepath.Join(b.TempDir(), "site")}
	for i := 0; i < b.N; i++ {
		if err := Build(context.Background(), opt); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildDemo builds one bundled demo report alone, from scratch
// (a fresh output directory each time: no incremental reuse): the sweep
// demo (32 results, curve, SLO and latency-curve blocks, comparison of
// repeats) against the point demo (12 results, bar charts), so the cost
// of the curves shows as the difference.
//
//	go test -run '^$' -bench BuildDemo -count 10 ./render/ | benchstat -
func BenchmarkBuildDemo(b *testing.B) {
	dir, err := os.Getwd()
	if err != nil {
		b.Fatal(err)
	}
	root := filepath.Dir(dir)
	for _, page := range []string{"mock-h100", "mock-sweep"} {
		b.Run(page, func(b *testing.B) {
			src := filepath.Join(root, "content", "demo", page)
			if _, err := os.Stat(src); err != nil {
				b.Skip("no " + src)
			}
			content := filepath.Join(b.TempDir(), "content")
			if err := os.CopyFS(filepath.Join(content, "demo", page), os.DirFS(src)); err != nil {
				b.Fatal(err)
			}
			out := b.TempDir()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				opt := Options{Content: content, Results: filepath.Join(root, "results"), Out: filepath.Join(out, strconv.Itoa(i))}
				if err := Build(context.Background(), opt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSweepAnalysis times what the sweep blocks compute for the
// bundled sweep demo, its results already loaded: both curves, the
// frontier, the SLO answers and the comparison's tests per point.
func BenchmarkSweepAnalysis(b *testing.B) {
	dir, err := os.Getwd()
	if err != nil {
		b.Fatal(err)
	}
	root := filepath.Dir(dir)
	site, err := Load(context.Background(), Options{Content: filepath.Join(root, "content"), Results: filepath.Join(root, "results")})
	if err != nil {
		b.Fatal(err)
	}
	var rep *Report
	for _, r := range site.Reports {
		if r.Campaign.ID == "demo-mock-sweep" {
			rep = r
		}
	}
	if rep == nil {
		b.Skip("no sweep demo")
	}
	get := func(s *schema.Summary) (float64, bool) { return s.TotalTokenThroughput, true }
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		runs := rep.AllRuns()
		var curves []analysis.Curve
		for _, e := range rep.Campaign.Steps[0].Experiments {
			curves = append(curves, analysis.CurveOf(runs, e.ID, "chat"))
		}
		analysis.Frontier(curves, false)
		analysis.SLOAnswers(curves, rep.Campaign.SLO, rep.Campaign.Cost, false)
		for _, pt := range analysis.Points(runs, "chat") {
			analysis.Compare(analysis.Group(runs, "large-batch", "chat", pt), analysis.Group(runs, "small-batch", "chat", pt), get, true)
		}
	}
}

// BenchmarkRenderReports renders the pages of a 100-report synthetic site,
// already loaded, as a cold build does (body, search text, data files,
// table of contents, navigation and layout), without a build cache and
// without writing: the CPU of rendering alone.
//
//	go test -run '^$' -bench RenderReports -count 6 -benchmem ./render/ | benchstat -
func BenchmarkRenderReports(b *testing.B) {
	dir := b.TempDir()
	writeSyntheticSite(b, dir, 100)
	s, err := Load(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results")})
	if err != nil {
		b.Fatal(err)
	}
	t, _, err := layout.ParseTemplates("")
	if err != nil {
		b.Fatal(err)
	}
	nav := s.Nav()
	runtime.GC()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, p := range s.Pages {
			if _, _, err := s.renderPage(p, t, s.Frame(&nav)); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(len(s.Pages)), "µs/page")
}

// BenchmarkLoad loads (reads, decodes and checks) the 1000-report
// synthetic site without rendering it: the load phase of a cold build.
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	writeSyntheticSite(b, dir, 1000)
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
	runtime.GC()
	b.ResetTimer()
	cpu0, ok := processCPU()
	for i := 0; i < b.N; i++ {
		s, err := Load(context.Background(), opt)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Reports) != 1000 {
			b.Fatalf("%d reports", len(s.Reports))
		}
	}
	if cpu1, _ := processCPU(); ok {
		b.ReportMetric(float64((cpu1-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkBuildRounds builds a synthetic site whose every report has R
// rounds (round 1 and R−1 more under rounds/), against the same site with
// one round: the scale target is 100 rounds within 2× of one,
// and an unchanged rebuild within 10 % of a cold build. Each size is
// built four ways: cold (no build cache), next (the cache of the build
// of rounds 1..R−1, then round R added: a nightly lab's CI with its
// cache restored; R > 1 only), rebuild (the build right after a
// changing build, nothing changed since: it writes the site stamp) and
// unchanged (built before, nothing changed: the site stamp).
//
//	PERFLAB_BENCH_REPORTS=20 go test -run '^$' -bench BuildRounds -benchtime 1x ./render/
func BenchmarkBuildRounds(b *testing.B) {
	n := 20
	if v, err := strconv.Atoi(os.Getenv("PERFLAB_BENCH_REPORTS")); err == nil {
		n = v
	}
	for _, rounds := range []int{1, 100} {
		b.Run(fmt.Sprintf("reports=%d/rounds=%d", n, rounds), func(b *testing.B) {
			dir := b.TempDir()
			writeSyntheticSite(b, dir, n)
			writeSyntheticRounds(b, dir, n, rounds)
			opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
			b.Run("cold", func(b *testing.B) {
				coldBuilds(b, opt)
				page, _ := os.Stat(filepath.Join(dir, "site", "model-0000", "h100", "index.html"))
				if page != nil {
					b.ReportMetric(float64(page.Size()), "page-bytes")
				}
			})
			if rounds > 1 {
				b.Run("next", func(b *testing.B) {
					o := opt
					o.Out, o.CacheDir = filepath.Join(dir, "site-next"), filepath.Join(dir, "cache-next")
					// The build of rounds 1..R−1 (its cache), then round R.
					before := func() {
						for i := 0; i < n; i++ {
							last := schema.RoundPath(filepath.Join(dir, "results", fmt.Sprintf("model-%04d-h100", i)), fmt.Sprintf("r%03d", rounds))
							if err := os.RemoveAll(last); err != nil {
								b.Fatal(err)
							}
						}
						if err := Build(context.Background(), o); err != nil {
							b.Fatal(err)
						}
						writeRounds(b, dir, n, rounds, rounds)
					}
					// A living lab's build follows builds that each
					// swapped a site in (what a build keeps beside
					// --out is theirs): one such cycle first, untimed,
					// so that -benchtime 1x measures that state too.
					if _, err := os.Stat(o.Out); err != nil {
						before()
						if err := Build(context.Background(), o); err != nil {
							b.Fatal(err)
						}
					}
					timedBuilds(b, o, before)
				})
			}
			b.Run("rebuild", func(b *testing.B) {
				o := opt
				o.Out, o.CacheDir = filepath.Join(dir, "site-rebuild"), filepath.Join(dir, "cache-rebuild")
				page := filepath.Join(dir, "content", "model-0000", "h100", "index.md")
				orig, err := os.ReadFile(page)
				if err != nil {
					b.Fatal(err)
				}
				defer os.WriteFile(page, orig, 0o644)
				edit := 0
				// A changing build (one page edited), untimed: the timed
				// build follows it with nothing changed, and stamps.
				changing := func() {
					edit++
					if err := os.WriteFile(page, fmt.Appendf(append([]byte(nil), orig...), "\nEdit %d.\n", edit), 0o644); err != nil {
						b.Fatal(err)
					}
					time.Sleep(20 * time.Millisecond) // past the racy window
					if err := Build(context.Background(), o); err != nil {
						b.Fatal(err)
					}
				}
				timedBuilds(b, o, changing)
				time.Sleep(20 * time.Millisecond)
				if st, err := BuildStats(context.Background(), o); err != nil || !st.Unchanged {
					b.Fatalf("the build after the timed one: fast path %v, %v; want the stamp the timed build wrote", st.Unchanged, err)
				}
			})
			b.Run("unchanged", func(b *testing.B) {
				o := opt
				o.Out, o.CacheDir = filepath.Join(dir, "site-same"), filepath.Join(dir, "cache-same")
				for i := 0; i < 2; i++ { // the second build stamps the site
					time.Sleep(20 * time.Millisecond) // past the racy window
					if err := Build(context.Background(), o); err != nil {
						b.Fatal(err)
					}
				}
				timedBuilds(b, o, nil)
			})
		})
	}
}

// timedBuilds builds b.N times with opt, each after setup (untimed),
// reporting the process's CPU time of the builds alone; with
// $PERFLAB_BENCH_CPUPROFILE set, it writes their CPU profile there (go
// test's -cpuprofile would mix in the setup's builds).
func timedBuilds(b *testing.B, opt Options, setup func()) {
	var cpu time.Duration
	var ok bool
	var prof *os.File
	if p := os.Getenv("PERFLAB_BENCH_CPUPROFILE"); p != "" {
		var err error
		if prof, err = os.Create(p); err != nil {
			b.Fatal(err)
		}
		defer prof.Close()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		if setup != nil {
			setup()
		}
		time.Sleep(20 * time.Millisecond) // past the racy window of the files just written
		runtime.GC()
		b.StartTimer()
		if prof != nil {
			if err := pprof.StartCPUProfile(prof); err != nil {
				b.Fatal(err)
			}
		}
		cpu0, ok0 := processCPU()
		if err := Build(context.Background(), opt); err != nil {
			b.Fatal(err)
		}
		cpu1, _ := processCPU()
		if prof != nil {
			pprof.StopCPUProfile()
		}
		cpu += cpu1 - cpu0
		ok = ok0
	}
	if ok {
		b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	}
}

// writeSyntheticRounds gives each of writeSyntheticSite's n reports
// rounds−1 more rounds (r002 …, a minute apart), each a copy of round 1
// with its throughput moved by up to 0.6 %. The files are written as
// schema.WriteFile writes them, without its fsync (a 1,000-report site
// of 100 rounds is 1.4 million files); the first report's round records
// are made by schema.CreateRound and copied for the others.
func writeSyntheticRounds(tb testing.TB, dir string, n, rounds int) {
	tb.Helper()
	writeRounds(tb, dir, n, 2, rounds)
}

// writeRounds writes rounds from..to (2 is the first under rounds/) of
// writeSyntheticSite's n reports, as writeSyntheticRounds.
func writeRounds(tb testing.TB, dir string, n, from, to int) {
	tb.Helper()
	var records [][]byte // round k's record at k-from
	for i := 0; i < n; i++ {
		camp := filepath.Join(dir, "results", fmt.Sprintf("model-%04d-h100", i))
		files, err := filepath.Glob(filepath.Join(camp, "*.json"))
		if err != nil {
			tb.Fatal(err)
		}
		variants := make([][7][]byte, len(files)) // by k%7
		for k := from; k <= to; k++ {
			id := fmt.Sprintf("r%03d", k)
			rdir := schema.RoundPath(camp, id)
			if i == 0 {
				rd, err := schema.CreateRound(camp, &schema.Round{ID: id, Start: fmt.Sprintf("2026-01-01T%02d:%02d:00Z", k/60, k%60)})
				if err != nil {
					tb.Fatal(err)
				}
				b, err := os.ReadFile(filepath.Join(rd.Dir, schema.RoundFile))
				if err != nil {
					tb.Fatal(err)
				}
				records = append(records, b)
			} else {
				if err := os.MkdirAll(rdir, 0o755); err != nil {
					tb.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(rdir, schema.RoundFile), records[k-from], 0o644); err != nil {
					tb.Fatal(err)
				}
			}
			for j, f := range files {
				data := variants[j][k%7]
				if data == nil {
					r, err := schema.ReadFile(f)
					if err != nil {
						tb.Fatal(err)
					}
					r.Summary.TotalTokenThroughput *= 1 + float64(k%7)/1000
					if data, err = schema.Marshal(r); err != nil {
						tb.Fatal(err)
					}
					variants[j][k%7] = data
				}
				if err := os.WriteFile(filepath.Join(rdir, filepath.Base(f)), data, 0o644); err != nil {
					tb.Fatal(err)
				}
			}
		}
	}
}
