package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startMockProcess runs `perflab mock` from bin as its own process (so
// that this process's CPU time is the client's alone) and returns its URL.
func startMockProcess(b *testing.B, args ...string) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "perflab")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, append([]string{"mock", "--host", "127.0.0.1", "--port", "0"}, args...)...)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(pipe).ReadString('\n')
	if err != nil {
		b.Fatalf("mock: %v", err)
	}
	go func() { _, _ = io.Copy(io.Discard, pipe) }()
	return strings.TrimPrefix(strings.TrimSpace(line), "listening on ")
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// BenchmarkSweepPointOverhead measures what a sweep point costs the
// client beyond the benchmark itself: an 8-point concurrency sweep
// (1..8, 16 requests of 16 → 8 tokens each) against a zero-latency mock in
// another process. Reported per point: wall-ms (the whole point),
// bench-ms (the run's measured duration), overhead-ms (the difference:
// client setup, warm connections, summary, steady state, text and files),
// cpu-ms (this process's CPU) and run-cpu-ms (the CPU the run itself
// recorded, Client.CPUPercent × duration); cpu-overhead-ms is the
// difference.
func BenchmarkSweepPointOverhead(b *testing.B) {
	url := startMockProcess(b, "--ttft", "0s", "--itl", "0s")
	const points = 8
	var list []string
	for c := 1; c <= points; c++ {
		list = append(list, strconv.Itoa(c))
	}
	for _, mode := range []struct {
		name string
		args func(dir string) []string
	}{
		{"save-result", func(dir string) []string { return []string{"--save-result", "--result-dir", dir} }},
		{"output-json", func(dir string) []string { return []string{"--output-json", filepath.Join(dir, "r.json")} }},
	} {
		b.Run(mode.name, func(b *testing.B) {
			var wall, cpu, bench, runCPU float64
			for b.Loop() {
				dir, err := os.MkdirTemp(b.TempDir(), "sweep")
				if err != nil {
					b.Fatal(err)
				}
				args := append([]string{"bench", "--base-url", url, "--model", "mock", "--random-input-len", "16",
					"--random-output-len", "8", "--num-prompts", "16", "--sweep-max-concurrency", strings.Join(list, ",")}, mode.args(dir)...)
				c0, t0 := cpuSeconds(), time.Now()
				if err := run(context.Background(), args, io.Discard, io.Discard); err != nil {
					b.Fatal(err)
				}
				wall += time.Since(t0).Seconds()
				cpu += cpuSeconds() - c0
				b.StopTimer()
				res := readResults(b, dir)
				if len(res) != points {
					b.Fatalf("%d results, want %d", len(res), points)
				}
				for _, r := range res {
					bench += r.Summary.DurationS
					runCPU += r.Client.CPUPercent / 100 * r.Summary.DurationS
				}
				b.StartTimer()
			}
			n := float64(b.N * points)
			b.ReportMetric(wall/n*1e3, "wall-ms/point")
			b.ReportMetric(bench/n*1e3, "bench-ms/point")
			b.ReportMetric((wall-bench)/n*1e3, "overhead-ms/point")
			b.ReportMetric(cpu/n*1e3, "cpu-ms/point")
			b.ReportMetric(runCPU/n*1e3, "run-cpu-ms/point")
			b.ReportMetric((cpu-runCPU)/n*1e3, "cpu-overhead-ms/point")
		})
	}
}
