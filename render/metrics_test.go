package render

import (
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/blocks"
	"github.com/perflab/perflab/render/site"
)

func TestCompare(t *testing.T) {
	tests := []struct {
		name         string
		ref, v       float64
		higherBetter bool
		want         string
		class        string
	}{
		{"throughput up", 2352.82, 4284.68, true, "+82.1%", "delta better"},
		{"throughput down", 2352.82, 1690.84, true, "-28.1%", "delta worse"},
		{"latency up is worse", 88.09, 158.64, false, "+80.1%", "delta worse"},
		{"latency down is better", 88.09, 57.86, false, "-34.3%", "delta better"},
		// The seed's own arithmetic error: Qwen3-32B Very Long Prompt gives
		// +46.8% from its raw outputs, not the +10.7% it prints.
		{"seed very long prompt", 2771.81, 4068.16, true, "+46.8%", "delta better"},
		// Rounds to zero at one decimal: "~", neither colour.
		{"unchanged", 1000, 1000.4, true, "~", "delta same"},
		{"tiny loss rounds to zero", 1000, 999.6, true, "~", "delta same"},
		{"zero reference", 0, 10, true, "", "delta"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := site.Compare(tt.ref, tt.v, tt.higherBetter)
			if d.String() != tt.want || d.Class() != tt.class {
				t.Errorf("site.Compare(%v, %v, %v) = %q %q; want %q %q", tt.ref, tt.v, tt.higherBetter, d.String(), d.Class(), tt.want, tt.class)
			}
		})
	}
}

// TestPerGPU: when GPU counts differ, throughput is compared per GPU;
// latency never is.
func TestPerGPU(t *testing.T) {
	tps, tpot := site.MustMetric("total_token_throughput"), site.MustMetric("mean_tpot")
	tests := []struct {
		name        string
		m           Metric
		base, opt   float64
		baseG, optG int
		want        string
	}{
		// Qwen3-235B on H100: baseline TP8 8424.86, optimized TP4 7787.17:
		// GPUStack prints "7787.17x2 (+84.9%)"; per GPU it is the same ratio.
		{"seed 235b sharegpt", tps, 8424.86, 7787.17, 8, 4, "+84.9%"},
		{"same count: no normalisation", tps, 8424.86, 7787.17, 8, 8, "-7.6%"},
		{"latency is not normalised", tpot, 147.56, 186.26, 8, 4, "+26.2%"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			norm := tt.baseG != tt.optG
			d := site.Compare(site.Normalized(tt.m, tt.base, tt.baseG, norm), site.Normalized(tt.m, tt.opt, tt.optG, norm), tt.m.HigherBetter)
			if d.String() != tt.want {
				t.Errorf("got %s, want %s", d, tt.want)
			}
		})
	}
}

// TestDeltaString: Delta.String is fmt's "%+.1f%%" of the rounded change.
func TestDeltaString(t *testing.T) {
	for _, pct := range []float64{0.04, -0.04, 0.05, 0.15, -0.15, 1, -1, 12.345, -99.99, 1e6, math.Inf(1), math.Inf(-1), math.NaN()} {
		d := Delta{Pct: pct, OK: true}
		want := "~"
		if r := math.Round(pct*10) / 10; r != 0 {
			want = fmt.Sprintf("%+.1f%%", r)
		}
		if got := d.String(); got != want {
			t.Errorf("Delta{Pct: %v}.String() = %q, want %q", pct, got, want)
		}
	}
}

