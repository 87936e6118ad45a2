package telemetry

import "fmt"

// cudaVersion formats NVML's CUDA driver version integer (12040) as 12.4.
func cudaVersion(v int) string {
	return fmt.Sprintf("%d.%d", v/1000, (v%1000)/10)
}
