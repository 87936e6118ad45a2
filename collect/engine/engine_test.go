package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/redact"
)

// The test binary doubles as a fake engine: with FAKE_ENGINE set it runs
// fakeEngine instead of the tests (see fakeEngine for the modes).
func TestMain(m *testing.M) {
	if mode := os.Getenv("FAKE_ENGINE"); mode != "" {
		fakeEngine(mode)
		return
	}
	os.Exit(m.Run())
}

// fakeEngine modes:
//
//	serve          answer /health, /v1/models, /version on --port
//	stubborn       serve, ignoring SIGINT and SIGTERM (needs SIGKILL)
//	fork           serve, with a child process in the same group
//	oom            print an out-of-memory error and exit 1
//	unhealthy      answer /health with 503 forever
func fakeEngine(mode string) {
	if mode == "collector" {
		// A stand-in collector: start a fake engine, report its pid, wait
		// to be killed.
		log := os.Getenv("FAKE_LOG")
		port, _ := FreePort()
		p, err := Start(Config{Name: "child", Argv: []string{os.Args[0], "--port", strconv.Itoa(port)},
			Env: map[string]string{"FAKE_ENGINE": "serve"}, LogPath: log})
		if err != nil {
			panic(err)
		}
		// Healthy first: the engine has printed its banner (a write to a
		// broken pipe would kill it, and prove nothing).
		if err := WaitHealthy(context.Background(), p, HealthConfig{BaseURL: "http://127.0.0.1:" + strconv.Itoa(port), Routes: []string{"/health"}}); err != nil {
			panic(err)
		}
		fmt.Println(p.Pid())
		time.Sleep(time.Hour)
		return
	}
	port := flagArg("--port")
	fmt.Println("fake engine starting, mode", mode, "key", os.Getenv("FAKE_API_KEY"))
	switch mode {
	case "oom":
		fmt.Fprintln(os.Stderr, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
		os.Exit(1)
	case "stubborn":
		signal.Ignore(syscall.SIGINT, syscall.SIGTERM)
	case "fork":
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), "FAKE_ENGINE=sleep")
		if err := child.Start(); err != nil {
			panic(err)
		}
		os.WriteFile(os.Getenv("FAKE_CHILD_PID_FILE"), []byte(strconv.Itoa(child.Process.Pid)), 0o644)
	case "sleep":
		time.Sleep(time.Hour)
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) {
		if mode == "unhealthy" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	})
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"data": []map[string]string{{"id": "fake/model-FP8"}}})
	})
	mux.HandleFunc("/version", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"version": "0.11.0"})
	})
	if err := http.ListenAndServe("127.0.0.1:"+port, mux); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func flagArg(name string) string {
	v, _ := FlagValue(os.Args[1:], name)
	return v
}

// startFake launches the test binary as a fake engine.
func startFake(t *testing.T, mode string, extraEnv map[string]string) (*Process, string) {
	t.Helper()
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"FAKE_ENGINE": mode}
	for k, v := range extraEnv {
		env[k] = v
	}
	log := filepath.Join(t.TempDir(), "engine.log")
	p, err := Start(Config{
		Name: "fake", Argv: []string{exe, "--port", strconv.Itoa(port)}, Env: env, LogPath: log,
		Redactor: redact.New(redact.SecretValues(env)...),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(2 * time.Second) })
	return p, "http://127.0.0.1:" + strconv.Itoa(port)
}

