package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sample() *Result {
	return &Result{
		ID:     "r1",
		Status: StatusOK,
		Engine: Engine{Name: "vllm", Env: map[string]string{"B": "2", "A": "1"}},
		Model:  Model{ID: "Qwen/Qwen3-32B"},
		Load:   Load{Dataset: "random", NumPrompts: 2, InputLen: 64, OutputLen: 32},
		Tool:   Tool{Name: "perflab bench"},
		Summary: &Summary{
			DurationS: 1.5, Completed: 2,
			TTFT: &Stats{MeanMs: F(20.1), Percentiles: []Percentile{{P: 99, ValueMs: 21}}},
		},
		Requests: []Request{{Index: 0, PromptTokens: 64, OutputTokens: 32, SendS: 0.1, EventS: []float64{0.12, 0.125}, Success: true}},
	}
}

func TestRoundTripDeterministic(t *testing.T) {
	a, err := Marshal(sample())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Marshal(sample())
	if string(a) != string(b) {
		t.Fatal("two encodings differ")
	}
	if !strings.Contains(string(a), `"schema_version": 2`) {
		t.Fatalf("version not written:\n%s", a)
	}
	if strings.Index(string(a), `"A"`) > strings.Index(string(a), `"B"`) {
		t.Fatal("map keys not sorted")
	}
	r, err := Unmarshal("x.json", a)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := r.Summary.TTFT.Get(99); !ok || v != 21 {
		t.Fatalf("p99 = %v %v", v, ok)
	}
	c, _ := Marshal(r)
	if string(a) != string(c) {
		t.Fatalf("round trip changed output:\n%s\n%s", a, c)
	}
}

func TestUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"newer version", `{"schema_version": 9}`, "x.json: field schema_version: version 9 is newer"},
		{"no version", `{"id": "a"}`, "missing field schema_version"},
		// the error names the line of the broken token
		{"syntax", "{\n\"schema_version\": 1,\n\"id\": ]\n}", "x.json:3:"},
		{"wrong type", "{\"schema_version\": 1,\n \"status\": 5}", "x.json:2:"},
		{"wrong type names field", "{\"schema_version\": 1,\n \"summary\": {\"completed\": \"x\"}}", "field summary.completed"},
		{"unknown field", "{\"schema_version\": 1,\n \"bogus\": 5}", `x.json:2: unknown field "bogus"`},
		{"truncated", `{"schema_version": 1, "id": "a"`, "x.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Unmarshal("x.json", []byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want containing %q", err, tt.want)
			}
		})
	}
}

func TestWriteFileAtomicAndReadDir(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "r1.json")
	if err := WriteFile(p, sample()); err != nil {
		t.Fatal(err)
	}
	// a leftover temporary from an interrupted write is ignored
	if err := os.WriteFile(filepath.Join(dir, "sub", ".r2.json.tmp-1"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].ID != "r1" {
		t.Fatalf("ReadDir = %v", rs)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "sub"))
	if len(entries) != 2 {
		t.Fatalf("unexpected files: %v", entries)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"schema_version": 1, "x": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadDir(dir); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Fatalf("bad file not reported: %v", err)
	}
}
