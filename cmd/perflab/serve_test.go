package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestServeAndPublishUsage(t *testing.T) {
	cases := [][]string{
		{"serve", "--no-such-flag"},
		{"serve", "extra"},
		{"serve", "--addr", "8080"}, // no host:port
		{"publish", "--no-such-flag"},
		{"publish", "extra"},
	}
	for _, args := range cases {
		var out, errb bytes.Buffer
		err := run(context.Background(), args, &out, &errb)
		if code := exitCode(err, &errb); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%v)", args, code, err)
		}
	}
	for _, cmd := range []string{"serve", "publish"} {
		var out, errb bytes.Buffer
		if err := run(context.Background(), []string{cmd, "-h"}, &out, &errb); err != nil {
			t.Errorf("%s -h: %v", cmd, err)
		}
		if !strings.Contains(errb.String(), "usage: perflab "+cmd) {
			t.Errorf("%s -h printed %q", cmd, errb.String())
		}
	}
}

// TestServeStopsCleanlyOnInterrupt runs the real binary, reads the address
// it prints, fetches a page, sends SIGINT (Ctrl-C) and expects exit 0.
func TestServeStopsCleanlyOnInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "perflab")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	work := filepath.Join(dir, "work")
	os.MkdirAll(filepath.Join(work, "content"), 0o755)
	os.WriteFile(filepath.Join(work, "content", "index.md"), []byte("# Home\n"), 0o644)
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
	cmd.Dir = work
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, stdout)
	}()
	var url string
	select {
	case l := <-lines:
		if i := strings.Index(l, "http://"); i >= 0 {
			url = strings.Fields(l[i:])[0]
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no address printed; stderr: %s", stderr.String())
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("printed address %q", url)
	}
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control = %q", resp.Header.Get("Cache-Control"))
	}
	// An open event stream must not hold the shutdown up.
	ev, err := http.Get(url + "__perflab/events")
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Body.Close()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGINT: %v; stderr: %s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("still running 10s after SIGINT; stderr: %s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "serve: stopped") {
		t.Errorf("stderr: %s", stderr.String())
	}
}
