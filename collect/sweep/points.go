package sweep

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Kind is the load field a sweep varies, named as schema.Load.Sweep.
type Kind string

const (
	// Concurrency sweeps --max-concurrency (integers ≥ 1).
	Concurrency Kind = "max_concurrency"
	// Rate sweeps --request-rate (positive numbers; +Inf is "inf").
	Rate Kind = "request_rate"
)

// Point is one load of a sweep.
type Point struct {
	Kind  Kind
	Value float64 // a concurrency, or requests/s (+Inf: all at once)
}

// String is the point as the summary table shows it: "c=8", "rate=10",
// "rate=inf".
func (p Point) String() string {
	if p.Kind == Concurrency {
		return "c=" + strconv.Itoa(int(p.Value))
	}
	return "rate=" + FormatRate(p.Value)
}

// FormatRate writes a rate as the flags take it: "10", "2.5", "inf".
func FormatRate(v float64) string {
	if math.IsInf(v, 1) {
		return "inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// ParseRate reads one rate: a positive number or inf.
func ParseRate(s string) (float64, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "inf", "+inf", "infinity":
		return math.Inf(1), nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q: want a positive number or inf", s)
	}
	return v, nil
}

// ParseList reads a comma-separated list of points: concurrencies (whole
// numbers ≥ 1) or rates (positive numbers or inf). Duplicates are an
// error; the order is kept (a sweep runs in the order given).
func ParseList(kind Kind, s string) ([]Point, error) {
	var out []Point
	seen := map[float64]bool{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("sweep %s %q: empty item", kind, s)
		}
		var v float64
		if kind == Concurrency {
			n, err := strconv.Atoi(item)
			if err != nil || n < 1 {
				return nil, fmt.Errorf("sweep %s %q: %q is not a whole number ≥ 1", kind, s, item)
			}
			v = float64(n)
		} else {
			r, err := ParseRate(item)
			if err != nil {
				return nil, fmt.Errorf("sweep %s %q: %v", kind, s, err)
			}
			v = r
		}
		if seen[v] {
			return nil, fmt.Errorf("sweep %s %q: %s appears twice", kind, s, item)
		}
		seen[v] = true
		out = append(out, Point{Kind: kind, Value: v})
	}
	return out, nil
}
