package benchrun

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestHFCache: the revision refs/main names wins over a newer snapshot;
// without it the newest snapshot holding a tokenizer.json; a model not
// there comes back with the folders looked in.
func TestHFCache(t *testing.T) {
	hub := t.TempDir()
	t.Setenv("HF_HUB_CACHE", hub)
	t.Setenv("HF_HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	repo := filepath.Join(hub, "models--org--m")
	snap := func(rev string, age time.Duration) string {
		dir := filepath.Join(repo, "snapshots", rev)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "tokenizer.json")
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
		ts := time.Now().Add(-age)
		if err := os.Chtimes(p, ts, ts); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	old, newer := snap("aaa", 2*time.Hour), snap("bbb", time.Hour)
	_ = os.MkdirAll(filepath.Join(repo, "snapshots", "ccc"), 0o755) // no tokenizer.json
	if dir, _ := HFCache("org/m"); dir != newer {
		t.Errorf("no refs/main: %q, want the newest %q", dir, newer)
	}
	if err := os.MkdirAll(filepath.Join(repo, "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "refs", "main"), []byte("aaa\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if dir, _ := HFCache("org/m"); dir != old {
		t.Errorf("refs/main aaa: %q, want %q", dir, old)
	}
	if dir, tried := HFCache("org/absent"); dir != "" || len(tried) == 0 || tried[0] != filepath.Join(hub, "models--org--absent") {
		t.Errorf("absent: %q, tried %q", dir, tried)
	}
}
