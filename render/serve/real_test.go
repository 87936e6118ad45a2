package serve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/render"
)

// repoRoot is the repository's top directory.
func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// bundle is one report of the bundled site.
type bundle struct {
	dir string // content/<model>/<gpu>, relative to the repository
	id  string // its campaign id (= its results directory)
}

func bundles(t testing.TB) []bundle {
	t.Helper()
	root := repoRoot()
	matches, _ := filepath.Glob(filepath.Join(root, "content", "*", "*", "campaign.yaml"))
	idRE := regexp.MustCompile(`(?m)^id:\s*(\S+)\s*$`)
	var out []bundle
	for _, m := range matches {
		data, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		id := idRE.FindSubmatch(data)
		if id == nil {
			t.Fatalf("%s: no id", m)
		}
		rel, _ := filepath.Rel(root, filepath.Dir(m))
		out = append(out, bundle{dir: rel, id: string(id[1])})
	}
	if len(out) == 0 {
		t.Skip("SKIP: the repository has no bundled reports (content/*/*/campaign.yaml)")
	}
	return out
}

// copyTree copies src to dst, rewriting each file's contents with edit.
func copyTree(t testing.TB, src, dst string, edit func(data []byte) []byte) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if edit != nil {
			data = edit(data)
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// bundledSite copies the repository's content/ and results/ into a fresh
// directory.
func bundledSite(t testing.TB) string {
	dir := t.TempDir()
	root := repoRoot()
	copyTree(t, filepath.Join(root, "content"), filepath.Join(dir, "content"), nil)
	copyTree(t, filepath.Join(root, "results"), filepath.Join(dir, "results"), nil)
	return dir
}

// syntheticSite makes n reports by copying the bundled ones round robin,
// each copy with its own campaign id and results directory.
func syntheticSite(t testing.TB, n int) string {
	dir := t.TempDir()
	root := repoRoot()
	bs := bundles(t)
	for i := range n {
		b := bs[i%len(bs)]
		id := fmt.Sprintf("%s-%d", b.id, i)
		model, gpu := filepath.Base(filepath.Dir(b.dir)), filepath.Base(b.dir)
		dst := filepath.Join(dir, "content", model+"-"+strconv.Itoa(i), gpu)
		copyTree(t, filepath.Join(root, b.dir), dst, func(data []byte) []byte {
			return regexp.MustCompile(`(?m)^id:\s*`+regexp.QuoteMeta(b.id)+`\s*$`).ReplaceAll(data, []byte("id: "+id))
		})
		copyTree(t, filepath.Join(root, "results", b.id), filepath.Join(dir, "results", id), func(data []byte) []byte {
			return []byte(strings.ReplaceAll(string(data), `"campaign": "`+b.id+`"`, `"campaign": "`+id+`"`))
		})
	}
	return dir
}

// realBuild is the build perflab serve uses: render's incremental Builder
// with templates embedded.
func realBuild(dir string) func(context.Context, []string) error {
	b := render.NewBuilder(render.Options{
		Content: filepath.Join(dir, "content"),
		Results: filepath.Join(dir, "results"),
		Out:     filepath.Join(dir, "site"),
	})
	return func(ctx context.Context, changed []string) error {
		_, err := b.Build(ctx, changed)
		return err
	}
}

var throughputRE = regexp.MustCompile(`"total_token_throughput_tok_per_s": ([0-9.]+)`)

// realEdits rewrites a report's narrative (a new last line) or a result's
// total throughput, differently at every iteration.
func realEdits(t testing.TB, dir string) func(file string, i int) string {
	orig := map[string]string{}
	return func(file string, i int) string {
		o, ok := orig[file]
		if !ok {
			data, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			o = string(data)
			orig[file] = o
		}
		if strings.HasSuffix(file, ".json") {
			m := throughputRE.FindStringSubmatch(o)
			if m == nil {
				t.Fatalf("%s has no total_token_throughput_tok_per_s", file)
			}
			v, _ := strconv.ParseFloat(m[1], 64)
			return strings.Replace(o, m[0], fmt.Sprintf(`"total_token_throughput_tok_per_s": %g`, v+float64(i+1)), 1)
		}
		return o + fmt.Sprintf("\nEdit number %d.\n", i)
	}
}

// realSite is a benchSite built by the real renderer; its first report's
// narrative and first result are the files edited.
func realSite(t testing.TB, dir string) benchSite {
	matches, _ := filepath.Glob(filepath.Join(dir, "content", "*", "*", "index.md"))
	results, _ := filepath.Glob(filepath.Join(dir, "results", "*", "*.json"))
	if len(matches) == 0 || len(results) == 0 {
		t.Fatalf("no report or result under %s", dir)
	}
	content, _ := filepath.Rel(dir, matches[len(matches)/2])
	// A result with a throughput to change (crashed runs have none).
	result := ""
	for i := range results {
		r := results[(len(results)/2+i)%len(results)]
		if data, err := os.ReadFile(r); err == nil && throughputRE.Match(data) {
			result, _ = filepath.Rel(dir, r)
			break
		}
	}
	if result == "" {
		t.Fatalf("no result under %s has a total throughput", dir)
	}
	return benchSite{dir: dir, build: realBuild(dir), content: content, result: result, edit: realEdits(t, dir)}
}

// BenchmarkReloadReal measures write → reload event with the real
// renderer (render.Builder) on the bundled site and on a 1,000-report
// copy of it. The 1,000-report case starts with a full build (tens of
// seconds on two cores), outside the timing.
func BenchmarkReloadReal(b *testing.B) {
	for _, n := range []int{0, 1000} {
		name := "bundled"
		if n > 0 {
			name = fmt.Sprintf("reports=%d", n)
		}
		for _, kind := range []string{"content", "result"} {
			b.Run(name+"/"+kind, func(b *testing.B) {
				dir := ""
				if n == 0 {
					dir = bundledSite(b)
				} else {
					dir = syntheticSite(b, n)
				}
				s := realSite(b, dir)
				file := s.content
				if kind == "result" {
					file = s.result
				}
				benchReload(b, s, file)
			})
		}
	}
}

// BenchmarkReloadFullRebuild is BenchmarkReloadReal's bundled case with a
// full render.Build on every change instead of the incremental Builder,
// for comparison.
func BenchmarkReloadFullRebuild(b *testing.B) {
	for _, kind := range []string{"content", "result"} {
		b.Run("bundled/"+kind, func(b *testing.B) {
			dir := bundledSite(b)
			s := realSite(b, dir)
			opt := render.Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")}
			s.build = func(ctx context.Context, _ []string) error { return render.Build(ctx, opt) }
			file := s.content
			if kind == "result" {
				file = s.result
			}
			benchReload(b, s, file)
		})
	}
}

// TestSyntheticSiteBuilds guards the benchmark's generator: a small
// synthetic site must build with the real renderer.
func TestSyntheticSiteBuilds(t *testing.T) {
	dir := syntheticSite(t, 6)
	if err := realBuild(dir)(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "site", "*", "*", "index.html"))
	if len(pages) != 6 {
		t.Fatalf("%d report pages, want 6", len(pages))
	}
}

