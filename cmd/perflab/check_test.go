package main

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckCommand runs perflab check on a seed page (findings, exit 1),
// on the bundled content (clean, exit 0) and with a bad flag (usage).
func TestCheckCommand(t *testing.T) {
	var out, errb bytes.Buffer
	seed := "../../collect/check/testdata/seed002.md"
	err := run(context.Background(), []string{"check", seed}, &out, &errb)
	if err == nil || errors.Is(err, errUsage) {
		t.Fatalf("check %s: error %v, want findings (exit 1)", seed, err)
	}
	if !strings.Contains(err.Error(), "2 finding(s) in 1 of 1 page(s)") {
		t.Errorf("error %q, want the count of findings", err)
	}
	want := seed + ":22: +10.7% is not the change from 2771.81 to 4068.16, which is +46.8%\n"
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("stdout:\n%s\nwant it to start with:\n%s", out.String(), want)
	}

	out.Reset()
	errb.Reset()
	err = run(context.Background(), []string{"check", "--results", "../../results", "../../content"}, &out, &errb)
	if err != nil {
		t.Fatalf("check of the bundled content: %v\n%s", err, out.String())
	}
	if out.Len() != 0 || !strings.Contains(errb.String(), "no findings") {
		t.Errorf("stdout %q, stderr %q; want nothing and a clean summary", out.String(), errb.String())
	}

	err = run(context.Background(), []string{"check", "--nope"}, &out, &errb)
	if !errors.Is(err, errUsage) {
		t.Errorf("bad flag: %v, want a usage error", err)
	}
	err = run(context.Background(), []string{"check", filepath.Join(t.TempDir(), "missing.md")}, &out, &errb)
	if err == nil || errors.Is(err, errUsage) || !strings.Contains(err.Error(), "missing.md") {
		t.Errorf("missing file: %v, want an error naming it", err)
	}
}
