package check

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// findings formats a page's findings, one per line.
func findings(t *testing.T, p Page) string {
	t.Helper()
	var sb strings.Builder
	for _, f := range Check(p) {
		sb.WriteString(f.Kind + " " + f.String() + "\n")
	}
	return sb.String()
}

// TestGolden runs the check over the seeds (as published, no annotation)
// and the test pages, and compares the findings with the golden files.
// Every finding in them was checked by hand (see the .golden files).
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob("testdata/pages/*.md")
	files = append(files, pages...)
	if len(files) < 9 {
		t.Fatalf("found %d test pages, want the 3 seeds and the pages", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got := findings(t, Page{Name: filepath.Base(f), Text: data})
			golden := strings.TrimSuffix(f, ".md") + ".golden"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("findings differ from %s:\n got:\n%s\nwant:\n%s", golden, got, want)
			}
		})
	}
}

// TestMustShow pins the findings the issue asks for, independently of the
// golden files.
func TestMustShow(t *testing.T) {
	cases := []struct {
		file, kind string
		line       int
		text       string
	}{
		// The Qwen3-32B page's Very Long Prompt row: its own outputs give +46.8%.
		{"testdata/seed002.md", KindPercent, 22, "+10.7% is not the change from 2771.81 to 4068.16, which is +46.8%"},
		// Step 2 "Quantization in TensorRT-LLM" prints an SGLang command.
		{"testdata/seed002.md", KindEngine, 187, "launches SGLang"},
		// Seed 001's async-scheduling sentence: numbers of no run on the page.
		{"testdata/seed001.md", KindNumber, 182, "6095.37 tok/s matches no benchmark output"},
		{"testdata/seed001.md", KindNumber, 182, "6325.41 tok/s matches no benchmark output"},
		{"testdata/pages/table_number.md", KindNumber, 17, "Total TPS 1300.00 matches no benchmark output"},
		{"testdata/pages/table_number.md", KindNumber, 63, "21.00 ms"},
		{"testdata/pages/table_number.md", KindOrder, 63, "the ranking 1000.00 tok/s > 1052.63 tok/s does not hold"},
		{"testdata/pages/table_number.md", KindNumber, 68, "Total TPS (tok/s) 1299.90 matches no benchmark output"},
		// SGLang bench_serving outputs, a table with one configuration per
		// row (the baseline is the first row), E2E latency quoted in prose.
		{"testdata/pages/sglang.md", KindPercent, 12, "+25.0% is not the change from 13333.33 to 16000.00, which is +20.0%"},
		{"testdata/pages/sglang.md", KindNumber, 14, "54000.00 ms matches no benchmark output on the page"},
		// A block cut short does not blind the page: the others are read.
		{"testdata/pages/partial.md", KindBlock, 44, "cut short"},
		{"testdata/pages/partial.md", KindNumber, 13, "Total TPS (tok/s) 2695.50 matches no benchmark output on the page (closest: 2659.5 at line 55) (or in the output at line 44, which could not be read)"},
		{"testdata/pages/wrong_model.md", KindModel, 52, "names model Qwen/Qwen3-14B"},
		{"testdata/pages/wrong_model.md", KindModel, 15, "the page names model Qwen3-32B, but it is about Qwen/Qwen3-8B"},
		{"testdata/pages/self_comparison.md", KindSelf, 17, "same serving command"},
		{"testdata/pages/self_comparison.md", KindSelf, 18, "with itself"},
		{"testdata/pages/self_comparison.md", KindSelf, 44, "the baseline's"},
		{"testdata/pages/offered_load.md", KindLoad, 23, "10 req/s of the 10 req/s offered"},
		{"testdata/pages/compound.md", KindCompound, 93, "compound to +56.0%"},
		{"testdata/pages/compound.md", KindPercent, 65, "25%"},
		// 1500.00 over 1200.00 tok/s is +25.0%.
		{"testdata/pages/compound.md", KindPercent, 94, "step percentage +30.0% matches no throughput change"},
	}
	for _, c := range cases {
		data, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, f := range Check(Page{Name: c.file, Text: data}) {
			if f.Kind == c.kind && f.Line == c.line && strings.Contains(f.Message, c.text) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s:%d: no %s finding containing %q", c.file, c.line, c.kind, c.text)
		}
	}
	// A range sharing its unit: both numbers and the percentage are read.
	page := []byte("```\nSuccessful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 2771.81\n==================================================\n```\n\n" +
		"Throughput rose from 2000.00 to 2771.81 tok/s (+38.6%).\n")
	got := Check(Page{Name: "range.md", Text: page})
	if len(got) != 1 || got[0].Kind != KindNumber || !strings.HasPrefix(got[0].Message, "2000.00 matches no") {
		t.Errorf("range: %v, want one finding for 2000.00 (no such run)", got)
	}
	// The seeds' other numbers are right (each finding above was checked
	// by hand against the page): exactly these, and none on seed 000.
	for file, want := range map[string]int{"testdata/seed000.md": 0, "testdata/seed001.md": 2, "testdata/seed002.md": 2} {
		if got := Check(Page{Name: file, Text: mustRead(t, file)}); len(got) != want {
			t.Errorf("%s: %d findings %v, want %d", file, len(got), got, want)
		}
	}
	if got := Check(Page{Name: "clean.md", Text: mustRead(t, "testdata/pages/clean.md")}); len(got) != 0 {
		t.Errorf("clean.md: %v, want no findings", got)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestPercentRounding checks percentages at their printed precision, with
// the rounding of the numbers they compare taken into account.
func TestPercentRounding(t *testing.T) {
	const blocks = "```\n" +
		"Successful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 2771.81\n" +
		"==================================================\n```\n\n```\n" +
		"Successful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 4068.16\n" +
		"==================================================\n```\n\n"
	cases := []struct {
		row  string
		want bool // a finding
	}{
		{"Total TPS: 4068.16 (+46.8%)", false},
		{"Total TPS: 4068.16 (+47%)", false},     // 46.77% at no decimals
		{"Total TPS: 4068.16 (+46.77%)", false},  // 46.769%
		{"Total TPS: 4068.16 (+46.76%)", true},   // off by one in the last printed digit
		{"Total TPS: 4068.16 (+46.7%)", true},    // 46.77 rounds to 46.8
		{"Total TPS: 4068.16 (+10.7%)", true},    // seed 002's slip
		{"Total TPS: 4068.16 (-46.8%)", true},    // wrong sign
		{"Total TPS: 4068.16 (−46.8%)", true},    // wrong sign, a typeset minus
		{"Total TPS: 4068.16 (−1.5%)", true},     // not even the magnitude
		{"Total TPS: 4068.2 (+46.8%)", false},    // the table rounds 4068.16
		{"Total TPS: 4068.1 (+46.8%)", true},     // 4068.16 does not round to 4068.1
		{"Total TPS: 2034.08x2 (+46.8%)", true},  // 2034.08 is no run's number
		{"Total TPS: 4068 (+46.8%)", false},      // integer printing
		{"Total TPS: 4068.16 46.8% more", false}, // percentage not in parentheses
		{"Total TPS: 4068.16 (1.47x)", false},    // a factor: 4068.16 / 2771.81 = 1.4677
		{"Total TPS: 4068.16 (1.5x)", false},     // at one decimal
		{"Total TPS: 4068.16 (1.40x)", true},     // wrong factor
		{"Total TPS: 4.07k (+46.8%)", false},     // 4.07k stands for 4065 to 4075
		{"Total TPS: 4.06k (+46.8%)", true},      // no run near 4060
		{"Total TPS: 4068.16 (+46.8%) 1.47×", false},
	}
	for _, c := range cases {
		page := blocks + "| Case | Baseline | Optimized |\n|---|---|---|\n| Random | Total TPS: 2771.81 | " + c.row + " |\n"
		got := Check(Page{Name: "p.md", Text: []byte(page)})
		if (len(got) > 0) != c.want {
			t.Errorf("%q: findings %v, want finding=%v", c.row, got, c.want)
		}
	}
}

// TestUnitColumns reads a table whose columns give only a unit, and a
// percentage in a column of its own.
func TestUnitColumns(t *testing.T) {
	const blocks = "```\n" +
		"Successful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 2352.82\n" +
		"==================================================\n```\n\n```\n" +
		"Successful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 4284.68\n" +
		"==================================================\n```\n\n| Case | vLLM (tok/s) | TensorRT-LLM (tok/s) | Gain |\n|---|---|---|---|\n"
	cases := []struct {
		row  string
		want []string
	}{
		{"| ShareGPT | 2352.82 | 4284.68 | +82.1% |", nil},
		{"| ShareGPT | 2352.82 | 4284.68 | +72.1% |", []string{KindPercent}},
		{"| ShareGPT | 2352.82 | 4248.68 | +80.6% |", []string{KindNumber}}, // a transposed digit, its percentage computed from it
	}
	for _, c := range cases {
		var got []string
		for _, f := range Check(Page{Name: "p.md", Text: []byte(blocks + c.row + "\n")}) {
			got = append(got, f.Kind)
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: findings %v, want %v", c.row, got, c.want)
		}
	}
}

// TestBaselineColumn reads a table with one configuration per row and the
// change from the baseline row in a column of its own: right changes (and
// the baseline row's own 0% or 1x, or a dash) pass, wrong ones are found
// at their line.
func TestBaselineColumn(t *testing.T) {
	const blocks = "```\n" +
		"Successful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 2468.90\nMean TPOT (ms): 25.40\n" +
		"==================================================\n```\n\n```\n" +
		"Successful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 3024.68\nMean TPOT (ms): 20.10\n" +
		"==================================================\n```\n\n"
	cases := []struct {
		table string
		want  []int // lines of the findings
	}{
		{"| Engine | Total TPS | Mean TPOT (ms) | vs. baseline |\n|---|---|---|---|\n| vLLM (baseline) | 2468.90 | 25.40 | 0.0% |\n| SGLang | 3024.68 | 20.10 | +22.5% |\n", nil},
		{"| Engine | Total TPS | Mean TPOT (ms) | vs. baseline |\n|---|---|---|---|\n| vLLM (baseline) | 2468.90 | 25.40 | – |\n| SGLang | 3024.68 | 20.10 | -20.9% |\n", nil},
		{"| Engine | Total TPS | Speedup |\n|---|---|---|\n| vLLM | 2468.90 | 1.00x |\n| SGLang | 3024.68 | 1.23x |\n", nil},
		{"| Engine | Total TPS | Mean TPOT (ms) | vs. baseline |\n|---|---|---|---|\n| vLLM (baseline) | 2468.90 | 25.40 | 5.0% |\n| SGLang | 3024.68 | 20.10 | +32.5% |\n", []int{23, 24}},
		{"| Engine | Total TPS | Speedup |\n|---|---|---|\n| vLLM | 2468.90 | 1.10x |\n| SGLang | 3024.68 | 1.32x |\n", []int{23, 24}},
	}
	for _, c := range cases {
		var got []int
		for _, f := range Check(Page{Name: "p.md", Text: []byte(blocks + c.table)}) {
			if f.Kind != KindPercent {
				t.Errorf("%s: unexpected %s", c.table, f)
			}
			got = append(got, f.Line)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: findings at lines %v, want %v", c.table, got, c.want)
		}
	}
}

// TestRangeUnit: the first number of "from X to Y tok/s" shares Y's unit,
// also as an integer with thousands separators.
func TestRangeUnit(t *testing.T) {
	const block = "```\nSuccessful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 2468.90\n" +
		"==================================================\n```\n\n```\nSuccessful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 3024.68\n" +
		"==================================================\n```\n\n"
	cases := []struct {
		text string
		want int // findings
	}{
		{"Throughput rose from 2,469 to 3,025 tok/s.\n", 0},
		{"Throughput rose from 2,468.90 to 3,024.68 tok/s.\n", 0},
		{"Throughput rose from 2,496 to 3,025 tok/s.\n", 1},
		{"Throughput rose from 2,496.90 to 3,024.68 tok/s.\n", 1},
	}
	for _, c := range cases {
		if got := Check(Page{Name: "p.md", Text: []byte(block + c.text)}); len(got) != c.want {
			t.Errorf("%q: findings %v, want %d", c.text, got, c.want)
		}
	}
}

// TestOtherMetric: a percentage in a clause about another metric than the
// numbers of its sentence is the change between two runs in its metric.
func TestOtherMetric(t *testing.T) {
	const block = "```\nSuccessful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 2468.90\nMean TTFT (ms): 512.30\n" +
		"==================================================\n```\n\n```\nSuccessful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 3024.68\nMean TTFT (ms): 333.00\n" +
		"==================================================\n```\n\n"
	cases := []struct {
		text string
		want int // findings
	}{
		{"With more GPU memory, throughput is 32.5% higher (2468.90 → 3024.68 tok/s).\n", 1}, // a change, not a share
		{"With more GPU memory, throughput is 22.5% higher (2468.90 → 3024.68 tok/s).\n", 0},
		{"Mean TTFT dropped from 512.30 ms to 333.00 ms, a 35% reduction, while total throughput rose 22.5%.\n", 0},
		{"Mean TTFT dropped from 512.30 ms to 333.00 ms, a 35% reduction, while total throughput rose 32.5%.\n", 1},
		{"Mean TTFT dropped from 512.30 ms to 333.00 ms, a 45% reduction, while total throughput rose 22.5%.\n", 1},
		{"Total throughput rose from 2468.90 to 3024.68 tok/s, a 32.5% gain.\n", 1},
	}
	for _, c := range cases {
		if got := Check(Page{Name: "p.md", Text: []byte(block + c.text)}); len(got) != c.want {
			t.Errorf("%q: findings %v, want %d", c.text, got, c.want)
		}
	}
}

// TestTableForms reads tables as Markdown editors write them: short
// aligned delimiter cells ("|:--|--:|", read as no table before) and bold
// values with the percentage after them ("**3,024.68** (+22.5%)").
func TestTableForms(t *testing.T) {
	const block = "```\nSuccessful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 2468.90\nMean TTFT (ms): 512.30\n" +
		"==================================================\n```\n\n```\nSuccessful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 3024.68\nMean TTFT (ms): 333.00\n" +
		"==================================================\n```\n\n"
	cases := []struct {
		table string
		want  []string
	}{
		{"| Engine | Throughput (tok/s) | Mean TTFT (ms) |\n|:--|--:|--:|\n| vLLM | 2,468.90 | 512.30 |\n| SGLang | 3,024.68 (+22.5%) | 333.00 (-35.0%) |\n", nil},
		{"| Engine | Throughput (tok/s) | Mean TTFT (ms) |\n|:--|--:|--:|\n| vLLM | 2,468.90 | 522.30 |\n| SGLang | 3,024.68 (+32.5%) | 333.00 (-35.0%) |\n",
			[]string{"23: Mean TTFT (ms) 522.30 matches no benchmark output", "24: +32.5% is not the change from 2,468.90 to 3,024.68, which is +22.5%", "24: -35.0% is not the change from 522.30 to 333.00, which is -36.2%"}},
		{"| Engine | Throughput (tok/s) |\n|---|---|\n| vLLM | **2,468.90** |\n| SGLang | **3,024.68** <br> (+22.5%) |\n", nil},
		{"| Engine | Throughput (tok/s) |\n|---|---|\n| vLLM | **2,468.90** |\n| SGLang | **3,024.68** <br> (-22.5%) |\n", []string{"24: -22.5% has the wrong sign"}},
	}
	for _, c := range cases {
		got := Check(Page{Name: "p.md", Text: []byte(block + c.table)})
		ok := len(got) == len(c.want)
		for i := 0; ok && i < len(got); i++ {
			ok = strings.HasPrefix(got[i].String(), "p.md:"+c.want[i])
		}
		if !ok {
			t.Errorf("%s: findings %v, want %q", c.table, got, c.want)
		}
	}
}

// TestHeaderUnits reads the unit of a column from its header however it is
// written: "(tok/s)", "[tok/s]", "Output tok/s", "TTFT ms".
func TestHeaderUnits(t *testing.T) {
	const block = "```\nSuccessful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nOutput token throughput (tok/s): 1512.34\nMean TTFT (ms): 333.00\n" +
		"==================================================\n```\n\n"
	for _, h := range []string{"Output (tok/s)", "Output [tok/s]", "Output tok/s", "**Output tok/s**"} {
		for _, c := range []struct {
			v    string
			want int
		}{{"1512.34", 0}, {"1521.34", 1}} {
			page := block + "| Engine | " + h + " | TTFT ms |\n|---|---|---|\n| SGLang | " + c.v + " | 333.00 |\n"
			got, n := Run(Page{Name: "p.md", Text: []byte(page)})
			if len(got) != c.want || n.Numbers != 2 {
				t.Errorf("header %q, value %s: findings %v, %d number(s) checked; want %d finding(s), 2 numbers", h, c.v, got, n.Numbers, c.want)
			}
		}
	}
}

// TestThresholdRanking: a number after a comparison with a metric name is
// a bound (not checked), one after a number is a ranking (checked).
func TestThresholdRanking(t *testing.T) {
	const block = "```\nSuccessful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 2771.81\nMean TTFT (ms): 333.00\n" +
		"==================================================\n```\n\n```\nSuccessful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 2000.00\nMean TTFT (ms): 512.30\n" +
		"==================================================\n```\n\n"
	cases := []struct{ text, want string }{
		{"The SLO is mean TTFT < 500 ms; one engine meets it (333.00 ms), one does not (512.30 ms).\n", ""},
		{"The SLO is mean TTFT < 500 ms; one engine meets it (333.00 ms), one does not (521.30 ms).\n", KindNumber},
		{"Throughput: 2000.00 tok/s > 2771.81 tok/s.\n", KindOrder},
	}
	for _, c := range cases {
		var kinds []string
		for _, f := range Check(Page{Name: "p.md", Text: []byte(block + c.text)}) {
			kinds = append(kinds, f.Kind)
		}
		if strings.Join(kinds, ",") != c.want {
			t.Errorf("%q: findings %v, want %q", c.text, kinds, c.want)
		}
	}
}

// TestPerGPUColumns reads per-GPU values ("per A100" in prose, a column
// whose header says so): the run's value over the GPUs of its command's -tp.
func TestPerGPUColumns(t *testing.T) {
	const page = "```bash\nvllm serve meta-llama/Llama-3.1-8B-Instruct -tp 2\n```\n\n```\n" +
		"Successful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nOutput token throughput (tok/s): 1234.56\nTotal token throughput (tok/s): 2468.90\n" +
		"==================================================\n```\n\n"
	cases := []struct {
		table string
		want  int // findings
	}{
		{"vLLM serves 617.28 tok/s per A100.\n", 0},
		{"vLLM serves 627.28 tok/s per A100.\n", 1},
		{"| Engine | Output throughput per GPU (tok/s) |\n|---|---|\n| vLLM | 617.28 |\n", 0},
		{"| Engine | Total TPS (tok/s/GPU) |\n|---|---|\n| vLLM | 1,234.45 |\n", 0},
		{"| Engine | Output throughput per GPU (tok/s) |\n|---|---|\n| vLLM | 627.28 |\n", 1},
		{"| Engine | Total TPS (tok/s/GPU) |\n|---|---|\n| vLLM | 1,334.45 |\n", 1},
	}
	for _, c := range cases {
		got, n := Run(Page{Name: "p.md", Text: []byte(page + c.table)})
		if len(got) != c.want || n.Numbers != 1 {
			t.Errorf("%s: findings %v, %d number(s) checked; want %d finding(s), 1 number", c.table, got, n.Numbers, c.want)
		}
	}
}

// TestNotClaims lists text that holds numbers but no claim about the
// page's data: none of it may be reported.
func TestNotClaims(t *testing.T) {
	const block = "```\nSuccessful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 2771.81\nMean TPOT (ms): 43.42\n" +
		"==================================================\n```\n\n" +
		"```\nSuccessful requests: 100\nBenchmark duration (s): 10.00\nTotal input tokens: 1000\nRequest throughput (req/s): 10.00\nTotal token throughput (tok/s): 2000.00\n" +
		"==================================================\n```\n\n"
	cases := []struct{ name, text string }{
		{"four-backtick fence holding a three-backtick one",
			"````markdown\n```\nTotal TPS: 1234.00 (+99.0%)\n```\n````\n\nThe engine served 2771.81 tok/s.\n"},
		{"versions and model names", "vLLM v0.11.0 and SGLang v0.5.5.post1 serve Qwen3-32B with -tp 4 on 8 H100 GPUs; 32K input, 128k context.\n"},
		{"a share, not a change", "| Case | Optimized |\n|---|---|\n| ShareGPT | Total TPS: 2771.81 (Success rate: 51.6%) |\n"},
		{"accuracy, a percentage about no metric", "FP8 quantization keeps the accuracy drop below 1% for most models.\n"},
		{"the baseline is not on the table", "| Case | Optimized |\n|---|---|\n| ShareGPT | Total TPS: 2771.81 (+82.1%)<br>Mean TPOT(ms): 43.42 |\n"},
		{"an arrow is not a ranking", "Throughput went from 2000.00 tok/s -> 2771.81 tok/s.\n"},
		{"profile definitions", "- Very long prompt: 32000 input tokens, 100 output tokens\n- request_rate: 1000, total_requests: 1000\n"},
		{"a repeated percentage", "| Case | Baseline | Optimized |\n|---|---|---|\n| A | Total TPS: 2000.00 | Total TPS: 2771.81 (+38.6%) |\n\nThe gain (+38.6%, see above) holds.\n"},
		{"a factor of two numbers beside it", "Throughput rose 1.39x, from 2000.00 to 2771.81 tok/s.\n"},
		{"a range sharing its unit", "Throughput rose from 2000.00 to 2771.81 tok/s (+38.6%).\n"},
		{"shares in prose", "GPU utilization stayed at 95% while the engine served 2771.81 tok/s against 2000.00 tok/s.\n\n" +
			"All requests succeeded (100%), at 2000.00 tok/s and 2771.81 tok/s.\n\n" +
			"KV cache usage peaked at 87.5% at 2771.81 tok/s and 92% at 2000.00 tok/s.\n\n" +
			"With 90% GPU memory the engine serves 2771.81 tok/s vs 2000.00 tok/s.\n"},
		{"SLO thresholds", "The engine meets the SLO (mean TTFT < 500 ms, TPOT <= 50 ms, P99 TTFT under 1,000 ms, ITL ≤ 80 ms) at 2771.81 tok/s.\n"},
		{"a ranking of two numbers", "Throughput: 2771.81 tok/s > 2000.00 tok/s.\n"},
		{"an HTML comment over several lines", "<!-- an older run:\n| Engine | Total TPS |\n|---|---|\n| vLLM | 2600.00 (+30.0%) |\n-->\n"},
		{"a column in thousands", "| Engine | Total throughput (k tok/s) |\n|---|---|\n| vLLM | 2.77 |\n"},
		{"device counts are no factors", "On 8x H100 (as on 2× A100 80GB, 4x GPUs or 2x NVIDIA RTX 4090), throughput rose from 2000.00 to 2771.81 tok/s.\n"},
		{"a link target and an image", "![chart](../../assets/qwen3-32b-h100-2771.81.png) [report](https://example.com/run/4068.16)\n"},
	}
	for _, c := range cases {
		if got := Check(Page{Name: "p.md", Text: []byte(block + c.text)}); len(got) != 0 {
			t.Errorf("%s: %v, want no findings", c.name, got)
		}
	}
}

// TestCollapsedPage plants a wrong model and a wrong percentage in seed
// 000, which lost its line breaks (headings, tables and fences mid-line).
func TestCollapsedPage(t *testing.T) {
	src := string(mustRead(t, "testdata/seed000.md"))
	for _, c := range []struct{ old, new, kind, text string }{
		{"vllm serve Qwen/Qwen3.5-35B-A3B-FP8", "vllm serve Qwen/Qwen3-32B-FP8", KindModel, "names model Qwen/Qwen3-32B-FP8, but the page is about Qwen/Qwen3.5-35B-A3B"},
		{"(+33.03%)", "(+30.03%)", KindPercent, "+30.03% is not the change from 37934.72 to 50464.84, which is +33.03%"},
		{"faster by 4,636.35 tok/s (92.8%)", "faster by 4,636.35 tok/s (93.8%)", KindPercent, "93.8% matches no change"},
		{"Total TPS: 10363.77 (+7.60%", "Total TPS: 10363.17 (+7.60%", KindNumber, "Total TPS 10363.17 matches no benchmark output"},
	} {
		if !strings.Contains(src, c.old) {
			t.Fatalf("seed 000 lacks %q", c.old)
		}
		page := strings.Replace(src, c.old, c.new, 1)
		var got []Finding
		for _, f := range Check(Page{Name: "seed000.md", Text: []byte(page)}) {
			if f.Kind == c.kind && strings.Contains(f.Message, c.text) {
				got = append(got, f)
			}
		}
		if len(got) != 1 {
			t.Errorf("%q → %q: findings %v, want one %s finding with %q", c.old, c.new, Check(Page{Name: "seed000.md", Text: []byte(page)}), c.kind, c.text)
		}
	}
}

// TestRawMetric maps the rows of vLLM's, GPUStack's and SGLang's blocks
// to the metrics that labels and units on a page stand for.
func TestRawMetric(t *testing.T) {
	cases := []struct{ label, metric, unit string }{
		{"Total Token throughput (tok/s)", "total_tps", "tok/s"}, // vLLM 0.11 capitalises Token
		{"Output token throughput (tok/s)", "output_tps", "tok/s"},
		{"Request throughput (req/s)", "req_tps", "req/s"},
		{"Mean TPOT (ms)", "mean_tpot", "ms"},
		{"P99 ITL (ms)", "p99_itl", "ms"},
		{"Mean Latency(s)", "mean_latency", "s"},     // GPUStack's Latency section
		{"Mean E2E Latency (ms)", "mean_e2el", "ms"}, // SGLang's bench_serving
		{"Max ITL (ms)", "max_itl", "ms"},
		{"Input token throughput (tok/s)", "input_tps", "tok/s"},
		{"Concurrency", "concurrency", ""},
		{"Successful requests", "successful requests", ""},
	}
	for _, c := range cases {
		if m, u := rawMetric(c.label); m != c.metric || u != c.unit {
			t.Errorf("rawMetric(%q) = %q, %q; want %q, %q", c.label, m, u, c.metric, c.unit)
		}
	}
	// A page's labels name the same metrics.
	for label, want := range map[string]string{"Mean E2E Latency": "mean_e2el", "Total TPS": "total_tps", "Mean TPOT": "mean_tpot", "P99 TTFT": "p99_ttft"} {
		n := &number{label: strings.ToLower(label)}
		if got := claimMetrics(n); len(got) != 1 || got[0] != want {
			t.Errorf("claimMetrics(%q) = %v, want [%s]", label, got, want)
		}
	}
}

// TestPageRate reads the offered load from the page's benchmark commands
// only when they agree.
func TestPageRate(t *testing.T) {
	cases := []struct {
		text string
		want float64
	}{
		{"vllm bench serve --request-rate 10 --num-prompts 600", 10},
		{"vllm bench serve --request-rate=10\nvllm bench serve --request-rate 10", 10},
		{"vllm bench serve --request-rate 10\nvllm bench serve --request-rate inf", 0}, // which block had which?
		{"vllm bench serve --request-rate 10\nvllm bench serve --request-rate 20", 0},
		{"guidellm benchmark --rate ${request_rate}\nrequest_rate: 1000", 1000},
		{"Traffic request rate: inf", 0},
		{"Traffic request rate: 4.0", 4},
		{"no rate here", 0},
	}
	for _, c := range cases {
		if got := pageRate(c.text); got != c.want {
			t.Errorf("pageRate(%q) = %v, want %v", c.text, got, c.want)
		}
	}
}

// TestCommandGPUs counts the GPUs of serving commands for per-GPU numbers.
func TestCommandGPUs(t *testing.T) {
	cases := []struct {
		cmd  string
		want int
	}{
		{"vllm serve Qwen/Qwen3-8B", 1},
		{"vllm serve Qwen/Qwen3-8B -tp 2", 2},
		{"vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size=8 --pipeline-parallel-size 2", 16},
		{"vllm serve deepseek-ai/DeepSeek-V3 -dp 8 --enable-expert-parallel", 8},
		{"python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 4 --dp 2", 8},
		// DP attention runs its data-parallel ranks on the tensor-parallel GPUs.
		{"python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --dp 8 --enable-dp-attention", 8},
	}
	for _, c := range cases {
		if got := commandGPUs(c.cmd); got != c.want {
			t.Errorf("%s: %d GPUs, want %d", c.cmd, got, c.want)
		}
	}
}
