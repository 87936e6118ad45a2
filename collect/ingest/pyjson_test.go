package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vllmRecordWith is testdata/vllm_result.json's record with fields
// replaced: key → its new value's text, as written.
func vllmRecordWith(t *testing.T, set map[string]string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "vllm_result.json"))
	if err != nil {
		t.Fatal(err)
	}
	rec := strings.TrimSpace(string(b))
	for k, v := range set {
		i := strings.Index(rec, `"`+k+`": `)
		if i < 0 {
			t.Fatalf("no field %q", k)
		}
		i += len(k) + 4
		j := i + strings.IndexAny(rec[i:], ",}")
		rec = rec[:i] + v + rec[j:]
	}
	return rec
}

// TestVLLMJSONPythonNaN: Python's json.dump writes a float nan as the bare
// token NaN; the record is read as Python reads it, the figure not
// measured, and the raw record kept is the source's.
func TestVLLMJSONPythonNaN(t *testing.T) {
	rec := vllmRecordWith(t, map[string]string{"mean_ttft_ms": "NaN", "label": `"NaN, Infinity and -Infinity"`})
	es, err := Parse("in.json", []byte(rec+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	s := es[0].Summary
	if s.TTFT == nil || s.TTFT.MeanMs != nil || s.TTFT.MedianMs == nil || *s.TTFT.MedianMs != 77291.4634 {
		t.Errorf("TTFT %+v: want the mean absent, the median read", s.TTFT)
	}
	if es[0].Label != "NaN, Infinity and -Infinity" {
		t.Errorf("label %q: a string's NaN changed", es[0].Label)
	}
	if es[0].Raw != rec {
		t.Errorf("raw record is not the source's:\n%s\n%s", es[0].Raw, rec)
	}
}

// TestVLLMJSONPythonInfinity: an infinite figure is an error naming the
// file, the record's line and the field; an infinite request_rate is an
// unlimited rate, as vLLM's "inf".
func TestVLLMJSONPythonInfinity(t *testing.T) {
	first := vllmRecordWith(t, map[string]string{"mean_tpot_ms": "NaN"})
	for _, tc := range []struct{ key, val, want string }{
		{"mean_ttft_ms", "Infinity", `in.json:3: field "mean_ttft_ms": expected a finite number, found Infinity`},
		{"duration", "-Infinity", `in.json:3: field "duration": expected a finite number, found -Infinity`},
		{"label", "Infinity", `in.json:3: field "label": expected a string, found Infinity`},
	} {
		data := first + "\n\n" + vllmRecordWith(t, map[string]string{tc.key: tc.val}) + "\n"
		_, err := Parse("in.json", []byte(data))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s %s: error %v, want %s", tc.key, tc.val, err, tc.want)
		}
	}
	es, err := Parse("in.json", []byte(vllmRecordWith(t, map[string]string{"request_rate": "Infinity"})))
	if err != nil || es[0].Load.RequestRate != 0 {
		t.Errorf("request_rate Infinity: %v, rate %v", err, es)
	}
}

// TestVLLMJSONPythonLines: after records holding NaN (whose rewriting is
// one byte longer), the later records keep their lines and raw text, and
// an error in one names its line.
func TestVLLMJSONPythonLines(t *testing.T) {
	recs := []string{
		vllmRecordWith(t, map[string]string{"mean_ttft_ms": "NaN", "std_itl_ms": "NaN"}),
		vllmRecordWith(t, map[string]string{"p99_tpot_ms": "NaN"}),
		vllmRecordWith(t, map[string]string{"label": `"NaN"`}),
	}
	data := recs[0] + "\n" + recs[1] + "\n\n" + recs[2] + "\n"
	es, err := Parse("in.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{1, 2, 4} {
		if es[i].Line != want || es[i].Raw != recs[i] {
			t.Errorf("record %d at line %d (want %d), raw kept %v", i, es[i].Line, want, es[i].Raw == recs[i])
		}
	}
	if es[2].Label != "NaN" {
		t.Errorf("label %q", es[2].Label)
	}
	_, err = Parse("in.json", []byte(data+`{"duration": NaN, "completed": }`+"\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "in.json:5: malformed JSON") {
		t.Errorf("error %v, want one at in.json:5", err)
	}
}

// TestGuideLLMPythonNaN: guidellm's report read with Python's bare tokens:
// a NaN percentile is not measured, an infinite figure an error naming
// its path.
func TestGuideLLMPythonNaN(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "guidellm.json"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	nan := strings.Replace(src, `"p001": 8.0`, `"p001": NaN`, 1)
	es, err := Parse("in.json", []byte(nan))
	if err != nil {
		t.Fatal(err)
	}
	ttft := es[0].Summary.TTFT
	if ttft == nil || len(ttft.Percentiles) == 0 || ttft.Percentiles[0].P == 0.1 {
		t.Errorf("TTFT percentiles %+v: want p0.1 absent", ttft)
	}
	inf := strings.Replace(src, `"p001": 8.0`, `"p001": Infinity`, 1)
	_, err = Parse("in.json", []byte(inf))
	if err == nil || !strings.HasPrefix(err.Error(), "in.json:1: field \"benchmarks[0].metrics.time_to_first_token_ms.successful.percentiles.p001\": expected a finite number, found Infinity") {
		t.Errorf("error %v", err)
	}
}
