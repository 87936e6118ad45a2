package site

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
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
			d := Compare(tt.ref, tt.v, tt.higherBetter)
			if d.String() != tt.want || d.Class() != tt.class {
				t.Errorf("Compare(%v, %v, %v) = %q %q; want %q %q", tt.ref, tt.v, tt.higherBetter, d.String(), d.Class(), tt.want, tt.class)
			}
		})
	}
}

// TestPerGPU: when GPU counts differ, throughput is compared per GPU;
// latency never is.
func TestPerGPU(t *testing.T) {
	tps, tpot := MustMetric("total_token_throughput"), MustMetric("mean_tpot")
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
			d := Compare(Normalized(tt.m, tt.base, tt.baseG, norm), Normalized(tt.m, tt.opt, tt.optG, norm), tt.m.HigherBetter)
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
		if got := FmtNum(v); got != want {
			t.Errorf("FmtNum(%v) = %q, want %q", v, got, want)
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
			if got, want := FmtNum(x), old(x); got != want {
				t.Errorf("FmtNum(%v) = %q, fmt gives %q", x, got, want)
			}
			if got, want := SortKey(x), fmt.Sprintf("%.4f", x); got != want {
				t.Errorf("SortKey(%v) = %q, fmt gives %q", x, got, want)
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
			got := Caveats(r)
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
