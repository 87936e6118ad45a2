// Package enginetest is a fake inference engine for tests of engine
// management: a test binary re-executes itself with FAKE_ENGINE set and
// Main serves a tiny OpenAI-compatible surface, crashes or misbehaves on
// request.
package enginetest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Env names the variable that turns a test binary into a fake engine
// (its value is the mode); PidDirEnv a directory where each fake engine
// writes <pid>.pid when it starts, so tests can check that none is left
// running (Alive).
const (
	Env       = "FAKE_ENGINE"
	PidDirEnv = "FAKE_ENGINE_PID_DIR"
)

// MaybeRun runs the fake engine and exits when Env is set; call it first
// in TestMain.
func MaybeRun() {
	mode := os.Getenv(Env)
	if mode == "" {
		return
	}
	Main(mode, os.Args[1:])
	os.Exit(0)
}

// Main serves on --port (127.0.0.1) in one of these modes:
//
//	serve      /health, /v1/models (model from --model or the first
//	           word after "serve"), /version ("fake-1.0"), and /die,
//	           which logs a CUDA error and exits with status 1
//	oom        logs an out-of-memory error and exits 1 before serving
//	unhealthy  /health answers 503 forever
//	stubborn   serve, ignoring SIGINT and SIGTERM
//	portlost   answer /health once, then log that the port is in use and
//	           exit 1: an engine that lost its port to another server,
//	           which answered the health check in its place
//	proxy      --port P --die-after N -- UPSTREAM ARGV…: start the upstream
//	           server (a real engine on its own --port) and forward P to
//	           it; after N requests to /v1/ have been answered, log a CUDA
//	           error, kill the upstream and exit 1: an engine that crashes
//	           in the middle of a benchmark, deterministically.
func Main(mode string, args []string) {
	if len(args) == 1 && args[0] == "--version" {
		fmt.Println("version: 0 (fake engine)")
		return
	}
	if mode == "proxy" {
		proxy(args)
		return
	}
	port, model := "", "fake/model"
	for i, a := range args {
		if i+1 < len(args) {
			switch a {
			case "--port":
				port = args[i+1]
			case "--model", "serve":
				model = args[i+1]
			}
		}
	}
	if dir := os.Getenv(PidDirEnv); dir != "" {
		os.WriteFile(filepath.Join(dir, strconv.Itoa(os.Getpid())+".pid"), nil, 0o644)
	}
	fmt.Printf("fake engine: mode %s model %s port %s key %s token %s\n", mode, model, port, os.Getenv("FAKE_API_KEY"), os.Getenv("HF_TOKEN"))
	// Engines echo their arguments at start-up, in their own shape (vLLM:
	// "non-default args: {'api_key': ['token-abc123'], ...}").
	fmt.Printf("non-default args: %q\n", args)
	switch mode {
	case "oom":
		fmt.Fprintln(os.Stderr, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
		os.Exit(1)
	case "stubborn":
		signal.Ignore(syscall.SIGINT, syscall.SIGTERM)
	}
	mux := http.NewServeMux()
	var lose sync.Once
	mux.HandleFunc("/health", func(w http.ResponseWriter, r *http.Request) {
		if mode == "unhealthy" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		if mode == "portlost" {
			lose.Do(func() {
				fmt.Fprintf(os.Stderr, "OSError: [Errno 98] error while attempting to bind on address ('127.0.0.1', %s): address already in use\n", port)
				go func() { time.Sleep(20 * time.Millisecond); os.Exit(1) }()
			})
		}
	})
	mux.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"data": []map[string]string{{"id": model}}})
	})
	mux.HandleFunc("/version", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]string{"version": "fake-1.0"})
	})
	mux.HandleFunc("/die", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(os.Stderr, "RuntimeError: CUDA error: an illegal memory access was encountered")
		go func() { time.Sleep(10 * time.Millisecond); os.Exit(1) }()
	})
	if err := http.ListenAndServe("127.0.0.1:"+port, mux); err != nil {
		fmt.Fprintln(os.Stderr, "fake engine:", err)
		os.Exit(1)
	}
}

// Alive returns the pids of fake engines recorded in dir that still run
// (zombies count as gone).
func Alive(dir string) []int {
	ents, _ := os.ReadDir(dir)
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".pid"))
		if err != nil {
			continue
		}
		if syscall.Kill(pid, 0) == nil && !zombie(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// Started counts the fake engines recorded in dir.
func Started(dir string) int {
	ents, _ := os.ReadDir(dir)
	return len(ents)
}

func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] == "Z"
}

func proxy(args []string) {
	var port string
	dieAfter := int64(-1)
	var upstream []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--port":
			i++
			port = args[i]
		case "--die-after":
			i++
			dieAfter, _ = strconv.ParseInt(args[i], 10, 64)
		case "--":
			upstream = args[i+1:]
			i = len(args)
		}
	}
	var upPort string
	for i, a := range upstream {
		if a == "--port" && i+1 < len(upstream) {
			upPort = upstream[i+1]
		}
	}
	if port == "" || upPort == "" || len(upstream) == 0 {
		fmt.Fprintln(os.Stderr, "fake proxy: want --port P [--die-after N] -- UPSTREAM ARGV with --port")
		os.Exit(2)
	}
	up := exec.Command(upstream[0], upstream[1:]...)
	up.Stdout, up.Stderr = os.Stdout, os.Stderr
	if err := up.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "fake proxy:", err)
		os.Exit(1)
	}
	go func() { // the upstream dying on its own ends the proxy too
		err := up.Wait()
		fmt.Fprintln(os.Stderr, "fake proxy: upstream exited:", err)
		os.Exit(1)
	}()
	target, _ := url.Parse("http://127.0.0.1:" + upPort)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1 // stream SSE events as they come
	var done atomic.Int64
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rp.ServeHTTP(w, r)
		if strings.HasPrefix(r.URL.Path, "/v1/") && r.Method == http.MethodPost {
			if n := done.Add(1); dieAfter >= 0 && n >= dieAfter {
				fmt.Fprintf(os.Stderr, "RuntimeError: CUDA error: an illegal memory access was encountered (simulated after %d requests)\n", n)
				up.Process.Kill()
				os.Exit(1)
			}
		}
	})
	if err := http.ListenAndServe("127.0.0.1:"+port, h); err != nil {
		fmt.Fprintln(os.Stderr, "fake proxy:", err)
		os.Exit(1)
	}
}
