package output

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// TestSwapNeverWithoutOut: while builds swap their site in, out is
// always there (a build killed between two renames left none, the old
// site aside: the reader of out, a web server, saw nothing). A reader
// stats out in a loop through many swaps; each swap's old site is out's
// old directory, and out is the new one.
func TestSwapNeverWithoutOut(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "site")
	if err := os.MkdirAll(filepath.Join(out, "0"), 0o755); err != nil {
		t.Fatal(err)
	}
	var stop, missing atomic.Int64
	done := make(chan bool)
	go func() {
		for stop.Load() == 0 {
			if _, err := os.Lstat(out); err != nil {
				missing.Add(1)
			}
		}
		close(done)
	}()
	for i := 1; i <= 1000 && missing.Load() == 0; i++ {
		tmp, err := MakeBuildDir(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(tmp, "x"), 0o755); err != nil {
			t.Fatal(err)
		}
		old, err := SwapAside(tmp, out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(out, "x")); err != nil {
			t.Fatalf("swap %d: out is not the new site: %v", i, err)
		}
		if err := os.Remove(filepath.Join(old, "x")); err != nil && i > 1 {
			t.Fatalf("swap %d: %s is not the old site: %v", i, old, err)
		}
		if err := RemoveOld(old); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(1)
	<-done
	if n := missing.Load(); n > 0 {
		t.Errorf("out was missing %d times during the swaps", n)
	}
}
