package ingest

import (
	"os"
	"testing"

	"strings"
)

// TestSGLangText reads SGLang's bench_serving blocks: "not set" and "inf"
// values, the End-to-End Latency and Inter-Token Latency sections (P95 and
// Max rows), older SGLang's "Total throughput" row; the result is SGLang's,
// not GPUStack's or guidellm's, although it has P95 rows.
func TestSGLangText(t *testing.T) {
	const f = "testdata/sglang_bench_serving.md"
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	es, err := Parse(f, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 {
		t.Fatalf("got %d entries, want 2", len(es))
	}
	rs, err := Results(es, Options{CampaignID: "t"})
	if err != nil {
		t.Fatal(err)
	}
	cur, old := rs[0], rs[1]
	for _, r := range rs {
		if r.Metadata["source_format"] != FormatSGLangText || r.Tool.Name != SGLangTool {
			t.Errorf("%s: format %q tool %q, want %q %q", r.ID, r.Metadata["source_format"], r.Tool.Name, FormatSGLangText, SGLangTool)
		}
		for _, w := range r.Warnings {
			if strings.Contains(w, "guidellm") || strings.Contains(w, "GPUStack") || strings.Contains(w, "not known") {
				t.Errorf("%s: warning %q", r.ID, w)
			}
		}
	}
	s := cur.Summary
	if s.MaxConcurrency != nil || cur.Load.MaxConcurrency != 0 || cur.Load.RequestRate != 0 {
		t.Errorf("not set / inf: max concurrency %v load %+v", s.MaxConcurrency, cur.Load)
	}
	if s.TotalTokenThroughput != 18432 || s.E2EL == nil || *s.E2EL.MeanMs != 9457.61 {
		t.Errorf("totals/E2EL: %+v", s)
	}
	if v, ok := s.E2EL.Get(90); !ok || v != 11980.40 {
		t.Errorf("P90 E2E = %v %v", v, ok)
	}
	if v, ok := s.ITL.Get(95); !ok || v != 88.17 {
		t.Errorf("P95 ITL = %v %v", v, ok)
	}
	if v, ok := s.ITL.Get(100); !ok || v != 1210.35 {
		t.Errorf("Max ITL (p100) = %v %v", v, ok)
	}
	if cur.Metadata["sglang_backend"] != "sglang" || cur.Metadata["sglang_concurrency"] != "151.32" {
		t.Errorf("metadata %v", cur.Metadata)
	}
	if old.Load.MaxConcurrency != 64 || old.Load.RequestRate != 4 || *old.Summary.MaxConcurrency != 64 {
		t.Errorf("cap/rate: %+v", old.Load)
	}
	if old.Summary.TotalTokenThroughput != 2121.89 {
		t.Errorf("Total throughput row: %v", old.Summary.TotalTokenThroughput)
	}
	if old.Summary.ITL == nil || old.Summary.ITL.MeanMs == nil {
		t.Errorf("old SGLang's Inter-token Latency section not read")
	}

}

func TestSGLangBadValue(t *testing.T) {
	in := "============ Serving Benchmark Result ============\nBackend: sglang\nMax request concurrency: lots\nSuccessful requests: 1\n==================================================\n"
	_, err := Parse("bad.txt", []byte(in))
	if err == nil || !strings.Contains(err.Error(), "bad.txt:3") || !strings.Contains(err.Error(), "Max request concurrency") {
		t.Fatalf("err = %v, want bad.txt:3 naming the row", err)
	}
}
