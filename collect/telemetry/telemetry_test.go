package telemetry

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestRecorderEnergyAndSamples(t *testing.T) {
	f := &Fake{Readings: [][]Reading{
		{{GPU: 0, PowerW: 300, EnergyMJ: 1_000_000, HasEnergy: true}, {GPU: 1, PowerW: 310, EnergyMJ: 5_000, HasEnergy: true}},
		{{GPU: 0, PowerW: 600, EnergyMJ: 1_250_500, HasEnergy: true}, {GPU: 1, PowerW: 620, EnergyMJ: 105_000, HasEnergy: true}},
	}}
	r := Record(f, time.Hour) // only the first and the final reading
	tel := r.Stop()
	if !tel.Available {
		t.Fatal("not available")
	}
	if len(tel.Samples) != 4 {
		t.Fatalf("samples = %d, want 4 (2 GPUs × 2 readings)", len(tel.Samples))
	}
	// GPU 0: 1,250,500 − 1,000,000 mJ = 250.5 J; GPU 1: 100 J.
	if len(tel.EnergyJ) != 2 || tel.EnergyJ[0] != 250.5 || tel.EnergyJ[1] != 100 {
		t.Fatalf("energy = %v", tel.EnergyJ)
	}
	if tel.TotalEnergyJ != 350.5 {
		t.Fatalf("total = %v", tel.TotalEnergyJ)
	}
	for i := 1; i < len(tel.Samples); i++ {
		if tel.Samples[i].TimeS < tel.Samples[i-1].TimeS {
			t.Fatal("samples out of time order")
		}
	}
}

// TestRecorderEnergyCannotBeTrusted: where the counters cannot give the
// run's true energy, the telemetry carries no energy and says why, rather
// than a total that leaves a GPU out (and so overstates tokens per joule).
func TestRecorderEnergyCannotBeTrusted(t *testing.T) {
	e := func(gpu int, mj uint64) Reading { return Reading{GPU: gpu, EnergyMJ: mj, HasEnergy: true} }
	for _, tc := range []struct {
		name     string
		readings [][]Reading
		warning  string
	}{
		// The driver reloaded mid-run: the counter restarts near zero.
		{"counter went backwards", [][]Reading{
			{e(0, 9_000_000), e(1, 9_000_000)},
			{e(0, 9_500_000), e(1, 2_000)},
		}, "GPU 1's energy counter went backwards"},
		// A reset between two samples, back above the start by the end:
		// first..last alone would look fine and report too little.
		{"reset between samples", [][]Reading{
			{e(0, 5_000)}, {e(0, 900_000)}, {e(0, 10)}, {e(0, 6_000)},
		}, "GPU 0's energy counter went backwards"},
		// GPU 1 has no counter: a total of GPU 0 alone would be too small.
		{"one GPU without a counter", [][]Reading{
			{e(0, 1_000), {GPU: 1}},
			{e(0, 90_000), {GPU: 1}},
		}, "GPU 1 has no energy counter"},
		// The counter stops answering during the run.
		{"counter lost mid-run", [][]Reading{
			{e(0, 1_000)}, {{GPU: 0}}, {e(0, 1_000)},
		}, "GPU 0 has no energy counter"},
		{"no GPU has a counter", [][]Reading{{{GPU: 0}, {GPU: 1}}}, "no energy counter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &Fake{Readings: tc.readings}
			r := Record(f, time.Hour)
			for f.Reads() < len(tc.readings)-1 {
				r.sample() // the scripted readings between first and last
			}
			tel := r.Stop()
			if tel.EnergyJ != nil || tel.TotalEnergyJ != 0 {
				t.Errorf("energy %v, total %v: want none", tel.EnergyJ, tel.TotalEnergyJ)
			}
			if !strings.Contains(tel.Warning, tc.warning) {
				t.Errorf("warning %q, want it to say %q", tel.Warning, tc.warning)
			}
		})
	}
}

