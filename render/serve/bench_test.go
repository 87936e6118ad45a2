package serve

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"
)

// benchSite is a site to measure: where it is, how it is built, and the
// files an iteration rewrites.
type benchSite struct {
	dir     string
	build   func(context.Context, []string) error
	content string // a content file (relative to dir)
	result  string // a result file (relative to dir)
	// edit returns the new contents of file for iteration i; every
	// iteration's contents differ, so every iteration is a real change.
	edit func(file string, i int) string
}

// benchReload measures the time from a file write to the reload event a
// page receives, with the default debounce (Config.Quiet) included: the
// loop writes file, then waits for the event stream's next generation.
// Reported as ms/reload (same as ns/op, in ms).
func benchReload(b *testing.B, s benchSite, file string) {
	srv := startServer(b, s.dir, s.build, func(c *Config) { c.Log = io.Discard })
	st := openStream(b, srv)
	cur := st.within(b, 5*time.Minute) // the first build: a full one

	if cur.Error != nil {
		b.Fatalf("first build: %v", cur.Error)
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; b.Loop(); i++ {
		writeFile(b, s.dir, file, s.edit(file, i))
		next := st.until(b, func(v state) bool { return v.Gen > cur.Gen || v.Error != nil })
		if next.Error != nil {
			b.Fatalf("build failed: %v", next.Error)
		}
		cur = next
	}
	b.StopTimer()
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/reload")
}

// fakeSite writes n reports (content/report-i/index.md, one result each)
// for fakeBuild.
func fakeSite(b *testing.B, n int) benchSite {
	dir := b.TempDir()
	writeFile(b, dir, "content/index.md", "---\ntitle: Lab\n---\nAll reports.\n")
	for i := range n {
		writeFile(b, dir, fmt.Sprintf("content/model-%d/h100/index.md", i),
			fmt.Sprintf("---\ntitle: Report %d\n---\nNarrative %d.\n", i, i))
		writeFile(b, dir, fmt.Sprintf("results/campaign-%d/base--sharegpt.json", i), `{"schema_version":1}`)
	}
	return benchSite{
		dir: dir, build: fakeBuild(dir),
		content: filepath.Join("content", fmt.Sprintf("model-%d", n/2), "h100", "index.md"),
		result:  filepath.Join("results", fmt.Sprintf("campaign-%d", n/2), "base--sharegpt.json"),
		edit: func(file string, i int) string {
			if filepath.Ext(file) == ".json" {
				return fmt.Sprintf(`{"schema_version":1,"iteration":%d}`, i)
			}
			return fmt.Sprintf("---\ntitle: Edited\n---\nEdit number %d.\n", i)
		},
	}
}

// BenchmarkReloadFake measures the server's own part (watch, debounce,
// build hand-off, event) with the stand-in build over 10 pages. The real
// renderer's figures are BenchmarkReloadReal's.
func BenchmarkReloadFake(b *testing.B) {
	for _, n := range []int{10} {
		b.Run(fmt.Sprintf("reports=%d/content", n), func(b *testing.B) {
			s := fakeSite(b, n)
			benchReload(b, s, s.content)
		})
		b.Run(fmt.Sprintf("reports=%d/result", n), func(b *testing.B) {
			s := fakeSite(b, n)
			benchReload(b, s, s.result)
		})
	}
}
