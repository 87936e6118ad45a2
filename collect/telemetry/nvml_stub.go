//go:build !(cgo && linux)

package telemetry

import "fmt"

// Open reports that this build cannot read GPUs: NVML needs cgo on Linux.
func Open() (Sampler, error) {
	return nil, fmt.Errorf("%w: perflab was built without cgo on linux, so NVML cannot be used", ErrUnavailable)
}
