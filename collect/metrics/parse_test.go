package metrics

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	if got, err := ParseMetrics("ttft, tpot,itl,e2el,client_queue_time,e2el_including_client_queue"); err != nil || len(got) != 6 || got[1] != "tpot" {
		t.Errorf("ParseMetrics: %v %v", got, err)
	}
	for _, bad := range []string{"ttfb", "ttft,,itl", ""} {
		if _, err := ParseMetrics(bad); err == nil {
			t.Errorf("ParseMetrics(%q): no error", bad)
		}
	}
	if got, err := ParsePercentiles("25,50, 99.9,100"); err != nil || !reflect.DeepEqual(got, []float64{25, 50, 99.9, 100}) {
		t.Errorf("ParsePercentiles: %v %v", got, err)
	}
	for _, bad := range []string{"101", "-1", "p99", "nan", "99,"} {
		if _, err := ParsePercentiles(bad); err == nil {
			t.Errorf("ParsePercentiles(%q): no error", bad)
		}
	}
	if got, err := ParseGoodput([]string{"ttft:500", "tpot:50", "e2el:2000", "ttft:400"}); err != nil ||
		!reflect.DeepEqual(got, map[string]float64{"ttft": 400, "tpot": 50, "e2el": 2000}) {
		t.Errorf("ParseGoodput: %v %v", got, err) // the later ttft wins
	}
	if got, err := ParseGoodput(nil); err != nil || got != nil {
		t.Errorf("ParseGoodput(nil) = %v, %v", got, err)
	}
	for _, bad := range []string{"ttft", "ttft:1:2", "itl:5", "ttft:-1", "ttft:abc", "ttft:nan"} {
		if _, err := ParseGoodput([]string{bad}); err == nil {
			t.Errorf("ParseGoodput(%q): no error", bad)
		}
	}
	if got, err := ParseMetadata([]string{" version = 0.3.3 ", "expr=a=b"}); err != nil ||
		!reflect.DeepEqual(got, []KeyValue{{"version", "0.3.3"}, {"expr", "a=b"}}) {
		t.Errorf("ParseMetadata: %v %v", got, err)
	}
	if _, err := ParseMetadata([]string{"novalue"}); err == nil || !strings.Contains(err.Error(), "KEY=VALUE") {
		t.Errorf("ParseMetadata(novalue): %v", err)
	}
}
