package dataset

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// writeBigShareGPT writes a ShareGPT-format file of about mb megabytes
// made of the sample's conversations with numbered ids and a varying
// suffix, so the words are not all identical.
func writeBigShareGPT(b *testing.B, mb int) string {
	b.Helper()
	data, err := os.ReadFile(samplePath)
	if err != nil {
		b.Fatal(err)
	}
	var entries []map[string]any
	if err := json.Unmarshal(data, &entries); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "sharegpt-big.json")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("[\n")
	written, target := 0, mb<<20
	for i := 0; written < target; i++ {
		orig := entries[i%len(entries)]
		e := map[string]any{"id": fmt.Sprintf("big_%d", i)}
		if conv, ok := orig["conversations"].([]any); ok && len(conv) > 0 {
			turns := append([]any(nil), conv...)
			first := map[string]any{}
			for k, v := range turns[0].(map[string]any) {
				first[k] = v
			}
			first["value"] = fmt.Sprintf("%v (variant %d)", first["value"], i%997)
			turns[0] = first
			e["conversations"] = turns
		}
		line, _ := json.Marshal(e)
		if i > 0 {
			w.WriteString(",\n")
		}
		n, _ := w.Write(line)
		written += n + 2
	}
	w.WriteString("\n]\n")
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path
}

func benchMB() int {
	if v, err := strconv.Atoi(os.Getenv("PERFLAB_BENCH_SHAREGPT_MB")); err == nil && v > 0 {
		return v
	}
	return 64
}

// BenchmarkShareGPTStream times vLLM's ShareGPT sampling (1000 prompts,
// qwen3 counts) on a generated file of PERFLAB_BENCH_SHAREGPT_MB
// megabytes (default 64; the real file is about 650).
func BenchmarkShareGPTStream(b *testing.B) {
	tk := installed(b, "qwen3")
	path := writeBigShareGPT(b, benchMB())
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	b.ReportAllocs()
	var ms runtime.MemStats
	var peak uint64
	b.ResetTimer()
	for range b.N {
		s, err := ShareGPT(context.Background(), tk, path, ShareGPTConfig{NumPrompts: 1000})
		if err != nil || len(s) != 1000 {
			b.Fatalf("%d samples, %v", len(s), err)
		}
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	b.ReportMetric(float64(peak)/(1<<20), "MB-heap-inuse")
}

// BenchmarkShareGPTScan times only the streaming pass over the file.
func BenchmarkShareGPTScan(b *testing.B) {
	path := writeBigShareGPT(b, benchMB())
	st, _ := os.Stat(path)
	b.SetBytes(st.Size())
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := scanShareGPT(context.Background(), f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkRandom1024 builds 100 random prompts of 1024 tokens with qwen3.
func BenchmarkRandom1024(b *testing.B) {
	tk := installed(b, "qwen3")
	for range b.N {
		if _, err := Random(tk, RandomConfig{NumPrompts: 100, InputLen: 1024, OutputLen: 128, Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
