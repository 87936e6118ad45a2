package schema

import "testing"

// TestHardwareUnit: the accelerator's word and whether NVML telemetry is
// expected, for the hardware real labs use (NVIDIA, AMD, Huawei Ascend)
// and a CPU machine.
func TestHardwareUnit(t *testing.T) {
	for _, tc := range []struct {
		hw   HardwareSpec
		unit string
		nvml bool
	}{
		{HardwareSpec{Vendor: "NVIDIA", GPU: "H100", Count: 8}, "GPU", true},
		{HardwareSpec{GPU: "H200", Count: 1}, "GPU", true},
		{HardwareSpec{Vendor: "AMD", GPU: "MI300X", Count: 8}, "GPU", false},
		{HardwareSpec{Vendor: "Huawei", GPU: "910B", Count: 8}, "NPU", false},
		{HardwareSpec{GPU: "Ascend 910B", Count: 8}, "NPU", false},
		{HardwareSpec{GPU: "2-core VM", Accelerator: "cpu", Count: 1}, "CPU", false},
		{HardwareSpec{GPU: "X", Accelerator: "NPU"}, "NPU", false},
	} {
		if u, n := tc.hw.Unit(), tc.hw.NVML(); u != tc.unit || n != tc.nvml {
			t.Errorf("%+v: unit %s nvml %v, want %s %v", tc.hw, u, n, tc.unit, tc.nvml)
		}
	}
}
