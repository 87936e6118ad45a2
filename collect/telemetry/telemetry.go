package telemetry

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/perflab/perflab/collect/schema"
)

// Reading is one GPU's state at one instant.
type Reading struct {
	// GPU is the device index (as in schema.Hardware.GPUs).
	GPU         int
	UtilPct     float64
	MemUsedMiB  float64
	PowerW      float64
	SMClockMHz  float64
	MemClockMHz float64
	TempC       float64
	// EnergyMJ is the device's total-energy counter in millijoules since
	// the driver loaded; HasEnergy is false where the GPU has none (pre-Volta).
	EnergyMJ  uint64
	HasEnergy bool
}

// Sampler reads the node's GPUs. Implementations must be safe for use by
// one goroutine at a time; a Recorder serialises its calls.
type Sampler interface {
	// Inventory lists the GPUs with the driver and CUDA versions.
	Inventory() (*schema.Hardware, error)
	// Read returns the current state of every GPU, in index order.
	Read() ([]Reading, error)
	// Close releases the library.
	Close() error
}

// ErrUnavailable wraps every reason Open cannot read GPUs (no NVML
// library, no driver, built without cgo).
var ErrUnavailable = errors.New("gpu telemetry unavailable")

// Recorder samples a Sampler every Interval while a run is in progress.
// Start it with Record; Stop returns the telemetry of the run.
type Recorder struct {
	s        Sampler
	interval time.Duration
	start    time.Time

	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	samples  []schema.GPUSample
	first    map[int]uint64 // energy counter at start, by GPU
	last     map[int]uint64 // latest energy counter, by GPU
	noEnergy map[int]bool   // GPUs read at least once without a counter
	reset    map[int]bool   // GPUs whose counter went backwards
	warnings []string
}

// DefaultInterval is the sampling period when Record is given zero.
const DefaultInterval = time.Second

// Record starts sampling s every interval (zero: DefaultInterval) until
// Stop. It takes a first reading at once, so the energy counter's start
// value is the run's start.
func Record(s Sampler, interval time.Duration) *Recorder {
	if interval <= 0 {
		interval = DefaultInterval
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Recorder{
		s: s, interval: interval, start: time.Now(),
		cancel: cancel, done: make(chan struct{}),
		first: map[int]uint64{}, last: map[int]uint64{}, noEnergy: map[int]bool{}, reset: map[int]bool{},
	}
	r.sample()
	go r.loop(ctx)
	return r
}

func (r *Recorder) loop(ctx context.Context) {
	defer close(r.done)
	t := time.NewTicker(r.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.sample()
		}
	}
}

func (r *Recorder) sample() {
	rs, err := r.s.Read()
	now := time.Since(r.start).Seconds()
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		if len(r.warnings) == 0 {
			r.warnings = append(r.warnings, fmt.Sprintf("telemetry: read: %v", err))
		}
		return
	}
	for _, g := range rs {
		r.samples = append(r.samples, schema.GPUSample{
			TimeS: round3(now), GPU: g.GPU, UtilPct: g.UtilPct, MemUsedMiB: g.MemUsedMiB,
			PowerW: g.PowerW, SMClockMHz: g.SMClockMHz, MemClockMHz: g.MemClockMHz, TempC: g.TempC,
		})
		if !g.HasEnergy {
			r.noEnergy[g.GPU] = true
			continue
		}
		if _, ok := r.first[g.GPU]; !ok {
			r.first[g.GPU] = g.EnergyMJ
		}
		if g.EnergyMJ < r.last[g.GPU] {
			// The counter went backwards (driver reload, reset): the
			// difference first..last no longer measures the run.
			r.reset[g.GPU] = true
		}
		r.last[g.GPU] = g.EnergyMJ
	}
}

// Stop takes a last reading, stops sampling and returns the run's
// telemetry: every sample and the energy each GPU used between the first
// and the last reading (none, with a warning, where a counter is missing
// or went backwards).
func (r *Recorder) Stop() *schema.Telemetry {
	r.cancel()
	<-r.done
	r.sample()
	r.mu.Lock()
	defer r.mu.Unlock()
	t := &schema.Telemetry{Available: true, IntervalS: r.interval.Seconds(), Samples: r.samples}
	warnings := append([]string(nil), r.warnings...)
	t.EnergyJ, t.TotalEnergyJ, warnings = r.energy(warnings)
	t.Warning = strings.Join(warnings, "; ")
	return t
}

