// Package telemetry reads the GPUs of the node a campaign runs on: the
// inventory (name, memory, driver and CUDA version, count) that goes into
// every result's schema.Hardware, and samples of utilisation, memory,
// power, clocks and temperature taken while a benchmark runs, with the
// energy used from the GPUs' total-energy counters (so a page can show
// tokens per joule).
//
// A Sampler is the seam: Open returns the NVML implementation (built only
// with cgo on Linux, see nvml.go) or an error saying why no GPU can be
// read; Fake scripts readings for tests. A Recorder turns a Sampler into a
// schema.Telemetry for one run.
//
// No GPU, no driver or no NVML library is never a crash: Open returns an
// error, and the collector records it as a warning in every result.
// go-nvml kills the process when any call follows a failed nvml.Init (a
// symbol lookup error, not a recoverable panic), so the NVML code calls
// nothing after Init fails.
package telemetry
