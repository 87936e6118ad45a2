package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/perflab/perflab/collect/redact"
)

// Config launches one engine process.
type Config struct {
	// Name labels errors (the experiment id or the engine name).
	Name string
	// Argv is the program and its arguments; Env the variables set on top
	// of the collector's own environment.
	Argv []string
	Env  map[string]string
	// Dir is the working directory (empty: the collector's).
	Dir string
	// LogPath receives the engine's stdout and stderr, appended, secrets
	// redacted. Required.
	LogPath string
	// Redactor hides secrets in the log (nil: patterns only).
	Redactor *redact.Redactor
	// Display is the command line the log's header shows (default: Argv
	// quoted), e.g. "perflab mock …" for a binary at a temporary path.
	Display string
}

// Process is a running engine in its own process group.
type Process struct {
	name string
	cmd  *exec.Cmd
	log  *os.File
	lw   io.WriteCloser
	path string

	done    chan struct{}
	waitErr error

	stopOnce sync.Once
	stopErr  error
}

// Start launches the engine. Its process group is its own, so a Ctrl-C
// at the terminal reaches the collector only, which then stops the engine
// in order (Stop).
func Start(cfg Config) (*Process, error) {
	if len(cfg.Argv) == 0 {
		return nil, fmt.Errorf("%s: start: empty command", cfg.Name)
	}
	f, err := os.OpenFile(cfg.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s: start: %w", cfg.Name, err)
	}
	lw := cfg.Redactor.Writer(f)
	display := cfg.Display
	if display == "" {
		display = Quote(redact.Args(cfg.Argv))
	}
	fmt.Fprintf(lw, "=== perflab: %s: %s\n", time.Now().UTC().Format(time.RFC3339), cfg.Redactor.Command(display))
	cmd := exec.Command(cfg.Argv[0], cfg.Argv[1:]...)
	cmd.Dir = cfg.Dir
	cmd.Env = MergeEnv(os.Environ(), cfg.Env)
	cmd.Stdout = lw
	cmd.Stderr = lw
	cmd.SysProcAttr = procAttr()
	// A worker that outlives the leader keeps the log pipe open; do not
	// let it hold Wait (and so crash detection) for longer than this.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(lw, "=== perflab: start failed: %v\n", err)
		lw.Close()
		f.Close()
		return nil, fmt.Errorf("%s: start: %w", cfg.Name, err)
	}
	p := &Process{name: cfg.Name, cmd: cmd, log: f, lw: lw, path: cfg.LogPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}

// MergeEnv returns base with the variables of set replacing or adding
// entries (NAME=value form).
func MergeEnv(base []string, set map[string]string) []string {
	out := make([]string, 0, len(base)+len(set))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := set[name]; ok {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	return out
}

// Pid is the engine's process id (also its process group id).
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// LogPath is the engine's log file.
func (p *Process) LogPath() string { return p.path }

// Exited is closed when the engine process has exited.
func (p *Process) Exited() <-chan struct{} { return p.done }

// ExitError describes how the process ended; nil while it runs.
func (p *Process) ExitError() error {
	select {
	case <-p.done:
	default:
		return nil
	}
	if p.waitErr == nil {
		return fmt.Errorf("%s: exited with status 0", p.name)
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Errorf("%s: killed by signal %v", p.name, ws.Signal())
		}
		return fmt.Errorf("%s: exited with status %d", p.name, ee.ExitCode())
	}
	return fmt.Errorf("%s: %w", p.name, p.waitErr)
}

// Stop ends the engine: SIGINT to its process group, SIGTERM after half
// the grace period, SIGKILL after the other half, then waits for the
// process and the rest of its group (workers it forked) to be gone. It
// is safe to call more than once and after the engine exited by itself.
func (p *Process) Stop(grace time.Duration) error {
	p.stopOnce.Do(func() { p.stopErr = p.stop(grace) })
	return p.stopErr
}

func (p *Process) stop(grace time.Duration) error {
	if grace <= 0 {
		grace = 30 * time.Second
	}
	pgid := p.cmd.Process.Pid
	steps := []struct {
		sig  syscall.Signal
		wait time.Duration
	}{{syscall.SIGINT, grace / 2}, {syscall.SIGTERM, grace / 2}, {syscall.SIGKILL, 10 * time.Second}}
	var err error
	for _, s := range steps {
		if !groupAlive(pgid) {
			break
		}
		_ = syscall.Kill(-pgid, s.sig)
		if waitGroupGone(pgid, p.done, s.wait) {
			break
		}
		if s.sig == syscall.SIGKILL {
			err = fmt.Errorf("%s: stop: process group %d survived SIGKILL", p.name, pgid)
		}
	}
	<-p.done // the leader is reaped by the Wait goroutine
	how := "exit status 0"
	if p.waitErr != nil {
		how = p.waitErr.Error()
	}
	fmt.Fprintf(p.lw, "\n=== perflab: %s: stopped (%s)\n", time.Now().UTC().Format(time.RFC3339), how)
	p.lw.Close()
	p.log.Close()
	return err
}

