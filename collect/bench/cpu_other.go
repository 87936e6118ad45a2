//go:build !unix

package bench

// cpuTime is unknown here: the CPU share reads 0.
func cpuTime() float64 { return -1 }