func TestRecorderSamplesPeriodically(t *testing.T) {
	f := &Fake{Readings: [][]Reading{{{GPU: 0, UtilPct: 50}}}}
	r := Record(f, 5*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for f.Reads() < 4 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	tel := r.Stop()
	if len(tel.Samples) < 4 {
		t.Fatalf("samples = %d, want ≥ 4", len(tel.Samples))
	}
	if tel.EnergyJ != nil {
		t.Fatalf("energy without counters: %v", tel.EnergyJ)
	}
}

func TestRecorderReadErrorIsWarning(t *testing.T) {
	f := &Fake{ReadErr: errors.New("GPU is lost")}
	tel := Record(f, time.Hour).Stop()
	if !strings.Contains(tel.Warning, "GPU is lost") {
		t.Fatalf("warning = %q", tel.Warning)
	}
}

func TestWaitReleased(t *testing.T) {
	// The engine holds 70 GiB, then 30 GiB, then gives it back.
	f := &Fake{Readings: [][]Reading{
		{{GPU: 0, MemUsedMiB: 71000}},
		{{GPU: 0, MemUsedMiB: 30000}},
		{{GPU: 0, MemUsedMiB: 600}},
	}}
	before := map[int]float64{0: 500}
	if err := WaitReleased(context.Background(), f, before, 256, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if f.Reads() != 3 {
		t.Fatalf("reads = %d, want 3", f.Reads())
	}

	// Never released: the deadline error names the GPU and what it holds.
	held := &Fake{Readings: [][]Reading{{{GPU: 1, MemUsedMiB: 71000}}}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	err := WaitReleased(ctx, held, map[int]float64{}, 256, time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "GPU 1 holds 71000 MiB") {
		t.Fatalf("err = %v", err)
	}
}

func TestCUDAVersion(t *testing.T) {
	for v, want := range map[int]string{12040: "12.4", 11080: "11.8", 13000: "13.0"} {
		if got := cudaVersion(v); got != want {
			t.Errorf("cudaVersion(%d) = %s, want %s", v, got, want)
		}
	}
}

// TestOpenWithoutGPU runs where no NVIDIA driver is installed (this
// project's CI): Open must fail with ErrUnavailable and not kill the
// process. On a GPU node it prints the inventory instead.
func TestOpenWithoutGPU(t *testing.T) {
	s, err := Open()
	if err != nil {
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("err = %v, want ErrUnavailable", err)
		}
		t.Logf("no GPU: %v", err)
		return
	}
	defer s.Close()
	h, err := s.Inventory()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("GPUs: %+v", h)
	rs, err := s.Read()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != h.GPUCount {
		t.Fatalf("readings %d for %d GPUs", len(rs), h.GPUCount)
	}
	if os.Getenv("PERFLAB_EXPECT_GPU") == "" && h.GPUCount == 0 {
		t.Log("NVML initialised but reports no GPU")
	}
}

var _ Sampler = (*Fake)(nil)

func TestOnlyLeavesOutIdleGPUs(t *testing.T) {
	f := &Fake{Readings: [][]Reading{
		{{GPU: 0, EnergyMJ: 0, HasEnergy: true}, {GPU: 1, EnergyMJ: 0, HasEnergy: true}, {GPU: 2, EnergyMJ: 0, HasEnergy: true}},
		{{GPU: 0, EnergyMJ: 2000, HasEnergy: true}, {GPU: 1, EnergyMJ: 1000, HasEnergy: true}, {GPU: 2, EnergyMJ: 9000, HasEnergy: true}},
	}}
	tel := Record(Only(f, []int{0, 1}), time.Hour).Stop()
	if tel.TotalEnergyJ != 3 || len(tel.EnergyJ) != 2 {
		t.Fatalf("energy %v total %v: GPU 2 is not the engine's", tel.EnergyJ, tel.TotalEnergyJ)
	}
	for _, s := range tel.Samples {
		if s.GPU == 2 {
			t.Fatal("a sample of an idle GPU")
		}
	}
}
