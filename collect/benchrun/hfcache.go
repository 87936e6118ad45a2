package benchrun

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/perflab/perflab/collect/dataset/tokenizer"
)

// hfHubs are the hub caches huggingface_hub uses, in its order:
// $HF_HUB_CACHE, $HF_HOME/hub, $XDG_CACHE_HOME/huggingface/hub (its
// HF_HOME default when XDG_CACHE_HOME is set), ~/.cache/huggingface/hub.
func hfHubs() []string {
	var dirs []string
	if d := os.Getenv("HF_HUB_CACHE"); d != "" {
		dirs = append(dirs, d)
	}
	if d := os.Getenv("HF_HOME"); d != "" {
		dirs = append(dirs, filepath.Join(d, "hub"))
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		dirs = append(dirs, filepath.Join(d, "huggingface", "hub"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".cache", "huggingface", "hub"))
	}
	return slices.Compact(dirs)
}

// HFCache finds the tokenizer.json of model id ("org/name") in the
// Hugging Face hub caches, where vLLM, SGLang and TensorRT-LLM keep the
// models they serve (models--org--name/snapshots/<rev>/): the revision
// refs/main names, else the snapshot whose tokenizer.json is newest. It
// returns the snapshot folder, or "" and the folders it looked in. Both
// perflab bench (--tokenizer org/name) and collect (a campaign without
// bench.tokenizer) look here; neither downloads anything.
func HFCache(id string) (string, []string) {
	var tried []string
	for _, hub := range hfHubs() {
		repo := filepath.Join(hub, "models--"+strings.ReplaceAll(id, "/", "--"))
		tried = append(tried, repo)
		if ref, err := os.ReadFile(filepath.Join(repo, "refs", "main")); err == nil {
			dir := filepath.Join(repo, "snapshots", strings.TrimSpace(string(ref)))
			if _, err := os.Stat(filepath.Join(dir, tokenizer.TokenizerFile)); err == nil {
				return dir, nil
			}
		}
		snaps, _ := filepath.Glob(filepath.Join(repo, "snapshots", "*", tokenizer.TokenizerFile))
		best, bestTime := "", time.Time{}
		for _, p := range snaps {
			if st, err := os.Stat(p); err == nil && (best == "" || st.ModTime().After(bestTime)) {
				best, bestTime = filepath.Dir(p), st.ModTime()
			}
		}
		if best != "" {
			return best, nil
		}
	}
	return "", tried
}
