package corpus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Models and GPUs of a lab: one page per pair (4 × 7 = 28 pages).
var (
	Models = []string{"Qwen3-32B", "Qwen3-235B-A22B", "Qwen3.5-35B-A3B", "Llama-3.3-70B"}
	GPUs   = []string{"H100", "H200", "A100", "B200", "L40S", "MI300X", "RTX4090"}
)

// PagesPerLab is how many pages one copy of the lab has.
var PagesPerLab = len(Models) * len(GPUs)

// seedName finds the model and GPU a seed page is about in its title
// ("# Optimizing Qwen3-32B Throughput on NVIDIA H100 GPUs").
var seedName = regexp.MustCompile(`^# Optimizing (\S+) \w+(?: on NVIDIA (\w+))?`)

var number = regexp.MustCompile(`\b\d+\.\d\d\b`)

// Write writes copies labs of PagesPerLab pages each into dir/content
// (lab-00/qwen3-32b/h100.md, …) from the seeds' Markdown, and returns the
// number of pages written. Output depends on the seeds and copies only.
func Write(dir string, copies int, seeds [][]byte) (int, error) {
	var kept [][]byte
	for _, s := range seeds {
		// A seed whose line breaks were lost is not Markdown any more.
		if strings.Count(string(s), "\n") >= 100 {
			kept = append(kept, s)
		}
	}
	seeds = kept
	if len(seeds) == 0 {
		return 0, errors.New("corpus: no seed page with its line breaks")
	}
	n := 0
	for c := 0; c < copies; c++ {
		for mi, model := range Models {
			for gi, gpu := range GPUs {
				k := mi*len(GPUs) + gi
				page := Page(seeds[k%len(seeds)], model, gpu, c*PagesPerLab+k)
				p := filepath.Join(dir, "content", fmt.Sprintf("lab-%02d", c), strings.ToLower(strings.ReplaceAll(model, ".", "")), strings.ToLower(gpu)+".md")
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					return n, fmt.Errorf("corpus: %w", err)
				}
				if err := os.WriteFile(p, page, 0o644); err != nil {
					return n, fmt.Errorf("corpus: %w", err)
				}
				n++
			}
		}
	}
	return n, nil
}

// Page turns a seed page into one about model on gpu: the seed's model
// and GPU names are replaced and every two-decimal number is shifted by a
// amount derived from i, so no two pages are the same text.
func Page(seed []byte, model, gpu string, i int) []byte {
	s := string(seed)
	first, _, _ := strings.Cut(s, "\n")
	if m := seedName.FindStringSubmatch(first); m != nil {
		s = strings.ReplaceAll(s, m[1], model)
		s = strings.ReplaceAll(s, strings.ToLower(m[1]), strings.ToLower(model))
		if m[2] != "" {
			s = strings.ReplaceAll(s, m[2], gpu)
			s = strings.ReplaceAll(s, strings.ToLower(m[2]), strings.ToLower(gpu))
		}
	}
	s = number.ReplaceAllStringFunc(s, func(v string) string {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return v
		}
		return strconv.FormatFloat(f*(1+float64(i%97)/1000), 'f', 2, 64)
	})
	return []byte(s)
}
