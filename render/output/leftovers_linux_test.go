package output

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLockRemovesLeftovers: a build killed between MakeBuildDir and its
// swap (SIGKILL, the OOM killer) leaves a whole site in .site.build-N, or
// the old site in .site.build-N.old; the next build of that out, holding
// the lock, removes them. Other directories beside out stay: another
// out's build directory, and names MkdirTemp did not give.
func TestLockRemovesLeftovers(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "site")
	for _, d := range []string{"site", ".site.build-123/demo/rounds", ".site.build-456.old/x", ".site2.build-7", ".site.build-notes", "other"} {
		if err := os.MkdirAll(filepath.Join(parent, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(parent, ".site.build-123/demo/rounds/1.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	Lock(out)()
	for _, d := range []string{".site.build-123", ".site.build-456.old"} {
		if _, err := os.Stat(filepath.Join(parent, d)); err == nil {
			t.Errorf("%s: a killed build's directory is still there after the next build's Lock", d)
		}
	}
	for _, d := range []string{"site", ".site2.build-7", ".site.build-notes", "other"} {
		if _, err := os.Stat(filepath.Join(parent, d)); err != nil {
			t.Errorf("%s: removed, but it is no leftover of a build of %s: %v", d, out, err)
		}
	}
}