// energy returns each GPU's energy over the run and their sum, or
// nothing with a warning where the counters cannot give a true total: a
// GPU without a counter among GPUs with one (the sum would leave its
// energy out and overstate tokens per joule), or a counter that went
// backwards during the run. It is called with r.mu held.
func (r *Recorder) energy(warnings []string) ([]float64, float64, []string) {
	if len(r.first) == 0 {
		if len(r.noEnergy) > 0 {
			warnings = append(warnings, "telemetry: the GPUs have no energy counter: no energy for this run")
		}
		return nil, 0, warnings
	}
	var bad []string
	for _, g := range sortedGPUs(r.noEnergy) {
		bad = append(bad, fmt.Sprintf("GPU %d has no energy counter", g))
	}
	for _, g := range sortedGPUs(r.reset) {
		bad = append(bad, fmt.Sprintf("GPU %d's energy counter went backwards (driver reload or reset)", g))
	}
	if len(bad) > 0 {
		return nil, 0, append(warnings, "telemetry: "+strings.Join(bad, ", ")+": no energy for this run")
	}
	n := 0
	for g := range r.first {
		n = max(n, g+1)
	}
	perGPU := make([]float64, n)
	total := 0.0
	for g, a := range r.first {
		perGPU[g] = round3(float64(r.last[g]-a) / 1000)
		total += perGPU[g]
	}
	return perGPU, round3(total), warnings
}

func sortedGPUs(m map[int]bool) []int {
	gs := make([]int, 0, len(m))
	for g := range m {
		gs = append(gs, g)
	}
	sort.Ints(gs)
	return gs
}

func round3(v float64) float64 {
	return float64(int64(v*1000+0.5)) / 1000
}

// Unavailable is the telemetry of a run on a node whose GPUs cannot be
// read: no samples and the reason.
func Unavailable(err error) *schema.Telemetry {
	return &schema.Telemetry{Available: false, Warning: err.Error()}
}

// MemoryUsed returns each GPU's used memory in MiB, by index.
func MemoryUsed(s Sampler) (map[int]float64, error) {
	rs, err := s.Read()
	if err != nil {
		return nil, err
	}
	m := make(map[int]float64, len(rs))
	for _, g := range rs {
		m[g.GPU] = g.MemUsedMiB
	}
	return m, nil
}

// WaitReleased polls s every poll (zero: 1 s) until every GPU's used
// memory is at most its value in before plus slackMiB, or ctx ends. It is
// how the collector knows a stopped engine has given its GPU memory back
// before the next experiment starts.
func WaitReleased(ctx context.Context, s Sampler, before map[int]float64, slackMiB float64, poll time.Duration) error {
	if poll <= 0 {
		poll = time.Second
	}
	for {
		now, err := MemoryUsed(s)
		if err != nil {
			return fmt.Errorf("telemetry: wait memory released: %w", err)
		}
		held := ""
		for g, used := range now {
			if used > before[g]+slackMiB {
				held = fmt.Sprintf("GPU %d holds %.0f MiB (%.0f MiB before the engine started)", g, used, before[g])
				break
			}
		}
		if held == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("telemetry: wait memory released: %s: %w", held, ctx.Err())
		case <-time.After(poll):
		}
	}
}

// Only returns a Sampler that reads only the GPUs with the given indexes
// (the ones an engine uses), so that samples and energy leave out the
// node's idle GPUs. Inventory still lists every GPU.
func Only(s Sampler, gpus []int) Sampler {
	keep := map[int]bool{}
	for _, g := range gpus {
		keep[g] = true
	}
	return only{s, keep}
}

type only struct {
	Sampler
	keep map[int]bool
}

func (o only) Read() ([]Reading, error) {
	rs, err := o.Sampler.Read()
	if err != nil {
		return nil, err
	}
	out := rs[:0:0]
	for _, r := range rs {
		if o.keep[r.GPU] {
			out = append(out, r)
		}
	}
	return out, nil
}