// TestBrowserReloadAndErrorOverlayRealBuild is the browser scenario
// on a bundled report rendered by the real renderer.
func TestBrowserReloadAndErrorOverlayRealBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	ctx := browser(t)
	dir := bundledSite(t)
	b := bundles(t)[0]
	file := filepath.Join(b.dir, "index.md")
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	orig := string(data)
	if !strings.HasPrefix(orig, "---\n") {
		t.Fatalf("%s has no front matter", file)
	}
	page := func(text string) string { return orig + "\n" + text + ".\n" }
	// An unknown front matter key on line 2.
	broken := "---\nsubtitle: not a key\n" + orig[len("---\n"):]
	writeFile(t, dir, file, page("Original words"))
	s := startServer(t, dir, realBuild(dir), nil)
	url := filepath.ToSlash(strings.TrimPrefix(b.dir, "content"+string(filepath.Separator))) + "/"
	browserEditLoop(t, ctx, s, dir, filepath.ToSlash(file), url, page, broken, "2")
}

// TestServeRebuildsMatchFullBuild edits a result and a narrative of the
// bundled site while the server runs with the real (incremental)
// renderer, then checks site/ byte for byte against a fresh full build.
func TestServeRebuildsMatchFullBuild(t *testing.T) {
	dir := bundledSite(t)
	s := realSite(t, dir)
	srv := startServer(t, dir, s.build, nil)
	st := openStream(t, srv)
	cur := st.within(t, time.Minute)
	for i, file := range []string{s.result, s.content, s.result} {
		writeFile(t, dir, file, s.edit(file, i))
		next := st.until(t, func(v state) bool { return v.Gen > cur.Gen || v.Error != nil })
		if next.Error != nil {
			t.Fatalf("build after editing %s: %v", file, next.Error)
		}
		cur = next
	}
	full := filepath.Join(t.TempDir(), "site")
	if err := render.Build(context.Background(), render.Options{
		Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: full,
	}); err != nil {
		t.Fatal(err)
	}
	want, got := tree(t, full), tree(t, filepath.Join(dir, "site"))
	for name, w := range want {
		if g, ok := got[name]; !ok {
			t.Errorf("missing %s", name)
		} else if g != w {
			i := 0
			for i < len(g) && i < len(w) && g[i] == w[i] {
				i++
			}
			lo := max(0, i-150)
			t.Errorf("%s differs from a full build at byte %d:\nfull: %q\ngot:  %q", name, i, w[lo:min(len(w), i+150)], g[lo:min(len(g), i+150)])
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("extra %s", name)
		}
	}
}

func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