// Kill sends SIGKILL to the engine's whole process group at once, for a
// user who does not want to wait for a graceful stop (a second Ctrl-C). A
// Stop in progress then returns as soon as the group is gone.
func (p *Process) Kill() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
}

// waitGroupGone waits up to d for the leader to exit and the group to
// empty.
func waitGroupGone(pgid int, leader <-chan struct{}, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		select {
		case <-leader:
			if !groupAlive(pgid) {
				return true
			}
		default:
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// LogTail returns the last lines (at most n, from the last 64 KiB) of
// the engine's log.
func (p *Process) LogTail(n int) string { return LogTail(p.path, n) }

// LogTail returns the last n lines of the file at path (read from its
// last 64 KiB), "" when it cannot be read.
func LogTail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const max = 64 << 10
	st, err := f.Stat()
	if err != nil {
		return ""
	}
	off := st.Size() - max
	if off < 0 {
		off = 0
	}
	buf := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(buf), "\n"), "\n")
	if off > 0 && len(lines) > 1 {
		lines = lines[1:] // a partial first line
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// HealthConfig says how to wait for an engine.
type HealthConfig struct {
	// BaseURL is the engine's root URL.
	BaseURL string
	// Routes must all answer 200 (Adapter.Health).
	Routes []string
	// Timeout bounds the wait (zero: 10 minutes, enough for a large model
	// to load and compile its CUDA graphs).
	Timeout time.Duration
	// Poll is the longest period between tries (zero: 1 s); the first
	// tries come faster (from 50 ms, doubling), so a quick engine is not
	// kept waiting.
	Poll time.Duration
	// Client makes the requests (nil: a client with a 5 s timeout).
	Client *http.Client
	// Progress, when set, is told every ProgressEvery (zero: 10 s) how
	// long the wait has lasted, the route it waits for and the last
	// answer, so that a slow start (or a wrong port) is visible while
	// it lasts, not only at the timeout.
	Progress      func(waited time.Duration, route, last string)
	ProgressEvery time.Duration
}

// ErrNeverHealthy means the engine did not answer its health routes in
// time; ErrExited that it exited before it did.
var (
	ErrNeverHealthy = errors.New("not healthy before the deadline")
	ErrExited       = errors.New("engine exited")
)

// WaitHealthy polls the health routes until each answers 200, the engine
// exits (p may be nil for an external endpoint), the timeout passes or
// ctx ends.
func WaitHealthy(ctx context.Context, p *Process, hc HealthConfig) error {
	if hc.Timeout <= 0 {
		hc.Timeout = 10 * time.Minute
	}
	if hc.Poll <= 0 {
		hc.Poll = time.Second
	}
	wait := min(50*time.Millisecond, hc.Poll)
	client := hc.Client
	if client == nil {
		client = &http.Client{Timeout: 5 * time.Second}
	}
	var exited <-chan struct{}
	if p != nil {
		exited = p.Exited()
	}
	deadline := time.NewTimer(hc.Timeout)
	defer deadline.Stop()
	if hc.ProgressEvery <= 0 {
		hc.ProgressEvery = 10 * time.Second
	}
	var report <-chan time.Time
	if hc.Progress != nil {
		t := time.NewTicker(hc.ProgressEvery)
		defer t.Stop()
		report = t.C
	}
	start := time.Now()
	next := 0 // routes before next have answered 200
	last := "no answer yet"
	for {
		for next < len(hc.Routes) {
			status, err := get(ctx, client, hc.BaseURL+hc.Routes[next])
			if err != nil {
				last = err.Error()
				break
			}
			if status != http.StatusOK {
				last = fmt.Sprintf("GET %s: HTTP %d", hc.Routes[next], status)
				break
			}
			next++
		}
		if next == len(hc.Routes) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-exited:
			return fmt.Errorf("%w before becoming healthy: %v", ErrExited, p.ExitError())
		case <-deadline.C:
			return fmt.Errorf("%w (%v; last: %s)", ErrNeverHealthy, hc.Timeout, last)
		case <-report:
			hc.Progress(time.Since(start), hc.Routes[next], last)
			continue // poll again at once
		case <-time.After(wait):
		}
		wait = min(2*wait, hc.Poll)
	}
}

func get(ctx context.Context, client *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	return resp.StatusCode, nil
}

// FreePort asks the kernel for a free TCP port on 127.0.0.1.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