func TestFmtNum(t *testing.T) {
	for v, want := range map[float64]string{0: "0.00", 1.005: "1.00", 999.999: "1,000.00", 30810010.86: "30,810,010.86", -1234.5: "-1,234.50",
		math.Copysign(0, -1): "-0.00", -0.004: "-0.00", 123: "123.00", 1234567.891: "1,234,567.89", math.NaN(): "NaN.", math.Inf(1): "+,Inf.", math.Inf(-1): "-Inf."} {
		if got := site.FmtNum(v); got != want {
			t.Errorf("site.FmtNum(%v) = %q, want %q", v, got, want)
		}
	}
	// The fmt-based version it replaced, on values of every magnitude.
	old := func(v float64) string {
		s := fmt.Sprintf("%.2f", v)
		neg := strings.HasPrefix(s, "-")
		s = strings.TrimPrefix(s, "-")
		intPart, frac, _ := strings.Cut(s, ".")
		var b strings.Builder
		for i, c := range intPart {
			if i > 0 && (len(intPart)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(c)
		}
		out := b.String() + "." + frac
		if neg {
			out = "-" + out
		}
		return out
	}
	for _, v := range []float64{1e-9, 0.125, 0.135, 2.675, 99999.995, 1e15 + 0.3, 1e22, -1e22, 1e300, math.MaxFloat64, math.SmallestNonzeroFloat64} {
		for _, x := range []float64{v, -v, v * 3.7, v / 7} {
			if got, want := site.FmtNum(x), old(x); got != want {
				t.Errorf("site.FmtNum(%v) = %q, fmt gives %q", x, got, want)
			}
			if got, want := site.SortKey(x), fmt.Sprintf("%.4f", x); got != want {
				t.Errorf("site.SortKey(%v) = %q, fmt gives %q", x, got, want)
			}
		}
	}
}

func TestCaveats(t *testing.T) {
	base := func() *schema.Result {
		return &schema.Result{Status: schema.StatusOK, Load: schema.Load{NumPrompts: 1000},
			Summary: &schema.Summary{Completed: 1000, OutputThroughput: 4347.55, TotalTokenThroughput: 9632.01, MaxOutputTokensPerS: schema.F(9000)}}
	}
	tests := []struct {
		name string
		edit func(*schema.Result)
		want []string
	}{
		{"clean run", func(*schema.Result) {}, nil},
		{"partial success", func(r *schema.Result) { r.Summary.Completed, r.Summary.Failed = 516, 484 }, []string{"516 of 1000 requests succeeded (51.6%)"}},
		// 984 succeeded, no failure counted, 1000 asked for (the 235B seed).
		{"missing requests", func(r *schema.Result) { r.Summary.Completed = 984 }, []string{"984 of 1000 requests succeeded (98.4%)"}},
		{"guidellm's peak", func(r *schema.Result) { r.Summary.MaxOutputTokensPerS = schema.F(30810010.86) },
			[]string{"implausible peak output throughput: 30,810,010.86 tok/s is 7087× the average"}},
		{"crash", func(r *schema.Result) { r.Status, r.Error, r.Summary = schema.StatusCrashed, "OOM", nil }, []string{"crashed: OOM"}},
		{"guidellm definitions", func(r *schema.Result) { r.Tool.Name = "guidellm" }, []string{"its TPOT includes the first token"}},
		{"own warnings kept", func(r *schema.Result) { r.Warnings = []string{"client fell behind"} }, []string{"client fell behind"}},
		// The importer already says how many succeeded (the Qwen3.5 MTP run
		// showed "516 of 1000 requests succeeded" twice); said once.
		{"importer's partial success not repeated", func(r *schema.Result) {
			r.Summary.Completed = 516
			r.Warnings = []string{"516 of 1000 requests succeeded (51.6%)", "ITL was not measured"}
		}, []string{"516 of 1000 requests succeeded (51.6%)", "ITL was not measured"}},
		// A warning repeated in the result is shown once.
		{"repeated warning once", func(r *schema.Result) { r.Warnings = []string{"client fell behind", "client fell behind"} }, []string{"client fell behind"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := base()
			tt.edit(r)
			got := site.Caveats(r)
			if len(got) != len(tt.want) {
				t.Fatalf("caveats %q, want %d matching %q", got, len(tt.want), tt.want)
			}
			for i := range got {
				if !strings.Contains(got[i], tt.want[i]) {
					t.Errorf("caveat %q does not contain %q", got[i], tt.want[i])
				}
			}
		})
	}
}

func TestTableOfContentsAndPlainText(t *testing.T) {
	body := `<h2 id="a">A &amp; B<a class="headerlink" href="#a">¶</a></h2><p>Hello <b>world</b></p>` +
		`<h3 id="b-1"><code>x</code> y<a class="headerlink" href="#b-1">¶</a></h3><pre><code>skip me</code></pre><h4 id="c">C<a class="headerlink" href="#c">¶</a></h4>` +
		`<script>nor me</script><p>tail  text é</p>`
	toc := tableOfContents(body)
	if len(toc) != 2 || toc[0] != (tocEntry{2, "a", "A & B"}) || toc[1] != (tocEntry{3, "b-1", "x y"}) {
		t.Errorf("toc = %+v", toc)
	}
	if got := plainText(body, 1000); got != "A & B Hello world x y C tail text é" {
		t.Errorf("plainText = %q", got)
	}
	if got := plainText("<p>aé</p>", 2); got != "a" {
		t.Errorf("plainText cut inside a rune = %q, want \"a\"", got)
	}
}

// TestLinkFunc: MkDocs-style relative links keep working from pretty URLs
// and under a base URL.
func TestLinkFunc(t *testing.T) {
	s := &Site{opt: Options{BaseURL: "/perflab/"}}
	tests := []struct {
		page, dest, want string
	}{
		// A page at qwen3-32b/h100.md renders to qwen3-32b/h100/: a sibling
		// page link must not stay relative (it would gain a level).
		{"qwen3-32b/h100.md", "a100.md", "/perflab/qwen3-32b/a100/"},
		{"qwen3-32b/h100.md", "../gpt-oss-20b/a100.md#1-choosing-the-inference-engine", "/perflab/gpt-oss-20b/a100/#1-choosing-the-inference-engine"},
		{"qwen3-32b/h100/index.md", "../../about.md", "/perflab/about/"},
		{"qwen3-32b/h100/index.md", "chart.png", "/perflab/qwen3-32b/h100/chart.png"},
		{"qwen3-32b/h100/index.md", "sub/", "/perflab/qwen3-32b/h100/sub/"},
		{"about.md", "index.md", "/perflab/"},
		{"about.md", "/abs/path", "/perflab/abs/path"},
		// Kept: fragments, external links, links leaving content/.
		{"about.md", "#local", "#local"},
		{"about.md", "https://example.com/x.md", "https://example.com/x.md"},
		{"about.md", "mailto:a@b.c", "mailto:a@b.c"},
		{"qwen3-32b/h100.md", "../../assets/performance-lab/qwen3-32b-h100.png", "../../assets/performance-lab/qwen3-32b-h100.png"},
	}
	// The default base: links relative to the page, index.html spelled out.
	rel := &Site{opt: Options{BaseURL: "/"}}
	for _, tt := range []struct{ page, dest, want string }{
		{"qwen3-32b/h100.md", "a100.md", "../../qwen3-32b/a100/index.html"},
		{"qwen3-32b/h100/index.md", "../../about.md#x", "../../about/index.html#x"},
		{"qwen3-32b/h100/index.md", "chart.png", "../../qwen3-32b/h100/chart.png"},
		{"about.md", "/abs/path", "../abs/path"},
		{"index.md", "about.md", "about/index.html"},
	} {
		if got := rel.linkFunc(&Page{Rel: tt.page, URL: site.PageURL(tt.page)})(tt.dest); got != tt.want {
			t.Errorf("relative: %s: %q → %q, want %q", tt.page, tt.dest, got, tt.want)
		}
	}
	for _, tt := range tests {
		got := s.linkFunc(&Page{Rel: tt.page, URL: site.PageURL(tt.page)})(tt.dest)
		if got != tt.want {
			t.Errorf("%s: %q → %q, want %q", tt.page, tt.dest, got, tt.want)
		}
	}
}

// TestPlainTextFields: plainText's one-pass whitespace collapsing (fields)
// gives what the Join(Fields(ReplaceAll(…, "¶", ""))) it replaced gives,
// cut at every limit: Unicode spaces, entities for them, pilcrows,
// multi-byte runes at the cut, invalid UTF-8 (which takes the old way).
func TestPlainTextFields(t *testing.T) {
	old := func(s string, limit int) string {
		return cutText(strings.Join(strings.Fields(strings.ReplaceAll(s, "¶", "")), " "), limit)
	}
	texts := []string{
		"", " ", "¶", "a¶b", "a ¶ b", " lead and trail ", "tabs\tand\nnewlines\r\v\fx",
		"nbsp\u00a0here nel\u0085there em\u2003space ideo\u3000space", "é è ü — 中文 😀 ¶¶ x",
		"¶ ¶ ¶", "a\u00a0\u00a0b", "\u2028line\u2029para", "x\xe2¶\x80\x83y", "bad\xffutf8 ¶ z", "\xc2",
	}
	for _, s := range texts {
		for limit := 0; limit <= len(s)+2; limit++ {
			if got, want := cutText(fields(s, limit), limit), old(s, limit); utf8.ValidString(s) && got != want {
				t.Errorf("fields(%q) cut at %d = %q, want %q", s, limit, got, want)
			}
			body := "<p>" + s + "</p><h2>" + s + "<a>¶</a></h2>&nbsp;&#x2003;<pre>" + s + "</pre>" + s
			if got, want := plainText(body, limit), plainTextOld(body, limit); got != want {
				t.Errorf("plainText(%q, %d) = %q, want %q", body, limit, got, want)
			}
		}
	}
}

// plainTextOld is plainText before fields: the reference.
func plainTextOld(body string, limit int) string {
	var b strings.Builder
	space := true
	for i := 0; i < len(body) && b.Len() < limit; {
		c := body[i]
		if c == '<' {
			skipped := false
			for _, tag := range []string{"pre", "script"} {
				if strings.HasPrefix(body[i+1:], tag) {
					end := strings.Index(body[i:], "</"+tag+">")
					if end < 0 {
						i = len(body)
					} else {
						i += end + len(tag) + 3
					}
					skipped = true
					break
				}
			}
			if !skipped {
				end := strings.IndexByte(body[i:], '>')
				if end < 0 {
					break
				}
				i += end + 1
			}
			if !space {
				b.WriteByte(' ')
				space = true
			}
			continue
		}
		if c == ' ' || c == '\n' || c == '\t' || c == '\r' {
			if !space {
				b.WriteByte(' ')
				space = true
			}
			i++
			continue
		}
		j := i
		for j < len(body) && body[j] != '<' && body[j] != ' ' && body[j] != '\n' && body[j] != '\t' && body[j] != '\r' {
			j++
		}
		b.WriteString(body[i:j])
		space = false
		i = j
	}
	t := html.UnescapeString(b.String())
	t = strings.Join(strings.Fields(strings.ReplaceAll(t, "¶", "")), " ")
	if len(t) > limit {
		t = t[:limit]
		for len(t) > 0 && !utf8.RuneStart(t[len(t)-1]) {
			t = t[:len(t)-1]
		}
		if len(t) > 0 && t[len(t)-1] >= 0x80 {
			t = t[:len(t)-1]
		}
	}
	return t
}

// TestSummaryText: the vLLM text block written from a summary matches the
// layout of `vllm bench serve` byte for byte (testdata/summary.golden).
func TestSummaryText(t *testing.T) {
	res := fixtureResults()[0]
	got := blocks.SummaryText(res)
	golden := filepath.Join("testdata", "summary.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	for _, l := range strings.Split(strings.TrimSuffix(got, "\n"), "\n") {
		if len(l) != 50 && len(l) != 51 {
			t.Errorf("line %q is %d wide; vLLM's rows are 51 (40+1+10), rules 50", l, len(l))
		}
	}
}

// TestSummaryTextGuidellm: a guidellm run's TPOT is not printed under
// vLLM's "excl. 1st token" header.
func TestSummaryTextGuidellm(t *testing.T) {
	res := fixtureResults()[0]
	res.Tool.Name = "guidellm"
	got := blocks.SummaryText(res)
	if strings.Contains(got, "excl. 1st token") || !strings.Contains(got, "Time per Output Token (guidellm: incl. 1st token)") {
		t.Errorf("guidellm TPOT under the wrong header:\n%s", got)
	}
	if strings.Contains(got, "Peak output token throughput") {
		t.Errorf("guidellm's max printed as a 1-second peak:\n%s", got)
	}
}
