package campaignfile

import (
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func indentLines(s string) []byte {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("  " + l + "\n")
	}
	return []byte(b.String())
}

// TestProfileSweepYAML: request_rate and max_concurrency (alias
// concurrency) take a value or a list; unknown keys stay errors with a line.
func TestProfileSweepYAML(t *testing.T) {
	f, err := Parse("c.yaml", []byte(`id: c
slo: {ttft_p99: 2000}
cost: {gpu_hour_usd: 2.5}
profiles:
  - {id: a, request_rate: inf, max_concurrency: 8}
  - {id: b, concurrency: [1, 4, 16], repeats: 3}
  - {id: c, request_rate: [1, 10, inf]}
  - {id: d, request_rate: 2.5}
`))
	if err != nil {
		t.Fatal(err)
	}
	ps := f.Campaign.Profiles
	if ps[0].RequestRate != 0 || ps[0].MaxConcurrency != 8 || ps[0].Sweep() != "" {
		t.Errorf("a: %+v", ps[0])
	}
	if !reflect.DeepEqual(ps[1].Concurrencies, []int{1, 4, 16}) || ps[1].Repeats != 3 || ps[1].MaxConcurrency != 0 {
		t.Errorf("b: %+v", ps[1])
	}
	if !reflect.DeepEqual(ps[2].RequestRates, []float64{1, 10, 0}) {
		t.Errorf("c: %+v", ps[2])
	}
	if ps[3].RequestRate != 2.5 || f.Campaign.SLO["ttft_p99"] != 2000 || f.Campaign.Cost.GPUHourUSD != 2.5 {
		t.Errorf("d: %+v, campaign %+v", ps[3], f.Campaign)
	}
	// Written back, the profiles read the same.
	out, err := yaml.Marshal(f.Campaign.Profiles)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "- inf\n") || !strings.Contains(string(out), "request_rate: 2.5") || !strings.Contains(string(out), "max_concurrency: 8") {
		t.Errorf("marshalled:\n%s", out)
	}
	f2, err := Parse("c2.yaml", append([]byte("id: c\nprofiles:\n"), indentLines(string(out))...))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f2.Campaign.Profiles, f.Campaign.Profiles) {
		t.Errorf("round trip:\n%+v\n%+v", f2.Campaign.Profiles, f.Campaign.Profiles)
	}
	_, err = Parse("c.yaml", []byte("id: c\nprofiles:\n  - id: a\n    concurrency: [1]\n    bogus: 1\n"))
	if err == nil || !strings.Contains(err.Error(), `c.yaml:5: profiles[0].bogus: unknown field "bogus" in a profile`) {
		t.Errorf("unknown field: %v", err)
	}
	_, err = Parse("c.yaml", []byte("id: c\nprofiles:\n  - id: a\n    num_prompts: many\n"))
	if err == nil || !strings.Contains(err.Error(), "c.yaml:4: profiles[0].num_prompts: ") {
		t.Errorf("type error: %v", err)
	}
}
