package schema

import "testing"

func TestBenchmarkTextStart(t *testing.T) {
	tests := []struct {
		name, text string
		want       int
	}{
		{"header", "$ vllm bench serve\n============ Serving Benchmark Result ============\nSuccessful requests: 9\n", 19},
		{"no header", "# log\n  Successful requests:    984\n", 8},
		{"header after a first row", "Successful requests: 1\n== Serving Benchmark Result ==\n", 0},
		{"prose", "We count Successful requests: of the run in prose.\n", -1},
		{"no count", "Successful requests: none\n", -1},
		{"shell code", "vllm serve Qwen/Qwen3-32B --max-num-seqs 512\n", -1},
	}
	for _, tt := range tests {
		if got := BenchmarkTextStart(tt.text); got != tt.want {
			t.Errorf("%s: BenchmarkTextStart = %d, want %d", tt.name, got, tt.want)
		}
	}
}
