//go:build cgo && linux

package telemetry

import (
	"strings"
	"testing"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

func TestInitHint(t *testing.T) {
	for ret, want := range map[nvml.Return]string{
		nvml.ERROR_LIBRARY_NOT_FOUND:       "no NVIDIA driver here",
		nvml.ERROR_DRIVER_NOT_LOADED:       "kernel driver is not loaded",
		nvml.ERROR_NO_PERMISSION:           "no permission",
		nvml.ERROR_LIB_RM_VERSION_MISMATCH: "versions differ",
		nvml.ERROR_UNKNOWN:                 "",
	} {
		if got := initHint(ret); want == "" && got != "" || !strings.Contains(got, want) {
			t.Errorf("initHint(%v) = %q, want it to say %q", ret, got, want)
		}
	}
}
