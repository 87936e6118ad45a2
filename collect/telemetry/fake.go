package telemetry

import (
	"errors"
	"sync"

	"github.com/perflab/perflab/collect/schema"
)

// Fake is a scripted Sampler for tests. Each Read returns the next entry
// of Readings (the last one repeats); Hardware is what Inventory returns.
// Its methods are safe for concurrent use.
type Fake struct {
	Hardware schema.Hardware
	// Readings are returned one per Read call; the last one repeats.
	Readings [][]Reading
	// ReadErr, when set, is returned by every Read.
	ReadErr error

	mu     sync.Mutex
	reads  int
	closed bool
}

// Inventory returns a copy of f.Hardware.
func (f *Fake) Inventory() (*schema.Hardware, error) {
	h := f.Hardware
	h.GPUs = append([]schema.GPU(nil), f.Hardware.GPUs...)
	return &h, nil
}

// Read returns the next scripted readings.
func (f *Fake) Read() ([]Reading, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, errors.New("fake: closed")
	}
	if f.ReadErr != nil {
		return nil, f.ReadErr
	}
	if len(f.Readings) == 0 {
		return nil, nil
	}
	i := min(f.reads, len(f.Readings)-1)
	f.reads++
	return append([]Reading(nil), f.Readings[i]...), nil
}

// Reads reports how many times Read was called.
func (f *Fake) Reads() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reads
}

// Close marks the fake closed; later reads fail.
func (f *Fake) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	return nil
}
