package tokenizer

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// benchText joins the corpus texts whose names start with one of the
// prefixes, repeated to about 200 KB.
func benchText(b *testing.B, prefixes ...string) string {
	data, err := os.ReadFile(filepath.Join("testdata", "corpus.json"))
	if err != nil {
		b.Fatal(err)
	}
	var corpus []corpusEntry
	if err := json.Unmarshal(data, &corpus); err != nil {
		b.Fatal(err)
	}
	var parts []string
	for _, c := range corpus {
		for _, p := range prefixes {
			if strings.HasPrefix(c.Name, p) {
				parts = append(parts, c.Text)
			}
		}
	}
	one := strings.Join(parts, "\n")
	return strings.Repeat(one+"\n", 200_000/len(one)+1)
}

// benchEncode reports tokens per second. cold empties the word cache
// before every run, so every word goes through BPE; warm keeps it, as in
// a long benchmark run where words repeat.
func benchEncode(b *testing.B, fam string, cold bool, prefixes ...string) {
	tk := family(b, fam)
	text := benchText(b, prefixes...)
	n, err := tk.Count(text)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for range b.N {
		if cold {
			tk.mu.Lock()
			clear(tk.cache)
			tk.mu.Unlock()
		}
		if _, err := tk.Encode(text); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}

var (
	english = []string{"en-", "long-english", "code-"}
	cjk     = []string{"zh", "ja", "ko", "long-zh"}
)

func BenchmarkEncodeEnglishQwen3Warm(b *testing.B)  { benchEncode(b, "qwen3", false, english...) }
func BenchmarkEncodeEnglishQwen3Cold(b *testing.B)  { benchEncode(b, "qwen3", true, english...) }
func BenchmarkEncodeCJKQwen3Warm(b *testing.B)      { benchEncode(b, "qwen3", false, cjk...) }
func BenchmarkEncodeCJKQwen3Cold(b *testing.B)      { benchEncode(b, "qwen3", true, cjk...) }
func BenchmarkEncodeEnglishLlama3Warm(b *testing.B) { benchEncode(b, "llama3", false, english...) }
func BenchmarkEncodeEnglishGPT4oWarm(b *testing.B)  { benchEncode(b, "gpt4o", false, english...) }
func BenchmarkEncodeEnglishLlama2Warm(b *testing.B) { benchEncode(b, "llama2", false, english...) }

// BenchmarkLoadQwen3 reports the time to load the 11 MB Qwen3
// tokenizer.json and the heap it keeps.
func BenchmarkLoadQwen3(b *testing.B) {
	dir := filepath.Join(repoRoot(b), ".cache", "tokenizers", "qwen3")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("SKIP: qwen3 tokenizer not installed (%v)", err)
	}
	var keep *Tokenizer
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range b.N {
		tk, err := Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		keep = tk
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MB-heap-kept")
	runtime.KeepAlive(keep)
}

// BenchmarkEncodeRandomIDsQwen3Cold encodes the text of 50,000 random
// vocabulary ids (what the random dataset sends): few words repeat, so
// this is the uncached BPE speed.
func BenchmarkEncodeRandomIDsQwen3Cold(b *testing.B) {
	tk := family(b, "qwen3")
	rng := rand.New(rand.NewPCG(1, 1))
	ids := make([]int, 50_000)
	for i := range ids {
		ids[i] = rng.IntN(tk.VocabSize())
	}
	text, err := tk.Decode(ids)
	if err != nil {
		b.Fatal(err)
	}
	n, _ := tk.Count(text)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for range b.N {
		tk.mu.Lock()
		clear(tk.cache)
		tk.mu.Unlock()
		if _, err := tk.Encode(text); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}
