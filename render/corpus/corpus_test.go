package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	seed := "# Optimizing Qwen3-32B Throughput on NVIDIA H100 GPUs\n\n" + strings.Repeat("Total TPS: 1234.56 on qwen3-32b-h100\n", 120)
	broken := "# Optimizing X Throughput ## Conclusion (line breaks lost)"
	for _, copies := range []int{1, 2} {
		dir := t.TempDir()
		n, err := Write(dir, copies, [][]byte{[]byte(seed), []byte(broken)})
		if err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "content", "lab-*", "*", "*.md"))
		if n != copies*PagesPerLab || len(files) != n {
			t.Fatalf("%d copies: %d pages reported, %d written, want %d", copies, n, len(files), copies*PagesPerLab)
		}
		page, err := os.ReadFile(filepath.Join(dir, "content", "lab-00", "llama-33-70b", "b200.md"))
		if err != nil {
			t.Fatal(err)
		}
		p := string(page)
		if !strings.HasPrefix(p, "# Optimizing Llama-3.3-70B Throughput on NVIDIA B200 GPUs\n") || strings.Contains(p, "Qwen3-32B") || !strings.Contains(p, "llama-3.3-70b-b200") {
			t.Errorf("model and GPU not replaced:\n%.200s", p)
		}
		if strings.Contains(p, "line breaks lost") {
			t.Error("a seed without its line breaks was used")
		}
	}
	// Pages of one model and GPU differ between labs (numbers shifted).
	dir := t.TempDir()
	if _, err := Write(dir, 2, [][]byte{[]byte(seed)}); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(filepath.Join(dir, "content", "lab-00", "qwen3-32b", "h100.md"))
	b, _ := os.ReadFile(filepath.Join(dir, "content", "lab-01", "qwen3-32b", "h100.md"))
	if string(a) == string(b) {
		t.Error("the same page in two labs has the same text")
	}
	if _, err := Write(t.TempDir(), 1, [][]byte{[]byte(broken)}); err == nil {
		t.Error("no error with no usable seed")
	}
}