func TestLifecycle(t *testing.T) {
	p, base := startFake(t, "serve", map[string]string{"FAKE_API_KEY": "k-123456789"})
	ctx := context.Background()
	if err := WaitHealthy(ctx, p, HealthConfig{BaseURL: base, Routes: []string{"/health", "/v1/models"}, Timeout: 20 * time.Second, Poll: 20 * time.Millisecond}); err != nil {
		t.Fatalf("%v\n%s", err, p.LogTail(20))
	}
	a, _ := Lookup("vllm")
	v, err := a.Version(ctx, http.DefaultClient, base, nil, nil)
	if err != nil || v != "0.11.0" {
		t.Fatalf("version = %q, %v", v, err)
	}
	m, err := ServedModel(ctx, http.DefaultClient, base)
	if err != nil || m != "fake/model-FP8" {
		t.Fatalf("served model = %q, %v", m, err)
	}
	if err := p.Stop(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if groupAlive(p.Pid()) {
		t.Fatal("process group alive after Stop")
	}
	log, _ := os.ReadFile(p.LogPath())
	if !strings.Contains(string(log), "fake engine starting") {
		t.Fatalf("log lacks the engine's output:\n%s", log)
	}
	if strings.Contains(string(log), "k-123456789") {
		t.Fatalf("log holds the secret:\n%s", log)
	}
}

func TestStopKillsStubbornEngine(t *testing.T) {
	p, base := startFake(t, "stubborn", nil)
	if err := WaitHealthy(context.Background(), p, HealthConfig{BaseURL: base, Routes: []string{"/health"}, Timeout: 20 * time.Second, Poll: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := p.Stop(400 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if groupAlive(p.Pid()) {
		t.Fatal("alive after Stop")
	}
	if !strings.Contains(p.ExitError().Error(), "killed") {
		t.Fatalf("exit = %v, want killed by SIGKILL", p.ExitError())
	}
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Fatalf("stopped after %v: the grace period was not given", d)
	}
}

func TestStopReachesForkedWorkers(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	p, base := startFake(t, "fork", map[string]string{"FAKE_CHILD_PID_FILE": pidFile})
	if err := WaitHealthy(context.Background(), p, HealthConfig{BaseURL: base, Routes: []string{"/health"}, Timeout: 20 * time.Second, Poll: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(string(b))
	if err := syscall.Kill(child, 0); err != nil {
		t.Fatalf("child %d not running: %v", child, err)
	}
	if err := p.Stop(2 * time.Second); err != nil {
		t.Fatal(err)
	}
	// The worker is not our child: once dead it may linger as a zombie of
	// init for a moment, but it must not be running.
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(child, 0) == nil && !isZombie(child) {
		if time.Now().After(deadline) {
			t.Fatalf("worker %d survived Stop", child)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func isZombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

func TestWaitHealthyFailures(t *testing.T) {
	t.Run("exits with OOM", func(t *testing.T) {
		p, base := startFake(t, "oom", nil)
		err := WaitHealthy(context.Background(), p, HealthConfig{BaseURL: base, Routes: []string{"/health"}, Timeout: 20 * time.Second, Poll: 20 * time.Millisecond})
		if !errors.Is(err, ErrExited) || !strings.Contains(err.Error(), "status 1") {
			t.Fatalf("err = %v", err)
		}
		p.Stop(time.Second)
		if tail := p.LogTail(5); !strings.Contains(tail, "CUDA out of memory") {
			t.Fatalf("tail = %q", tail)
		}
	})
	t.Run("never healthy", func(t *testing.T) {
		p, base := startFake(t, "unhealthy", nil)
		err := WaitHealthy(context.Background(), p, HealthConfig{BaseURL: base, Routes: []string{"/health"}, Timeout: 500 * time.Millisecond, Poll: 20 * time.Millisecond})
		if !errors.Is(err, ErrNeverHealthy) || !strings.Contains(err.Error(), "HTTP 503") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("progress while waiting", func(t *testing.T) {
		// A slow start is visible while it lasts: what is waited for and
		// the last answer, not ten silent minutes.
		p, base := startFake(t, "unhealthy", nil)
		var mu sync.Mutex
		var seen []string
		err := WaitHealthy(context.Background(), p, HealthConfig{BaseURL: base, Routes: []string{"/health"}, Timeout: 500 * time.Millisecond,
			Poll: 20 * time.Millisecond, ProgressEvery: 50 * time.Millisecond, Progress: func(waited time.Duration, route, last string) {
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, fmt.Sprintf("%s %s", route, last))
			}})
		if !errors.Is(err, ErrNeverHealthy) {
			t.Fatalf("err = %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if len(seen) == 0 || seen[0] != "/health GET /health: HTTP 503" {
			t.Fatalf("progress reports: %q", seen)
		}
	})
	t.Run("interrupted", func(t *testing.T) {
		p, base := startFake(t, "unhealthy", nil)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		err := WaitHealthy(ctx, p, HealthConfig{BaseURL: base, Routes: []string{"/health"}, Poll: 20 * time.Millisecond})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v", err)
		}
	})
}

func TestStartMissingProgram(t *testing.T) {
	_, err := Start(Config{Name: "x", Argv: []string{"/nonexistent/vllm", "serve"}, LogPath: filepath.Join(t.TempDir(), "l")})
	if err == nil || !strings.Contains(err.Error(), "x: start") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseCommand(t *testing.T) {
	for _, tc := range []struct {
		in   string
		env  map[string]string
		argv []string
		err  string
	}{
		{in: "vllm serve Qwen/Qwen3-32B -tp 8", argv: []string{"vllm", "serve", "Qwen/Qwen3-32B", "-tp", "8"}},
		// The seeds write multi-line commands with continuations and a comment line.
		{in: "# TP8 only is not compatible\nvllm serve M \\\n  --max-model-len=32768 \\\n  --enable-prefix-caching",
			argv: []string{"vllm", "serve", "M", "--max-model-len=32768", "--enable-prefix-caching"}},
		{in: `VLLM_USE_V1=1 HF_TOKEN=x vllm serve M --speculative-config '{"method":"mtp","num_speculative_tokens":4}'`,
			env:  map[string]string{"VLLM_USE_V1": "1", "HF_TOKEN": "x"},
			argv: []string{"vllm", "serve", "M", "--speculative-config", `{"method":"mtp","num_speculative_tokens":4}`}},
		{in: `x --a "b c" --d=e\ f`, argv: []string{"x", "--a", "b c", "--d=e f"}},
		{in: "vllm serve M | tee log", err: `shell syntax "|"`},
		{in: "vllm serve $MODEL", err: `shell syntax "$"`},
		// A reference to the environment is kept for the collector to
		// expand, bare, in double quotes or in an assignment.
		{in: `HF_TOKEN=${HF_TOKEN} vllm serve M --api-key ${VLLM_API_KEY} --x "a-${B_1}"`,
			env:  map[string]string{"HF_TOKEN": "${HF_TOKEN}"},
			argv: []string{"vllm", "serve", "M", "--api-key", "${VLLM_API_KEY}", "--x", "a-${B_1}"}},
		{in: "vllm serve ${1X}", err: `shell syntax "$"`},
		{in: `vllm serve "${}"`, err: `"$" inside double quotes`},
		{in: "x 'open", err: "unterminated single quote"},
		{in: "  # only a comment\n", err: "empty"},
	} {
		c, err := ParseCommand(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseCommand(%q) err = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseCommand(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(c.Argv, tc.argv) || !reflect.DeepEqual(c.Env, tc.env) {
			t.Errorf("ParseCommand(%q) = %q %v, want %q %v", tc.in, c.Argv, c.Env, tc.argv, tc.env)
		}
		// Quote round-trips.
		back, err := ParseCommand(Quote(c.Argv))
		if err != nil || !reflect.DeepEqual(back.Argv, c.Argv) {
			t.Errorf("Quote(%q) = %q does not round-trip: %q %v", c.Argv, Quote(c.Argv), back.Argv, err)
		}
	}
}

func TestEndpoint(t *testing.T) {
	for _, tc := range []struct {
		engine string
		argv   []string
		want   string
	}{
		{"vllm", []string{"vllm", "serve", "M"}, "http://127.0.0.1:8000"},
		{"sglang", []string{"python3", "-m", "sglang.launch_server", "--model-path", "M", "--host", "0.0.0.0"}, "http://127.0.0.1:30000"},
		{"llamacpp", []string{"llama-server", "-m", "f.gguf", "--port=9001", "--host", "127.0.0.2"}, "http://127.0.0.2:9001"},
	} {
		a, _ := Lookup(tc.engine)
		got, err := a.Endpoint(tc.argv)
		if err != nil || got != tc.want {
			t.Errorf("%s %q: %q %v, want %q", tc.engine, tc.argv, got, err, tc.want)
		}
	}
	a, _ := Lookup("vllm")
	if _, err := a.Endpoint([]string{"vllm", "--port", "http"}); err == nil {
		t.Error("bad port accepted")
	}
}

func TestParseVersionOutput(t *testing.T) {
	for in, want := range map[string]string{
		"version: 11669 (Debian)\nbuilt with GCC 16.2 for x86_64-linux-gnu\n": "b11669 (Debian)",
		"\n0.11.0\n": "0.11.0",
	} {
		if got := parseVersionOutput(in); got != want {
			t.Errorf("parseVersionOutput(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEngineDiesWithTheCollector: a collector killed with SIGKILL cannot
// stop its engine; the kernel must (Pdeathsig), or the engine would hold
// the GPUs with nobody left to stop it.
func TestEngineDiesWithTheCollector(t *testing.T) {
	exe, _ := os.Executable()
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "FAKE_ENGINE=collector", "FAKE_LOG="+filepath.Join(t.TempDir(), "e.log"))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	if _, err := fmt.Fscan(out, &pid); err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("engine %d not running: %v", pid, err)
	}
	cmd.Process.Kill() // SIGKILL: no chance to stop anything
	cmd.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil && !isZombie(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(-pid, syscall.SIGKILL)
			t.Fatalf("engine %d outlived its collector", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestVersionOnlyFromTheEngineProgram: "--version" goes to the engine's
// own program, never to a launcher, whose answer ("Python 3.12", or echo's
// "--version" here) would be recorded as the engine's version.
func TestVersionOnlyFromTheEngineProgram(t *testing.T) {
	a, _ := Lookup("vllm")
	dead := "http://127.0.0.1:1" // no /version route answers
	v, _ := a.Version(context.Background(), http.DefaultClient, dead, []string{"echo", "-m", "vllm.entrypoints.openai.api_server"}, nil)
	if v != "" {
		t.Fatalf("version %q from a launcher", v)
	}
	dir := t.TempDir()
	prog := filepath.Join(dir, "vllm")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho 0.11.0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if v, err := a.Version(context.Background(), http.DefaultClient, dead, []string{prog, "serve", "M"}, nil); v != "0.11.0" {
		t.Fatalf("version %q, %v from the engine's own program", v, err)
	}
}
