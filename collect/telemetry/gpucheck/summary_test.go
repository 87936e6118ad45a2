package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

func put(t *testing.T, dir, name, data string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func sampled(power float64) *schema.Telemetry {
	return &schema.Telemetry{Available: true, IntervalS: 0.2, TotalEnergyJ: 41.5, Samples: []schema.GPUSample{
		{TimeS: 0, GPU: 0, UtilPct: 0, MemUsedMiB: 512, PowerW: power, SMClockMHz: 1980, MemClockMHz: 2619, TempC: 33},
		{TimeS: 0.2, GPU: 0, UtilPct: 3, MemUsedMiB: 514, PowerW: power + 2, SMClockMHz: 1980, MemClockMHz: 2619, TempC: 33},
	}}
}

const benchOut = `goos: linux
goarch: amd64
pkg: github.com/perflab/perflab/collect/bench
BenchmarkClientEfficiency/streams=1024/client=h1-16         	       3	2400000000 ns/op	         1.020 cpu-us/event	         0.9900 reads/event	         0.4100 ttft-excess-ms	        10.30 itl-p99-ms	         0.2000 server-late-p99-ms
BenchmarkClientEfficiency/streams=1024/client=floor-16      	       3	2300000000 ns/op	         0.6100 cpu-us/event	         1.000 reads/event	         0.3000 ttft-excess-ms
BenchmarkClientEfficiency/streams=4096/client=h1-16         	       3	2900000000 ns/op	         1.200 cpu-us/event	         0.8000 reads/event	         2.100 ttft-excess-ms	        12.40 itl-p99-ms	         1.900 server-late-p99-ms
BenchmarkClientEfficiency/streams=4096/client=floor-16      	       3	2800000000 ns/op	         0.7000 cpu-us/event	         0.9000 reads/event	         1.500 ttft-excess-ms
PASS
`

// recorded writes what a passing gpu-check run records.
func recorded(t *testing.T) string {
	dir := t.TempDir()
	put(t, dir, "gpu.rc", "0\n")
	put(t, dir, "gpu.txt", "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\nGPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-2)\n")
	put(t, dir, "build.rc", "0")
	info, _ := json.Marshal(map[string]any{
		"hardware":     schema.Hardware{GPUs: []schema.GPU{{Index: 0, Name: "NVIDIA H100 80GB HBM3"}, {Index: 1, Name: "NVIDIA H100 80GB HBM3"}}, DriverVersion: "570.1", CUDAVersion: "12.8"},
		"telemetry_1s": sampled(70),
	})
	put(t, dir, "gpu-info.json", string(info))
	put(t, dir, "gpu-info.rc", "0")
	put(t, dir, "collect.rc", "0")
	put(t, dir, "collect.log", "collect gpu-check-mock: 2 runs\n")
	// Results as collect writes them: a bundled result with telemetry.
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "results", "demo-mock-h100", "vllm--short.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		var r map[string]any
		json.Unmarshal(src, &r)
		r["telemetry"] = sampled(110)
		b, _ := json.Marshal(r)
		put(t, dir, "results/gpu-check-mock/"+id+"--short.json", string(b))
	}
	put(t, dir, "site.rc", "0")
	put(t, dir, "site/gpu-check/mock/index.html", `<html><body><table><th>Output tokens per joule</th></table>
<h3>GPU power (W)</h3><h3>GPU memory used (MiB)</h3><h3>GPU utilization (%)</h3><h3>SM clock (MHz)</h3></body></html>`)
	put(t, dir, "bench.rc", "0")
	put(t, dir, "bench.txt", benchOut)
	return dir
}

func TestSummaryPass(t *testing.T) {
	dir := recorded(t)
	var b strings.Builder
	if code := summarize(&b, dir); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, b.String())
	}
	s := b.String()
	for _, want := range []string{
		"Machine: 2 NVIDIA GPU(s)",
		"inventory: 2 × NVIDIA H100 80GB HBM3, driver 570.1, CUDA 12.8",
		"power         70–72 W",
		"power         110–112 W",
		"energy        41.5–41.5 J a run",
		"2 results, 2 ok",
		"4096     h1",
		"1024 streams: perflab's client costs 1.67× the floor's CPU per event",
		"PASS",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

// TestSummaryFailures: each missing piece is named, and the exit status
// says failed.
func TestSummaryFailures(t *testing.T) {
	dir := recorded(t)
	put(t, dir, "site/gpu-check/mock/index.html", `<html><body><th>Output tokens per joule</th></body></html>`)
	off := sampled(0)
	off.Samples[1].PowerW = 0 // NVML answered nothing for power
	info, _ := json.Marshal(map[string]any{"hardware": schema.Hardware{GPUs: []schema.GPU{{Name: "X"}}}, "telemetry_1s": off})
	put(t, dir, "gpu-info.json", string(info))
	put(t, dir, "bench.txt", strings.Join(strings.Split(benchOut, "\n")[:5], "\n"))
	put(t, dir, "bench.rc", "1")
	var b strings.Builder
	if code := summarize(&b, dir); code != exitFail {
		t.Fatalf("exit %d, want %d:\n%s", code, exitFail, b.String())
	}
	s := b.String()
	for _, want := range []string{
		"one second of samples: power is never above 0",
		"does not draw power",
		"does not draw clocks",
		"no result for 4096 streams, client h1",
		"go test -bench: exit 1",
		"FAIL: 8 check(s) failed",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

// TestSummaryNoGPU: without a GPU the check says it did not run and exits
// 2, whatever else is in the directory.
func TestSummaryNoGPU(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"nvidia-smi missing": {"gpu.rc": "127", "gpu.txt": "nvidia-smi: command not found"},
		"driver not loaded":  {"gpu.rc": "9", "gpu.txt": "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.", "gpu-info.err": "collect: gpu info: gpu telemetry unavailable: nvml init: ERROR_LIBRARY_NOT_FOUND\n"},
		"no GPU listed":      {"gpu.rc": "0", "gpu.txt": "No devices were found"},
		"nothing recorded":   {},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for f, d := range files {
				put(t, dir, f, d)
			}
			var b strings.Builder
			if code := summarize(&b, dir); code != exitNoGPU {
				t.Fatalf("exit %d:\n%s", code, b.String())
			}
			if s := b.String(); !strings.Contains(s, "NOT RUN: this machine has no NVIDIA GPU") || strings.Contains(s, "PASS") {
				t.Errorf("summary:\n%s", s)
			}
		})
	}
}

// TestScriptWithoutGPU runs make gpu-check's script on a machine without
// an NVIDIA GPU: it says nothing was checked and exits 2.
func TestScriptWithoutGPU(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perflab")
	}
	if _, err := exec.LookPath("nvidia-smi"); err == nil {
		t.Skip("SKIP: this machine has nvidia-smi: run make gpu-check itself")
	}
	out := t.TempDir()
	cmd := exec.Command("bash", filepath.Join("..", "..", "..", ".ci", "gpu-check.sh"))
	cmd.Env = append(os.Environ(), "GPU_CHECK_OUT="+out)
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitNoGPU {
		t.Fatalf("exit: %v, want status %d\n%s", err, exitNoGPU, b)
	}
	sum, err := os.ReadFile(filepath.Join(out, "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sum), "NOT RUN: this machine has no NVIDIA GPU") || !strings.Contains(string(b), "NOT RUN") {
		t.Errorf("summary:\n%s\noutput:\n%s", sum, b)
	}
	if _, err := os.Stat(filepath.Join(out, "results")); err == nil {
		t.Error("the campaign ran without a GPU")
	}
}
