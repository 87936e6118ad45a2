package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestUnknownCommandIsUsageError(t *testing.T) {
	var out, errb bytes.Buffer
	err := run(context.Background(), []string{"frobnicate"}, &out, &errb)
	if code := exitCode(err, &errb); code != 2 {
		t.Fatalf("exit = %d, want 2 (err %v)", code, err)
	}
	if !strings.Contains(errb.String(), "unknown command") {
		t.Fatalf("stderr = %q", errb.String())
	}
}

func TestHelpListsCommands(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"help"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"bench", "build", "collect", "mock"} {
		if !strings.Contains(out.String(), c) {
			t.Errorf("help lacks %q", c)
		}
	}
}
