package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startMock runs `perflab mock ARGS` in-process and returns its URL once
// it printed "listening on", and a stop function returning run's error.
func startMock(t *testing.T, args ...string) (string, *bytes.Buffer, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	errc := make(chan error, 1)
	go func() {
		errc <- run(ctx, append([]string{"mock"}, args...), pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("no listening line: %v (stderr %q, run: %v)", err, stderr.String(), <-errc)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		cancel()
		t.Fatalf("stdout %q", line)
	}
	go io.Copy(io.Discard, pr)
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-errc:
			return err
		case <-time.After(5 * time.Second):
			t.Fatal("mock did not stop on cancel")
			return nil
		}
	}
	t.Cleanup(func() { stop() })
	return url, &stderr, stop
}

func TestMockCommand(t *testing.T) {
	url, stderr, stop := startMock(t, "--port", "0", "--served-model-name", "a,b", "--ttft", "1ms", "--itl", "1ms")
	resp, err := http.Post(url+"/v1/completions", "application/json",
		strings.NewReader(`{"model":"b","prompt":"hi","max_tokens":4,"stream":true,"stream_options":{"include_usage":true},"ignore_eos":true}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if n := strings.Count(string(body), "data: "); n != 6 { // 4 tokens, usage, [DONE]
		t.Errorf("%d events:\n%s", n, body)
	}
	resp, err = http.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"model":"mock","prompt":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("model outside --served-model-name: HTTP %d", resp.StatusCode)
	}
	if err := stop(); err != nil {
		t.Errorf("run after cancel: %v", err)
	}
	if !strings.Contains(stderr.String(), "fixed timing: TTFT 1ms, ITL 1ms") {
		t.Errorf("stderr %q", stderr.String())
	}
}

func TestMockCommandBatching(t *testing.T) {
	url, stderr, stop := startMock(t, "--port", "0", "--preset", "sglang", "--max-batch", "8", "--decode-step", "1ms")
	resp, err := http.Get(url + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	var models struct{ Data []struct{ ID string } }
	json.NewDecoder(resp.Body).Decode(&models)
	resp.Body.Close()
	if len(models.Data) != 1 || models.Data[0].ID != "mock" {
		t.Errorf("models %+v", models)
	}
	resp, err = http.Post(url+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"messages":[{"role":"user","content":"hi"}],"max_tokens":3,"ignore_eos":true}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("chat: HTTP %d", resp.StatusCode)
	}
	stop()
	// sglang's prefill rate, the overridden step and batch.
	if want := "prefill 33000 tok/s, step 1ms + 55µs/seq + 18µs/1k ctx tokens, max batch 8, max batched tokens 8192, KV cache 420000 tokens"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q lacks %q", stderr.String(), want)
	}
}

func TestMockCommandUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--preset", "tgi"}, "unknown preset"},
		// Fixed and batching timing do not mix.
		{[]string{"--ttft", "5ms", "--max-batch", "4"}, "do not mix"},
		{[]string{"--error-rate", "2"}, "ErrorRate"},
		{[]string{"--bogus"}, "bogus"},
		{[]string{"extra"}, "unexpected argument"},
		// vLLM's rule: the step budget covers the batch.
		{[]string{"--max-batch", "512", "--max-num-batched-tokens", "256"}, "MaxNumBatchedTokens"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		err := run(context.Background(), append([]string{"mock", "--port", "0"}, c.args...), &out, &errb)
		if code := exitCode(err, &errb); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errb.String(), c.want)
		}
	}
}

// TestMockBinarySignal runs the real binary: it prints its address, serves,
// and exits 0 on SIGTERM while a stream is in flight.
func TestMockBinarySignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "perflab")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "mock", "--port", "0", "--itl", "10ms")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening on ")
	if err != nil || !ok {
		t.Fatalf("stdout %q, %v; stderr %s", line, err, stderr.String())
	}
	resp, err := http.Post(url+"/v1/completions", "application/json",
		strings.NewReader(`{"prompt":"x","max_tokens":10000,"stream":true,"ignore_eos":true}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v; stderr %s", err, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit 10 s after SIGTERM")
	}
	// The in-flight stream ended, without [DONE].
	rest, _ := io.ReadAll(resp.Body)
	if strings.Contains(string(rest), "[DONE]") {
		t.Error("stream finished normally after SIGTERM")
	}
}

func TestMockCommandCrash(t *testing.T) {
	url, _, stop := startMock(t, "--port", "0", "--crash-after", "1")
	for range 2 {
		if resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(`{"prompt":"x","max_tokens":1}`)); err == nil {
			resp.Body.Close()
		}
	}
	err := stop()
	var errb bytes.Buffer
	if code := exitCode(err, &errb); code != 1 || !strings.Contains(errb.String(), "simulated engine crash after 1 requests") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
