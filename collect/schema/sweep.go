package schema

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Sweep kinds: the load field that varies across a sweep's points
// (Load.Sweep, Point.Sweep), named as vLLM's flags.
const (
	SweepConcurrency = "max_concurrency"
	SweepRate        = "request_rate"
)

// Point is one load of a profile: for a sweep, the swept field and this
// point's value (a rate of 0 is inf); for a profile at one load, Sweep is
// "" and Value 0.
type Point struct {
	Sweep string
	Value float64
}

// Sweep returns the field a sweep profile varies (SweepConcurrency or
// SweepRate), "" for a profile at one load.
func (p *Profile) Sweep() string {
	switch {
	case len(p.Concurrencies) > 0:
		return SweepConcurrency
	case len(p.RequestRates) > 0:
		return SweepRate
	}
	return ""
}

// Points returns the profile's load points in increasing load (a rate of
// inf last), one zero Point for a profile at one load. Duplicates are
// kept (validation reports them).
func (p *Profile) Points() []Point {
	var pts []Point
	switch p.Sweep() {
	case SweepConcurrency:
		for _, c := range p.Concurrencies {
			pts = append(pts, Point{Sweep: SweepConcurrency, Value: float64(c)})
		}
	case SweepRate:
		for _, r := range p.RequestRates {
			pts = append(pts, Point{Sweep: SweepRate, Value: r})
		}
	default:
		return []Point{{}}
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].load() < pts[j].load() })
	return pts
}

// load orders points: a rate of 0 (inf) is the highest.
func (pt Point) load() float64 {
	if pt.Sweep == SweepRate && pt.Value == 0 {
		return math.Inf(1)
	}
	return pt.Value
}

// At returns the profile as one run at point pt: its max_concurrency or
// request_rate set to the point's value, the sweep lists and Repeats
// cleared (the benchmark command of one run).
func (p *Profile) At(pt Point) Profile {
	q := *p
	q.Args = append([]string(nil), p.Args...)
	if p.Args == nil {
		q.Args = nil
	}
	switch pt.Sweep {
	case SweepConcurrency:
		q.MaxConcurrency = int(pt.Value)
	case SweepRate:
		q.RequestRate = pt.Value
	}
	q.Concurrencies, q.RequestRates, q.Repeats = nil, nil, 0
	return q
}

// RepeatCount is how many runs each point gets: Repeats, at least 1.
func (p *Profile) RepeatCount() int {
	if p.Repeats < 1 {
		return 1
	}
	return p.Repeats
}

// PointValues writes the sweep's values as perflab bench takes them:
// "1", "8", "64", or "inf" for an unlimited rate; nil for no sweep.
func (p *Profile) PointValues() []string {
	if p.Sweep() == "" {
		return nil
	}
	var vals []string
	for _, pt := range p.Points() {
		v := strconv.FormatFloat(pt.Value, 'f', -1, 64)
		if pt.Sweep == SweepRate && pt.Value == 0 {
			v = "inf"
		}
		vals = append(vals, v)
	}
	return vals
}

// SweepArgs are the flags of vLLM's compiled client (and perflab bench)
// that stand for the profile's points and repeats:
// --sweep-max-concurrency 1,8,64 or --sweep-request-rate 1,10,inf, and
// --num-runs N; none for a profile at one load run once.
func (p *Profile) SweepArgs() []string {
	var args []string
	if vals := p.PointValues(); vals != nil {
		flag := "--sweep-max-concurrency"
		if p.Sweep() == SweepRate {
			flag = "--sweep-request-rate"
		}
		args = append(args, flag, strings.Join(vals, ","))
	}
	if n := p.RepeatCount(); n > 1 {
		args = append(args, "--num-runs", strconv.Itoa(n))
	}
	return args
}

// RunName is the base name collect gives the result file of experiment
// exp on profile prof at point pt, repeat rep (0-based):
// "<experiment>--<profile>", then "--c64" or "--rate10" for a sweep
// point and "--r1" for the second repeat on. A run keeps its name in
// every round (the pages carry a run a round did not measure from an
// earlier round's file of that name).
func RunName(exp, prof string, pt Point, rep int) string {
	name := exp + "--" + prof
	if pt.Sweep != "" {
		name += "--" + pt.Slug()
	}
	if rep > 0 {
		name += "--r" + strconv.Itoa(rep)
	}
	return name
}

// Slug is the point's part of a result file name: "c64" for concurrency
// 64, "rate10", "rate0.5" or "rateinf" for rates; "" for no sweep.
func (pt Point) Slug() string {
	switch pt.Sweep {
	case SweepConcurrency:
		return "c" + strconv.Itoa(int(pt.Value))
	case SweepRate:
		if pt.Value == 0 {
			return "rateinf"
		}
		return "rate" + strconv.FormatFloat(pt.Value, 'f', -1, 64)
	}
	return ""
}

// String names the point for people: "concurrency 64", "10 req/s",
// "inf req/s"; "" for no sweep.
func (pt Point) String() string {
	switch pt.Sweep {
	case SweepConcurrency:
		return "concurrency " + strconv.Itoa(int(pt.Value))
	case SweepRate:
		if pt.Value == 0 {
			return "inf req/s"
		}
		return strconv.FormatFloat(pt.Value, 'f', -1, 64) + " req/s"
	}
	return ""
}

