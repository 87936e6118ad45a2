//go:build cgo && linux

package telemetry

import (
	"fmt"
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"

	"github.com/perflab/perflab/collect/schema"
)

// nvmlSampler reads GPUs through NVML. It exists only after a successful
// nvml.Init: every method relies on that (see Open).
type nvmlSampler struct {
	mu      sync.Mutex
	devices []nvml.Device
	closed  bool
}

// Open initialises NVML and returns a Sampler over every GPU of the node.
// When NVML cannot start (no library, no driver) the error wraps
// ErrUnavailable and no other NVML function has been called: go-nvml
// kills the process on any call after a failed Init.
func Open() (Sampler, error) {
	if ret := nvml.Init(); ret != nvml.SUCCESS {
		return nil, fmt.Errorf("%w: nvml init: %v%s", ErrUnavailable, ret, initHint(ret))
	}
	n, ret := nvml.DeviceGetCount()
	if ret != nvml.SUCCESS {
		nvml.Shutdown()
		return nil, fmt.Errorf("%w: nvml device count: %v", ErrUnavailable, ret)
	}
	s := &nvmlSampler{}
	for i := 0; i < n; i++ {
		d, ret := nvml.DeviceGetHandleByIndex(i)
		if ret != nvml.SUCCESS {
			nvml.Shutdown()
			return nil, fmt.Errorf("%w: nvml device %d: %v", ErrUnavailable, i, ret)
		}
		s.devices = append(s.devices, d)
	}
	return s, nil
}

func (s *nvmlSampler) Inventory() (*schema.Hardware, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("nvml: inventory: closed")
	}
	h := &schema.Hardware{GPUCount: len(s.devices)}
	if v, ret := nvml.SystemGetDriverVersion(); ret == nvml.SUCCESS {
		h.DriverVersion = v
	}
	if v, ret := nvml.SystemGetCudaDriverVersion(); ret == nvml.SUCCESS {
		h.CUDAVersion = cudaVersion(v)
	}
	for i, d := range s.devices {
		g := schema.GPU{Index: i}
		if v, ret := d.GetName(); ret == nvml.SUCCESS {
			g.Name = v
		}
		if v, ret := d.GetUUID(); ret == nvml.SUCCESS {
			g.UUID = v
		}
		if m, ret := d.GetMemoryInfo(); ret == nvml.SUCCESS {
			g.MemoryMiB = int(m.Total / (1 << 20))
		}
		h.GPUs = append(h.GPUs, g)
	}
	if len(h.GPUs) > 0 {
		h.GPUName = h.GPUs[0].Name
	}
	return h, nil
}

func (s *nvmlSampler) Read() ([]Reading, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("nvml: read: closed")
	}
	out := make([]Reading, 0, len(s.devices))
	for i, d := range s.devices {
		// A metric a GPU does not support (ERROR_NOT_SUPPORTED) stays zero.
		r := Reading{GPU: i}
		if u, ret := d.GetUtilizationRates(); ret == nvml.SUCCESS {
			r.UtilPct = float64(u.Gpu)
		}
		if m, ret := d.GetMemoryInfo(); ret == nvml.SUCCESS {
			r.MemUsedMiB = float64(m.Used) / (1 << 20)
		}
		if p, ret := d.GetPowerUsage(); ret == nvml.SUCCESS {
			r.PowerW = float64(p) / 1000
		}
		if c, ret := d.GetClockInfo(nvml.CLOCK_SM); ret == nvml.SUCCESS {
			r.SMClockMHz = float64(c)
		}
		if c, ret := d.GetClockInfo(nvml.CLOCK_MEM); ret == nvml.SUCCESS {
			r.MemClockMHz = float64(c)
		}
		if t, ret := d.GetTemperature(nvml.TEMPERATURE_GPU); ret == nvml.SUCCESS {
			r.TempC = float64(t)
		}
		if e, ret := d.GetTotalEnergyConsumption(); ret == nvml.SUCCESS {
			r.EnergyMJ, r.HasEnergy = e, true
		}
		out = append(out, r)
	}
	return out, nil
}

func (s *nvmlSampler) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if ret := nvml.Shutdown(); ret != nvml.SUCCESS {
		return fmt.Errorf("nvml: shutdown: %v", ret)
	}
	return nil
}

// initHint says in words what a failed nvml.Init means on a node, for
// the warning every result carries and for collect --gpu-info. It calls
// no NVML function (none may follow a failed Init).
func initHint(ret nvml.Return) string {
	switch ret {
	case nvml.ERROR_LIBRARY_NOT_FOUND:
		return " (libnvidia-ml.so.1 not found: no NVIDIA driver here, or a container started without the NVIDIA runtime)"
	case nvml.ERROR_DRIVER_NOT_LOADED:
		return " (the NVIDIA kernel driver is not loaded)"
	case nvml.ERROR_NO_PERMISSION:
		return " (no permission to open the GPU devices)"
	case nvml.ERROR_LIB_RM_VERSION_MISMATCH:
		return " (the driver library and kernel module versions differ: reload the driver or reboot)"
	}
	return ""
}
