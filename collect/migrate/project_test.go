package migrate

import (
	"errors"
	"strings"
	"testing"
)

// TestGuardPage: a panic while migrating a page is that page's error,
// naming the page, so Plan reports it as not migrated and goes on.
func TestGuardPage(t *testing.T) {
	err := guardPage("docs/lab.md", func() error {
		var m map[string]int
		m["x"]++ // a nil map write: a panic, as a bug in a page reader would raise
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "docs/lab.md") || !strings.Contains(err.Error(), "assignment to entry in nil map") {
		t.Fatalf("guardPage: %v, want the page named with the panic", err)
	}
	want := errors.New("plain")
	if err := guardPage("docs/lab.md", func() error { return want }); err != want {
		t.Fatalf("guardPage passed %v, want the migration's own error", err)
	}
}