// PointOf is the load point a result was measured at: its Load.Sweep and
// the swept field's value; the zero Point for a run that is no sweep
// point.
func PointOf(l Load) Point {
	switch l.Sweep {
	case SweepConcurrency:
		return Point{Sweep: SweepConcurrency, Value: float64(l.MaxConcurrency)}
	case SweepRate:
		r := l.RequestRate
		if math.IsInf(r, 1) {
			r = 0
		}
		return Point{Sweep: SweepRate, Value: r}
	}
	return Point{}
}

// profileFile is Profile as a campaign file spells it: request_rate and
// max_concurrency (alias concurrency) take a value or a list.
type profileFile struct {
	profileFields  `yaml:",inline"`
	RequestRate    *loadValues `yaml:"request_rate"`
	MaxConcurrency *loadValues `yaml:"max_concurrency"`
	Concurrency    *loadValues `yaml:"concurrency"`
}

// profileFields is Profile without its methods (no UnmarshalYAML).
type profileFields Profile

// loadValues is a YAML scalar or list of numbers (or inf).
type loadValues struct {
	list bool
	vals []string
}

// UnmarshalYAML reads a scalar or a sequence of scalars (yaml.v3's
// function form, so that this package needs no YAML import and the
// decoder keeps rejecting unknown fields).
func (l *loadValues) UnmarshalYAML(unmarshal func(any) error) error {
	var list []string
	if err := unmarshal(&list); err == nil {
		l.list, l.vals = true, list
		return nil
	}
	var one string
	if err := unmarshal(&one); err != nil {
		return err
	}
	l.vals = []string{one}
	return nil
}

// UnmarshalYAML decodes a profile from a campaign file.
func (p *Profile) UnmarshalYAML(unmarshal func(any) error) error {
	var f profileFile
	if err := unmarshal(&f); err != nil {
		return err
	}
	*p = Profile(f.profileFields)
	if f.RequestRate != nil {
		rates := make([]float64, len(f.RequestRate.vals))
		for i, s := range f.RequestRate.vals {
			rates[i] = parseRate(s)
		}
		if f.RequestRate.list {
			p.RequestRates = rates
			if len(rates) == 0 {
				return errors.New("profile " + p.ID + ": request_rate: an empty list")
			}
		} else {
			p.RequestRate = rates[0]
		}
	}
	conc := f.MaxConcurrency
	if f.Concurrency != nil {
		if conc != nil {
			return fmt.Errorf("profile %s: both concurrency and max_concurrency: give one", p.ID)
		}
		conc = f.Concurrency
	}
	if conc != nil {
		cs := make([]int, len(conc.vals))
		for i, s := range conc.vals {
			cs[i] = -1
			if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && n >= 0 {
				cs[i] = n
			}
		}
		if conc.list {
			p.Concurrencies = cs
			if len(cs) == 0 {
				return errors.New("profile " + p.ID + ": concurrency: an empty list")
			}
		} else {
			p.MaxConcurrency = cs[0]
		}
	}
	return nil
}

// parseRate reads a request rate: a number ≥ 0 or inf (0); -1 when it
// is neither.
func parseRate(s string) float64 {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "inf" || s == ".inf" || s == "+inf" {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsNaN(v) {
		return -1
	}
	if math.IsInf(v, 1) {
		return 0
	}
	return v
}

// profileOut is Profile as a campaign file writes it (MarshalYAML), in
// Profile's field order.
type profileOut struct {
	ID             string   `yaml:"id"`
	Name           string   `yaml:"name"`
	Description    string   `yaml:"description,omitempty"`
	Dataset        string   `yaml:"dataset"`
	DatasetPath    string   `yaml:"dataset_path,omitempty"`
	InputLen       int      `yaml:"input_len,omitempty"`
	OutputLen      int      `yaml:"output_len,omitempty"`
	RangeRatio     float64  `yaml:"range_ratio,omitempty"`
	NumPrompts     int      `yaml:"num_prompts"`
	RequestRate    any      `yaml:"request_rate,omitempty"`
	Burstiness     float64  `yaml:"burstiness,omitempty"`
	MaxConcurrency any      `yaml:"max_concurrency,omitempty"`
	Seed           int64    `yaml:"seed,omitempty"`
	Args           []string `yaml:"args,omitempty"`
	Repeats        int      `yaml:"repeats,omitempty"`
}

// MarshalYAML writes a profile as UnmarshalYAML reads it: request_rate
// and max_concurrency as a value, or as a list for a sweep (inf for a
// rate of 0 in a list). yaml.v3's interface form: no YAML import here.
func (p Profile) MarshalYAML() (any, error) {
	o := profileOut{ID: p.ID, Name: p.Name, Description: p.Description, Dataset: p.Dataset, DatasetPath: p.DatasetPath,
		InputLen: p.InputLen, OutputLen: p.OutputLen, RangeRatio: p.RangeRatio, NumPrompts: p.NumPrompts,
		Burstiness: p.Burstiness, Seed: p.Seed, Args: p.Args, Repeats: p.Repeats}
	switch {
	case len(p.RequestRates) > 0:
		var list []any
		for _, r := range p.RequestRates {
			if r == 0 {
				list = append(list, "inf")
			} else {
				list = append(list, r)
			}
		}
		o.RequestRate = list
	case p.RequestRate != 0:
		o.RequestRate = p.RequestRate
	}
	switch {
	case len(p.Concurrencies) > 0:
		o.MaxConcurrency = p.Concurrencies
	case p.MaxConcurrency != 0:
		o.MaxConcurrency = p.MaxConcurrency
	}
	return o, nil
}
