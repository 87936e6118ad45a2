package campaignfile

import (
	"reflect"
	"strings"
	"testing"
)

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
	_, err = Parse("c.yaml", []byte("id: c\nprofiles:\n  - id: a\n    concurrency: [1]\n    bogus: 1\n"))
	if err == nil || !strings.Contains(err.Error(), `c.yaml:5: profiles[0].bogus: unknown field "bogus" in a profile`) {
		t.Errorf("unknown field: %v", err)
	}
	_, err = Parse("c.yaml", []byte("id: c\nprofiles:\n  - id: a\n    num_prompts: many\n"))
	if err == nil || !strings.Contains(err.Error(), "c.yaml:4: profiles[0].num_prompts: ") {
		t.Errorf("type error: %v", err)
	}
}
