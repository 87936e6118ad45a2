package schema

import (
	"math"
	"testing"
)

func TestProfilePoints(t *testing.T) {
	p := Profile{ID: "p", Concurrencies: []int{64, 1, 8}, Repeats: 3, Args: []string{"--ignore-eos"}}
	pts := p.Points()
	if len(pts) != 3 || pts[0].Value != 1 || pts[2].Value != 64 || pts[1].Slug() != "c8" || pts[1].String() != "concurrency 8" {
		t.Fatalf("points %+v", pts)
	}
	at := p.At(pts[2])
	if at.MaxConcurrency != 64 || at.Concurrencies != nil || at.Repeats != 0 || p.Concurrencies == nil {
		t.Errorf("At: %+v (source %+v)", at, p)
	}
	at.Args[0] = "x"
	if p.Args[0] != "--ignore-eos" {
		t.Error("At shares Args with the source")
	}
	r := Profile{RequestRates: []float64{0, 10, 0.5}}
	pts = r.Points()
	if r.Sweep() != SweepRate || pts[0].Slug() != "rate0.5" || pts[2].Slug() != "rateinf" || pts[2].String() != "inf req/s" {
		t.Errorf("rate points %+v", pts)
	}
	if one := (&Profile{MaxConcurrency: 4}).Points(); len(one) != 1 || one[0] != (Point{}) || one[0].Slug() != "" {
		t.Errorf("one load: %+v", one)
	}
	if (&Profile{}).RepeatCount() != 1 {
		t.Error("RepeatCount of 0")
	}
	if got := PointOf(Load{Sweep: SweepRate, RequestRate: math.Inf(1)}); got != (Point{Sweep: SweepRate}) {
		t.Errorf("PointOf inf: %+v", got)
	}
	if got := PointOf(Load{MaxConcurrency: 8}); got != (Point{}) {
		t.Errorf("PointOf without sweep: %+v", got)
	}
}

func TestParseRate(t *testing.T) {
	for in, want := range map[string]float64{"inf": 0, ".inf": 0, "2.5": 2.5, "-1": -1, "abc": -1, "0": 0} {
		if got := parseRate(in); got != want {
			t.Errorf("parseRate(%q) = %v, want %v", in, got, want)
		}
	}
}
