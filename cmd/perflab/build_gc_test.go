package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// gcSettings reads GOGC and the memory limit without changing them.
func gcSettings() (gogc, limit int64) {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}, {Name: "/gc/gomemlimit:bytes"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64()), int64(s[1].Value.Uint64())
}

func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// restoreGC puts back the test binary's collector settings.
func restoreGC(t *testing.T) {
	gogc, limit := gcSettings()
	t.Cleanup(func() {
		debug.SetGCPercent(int(gogc))
		debug.SetMemoryLimit(limit)
	})
}

// TestTuneGCEnvironment: GOGC or GOMEMLIMIT set by the user leaves the
// runtime's settings (which it read from them) alone; unset, the build's
// are applied.
func TestTuneGCEnvironment(t *testing.T) {
	restoreGC(t)
	debug.SetGCPercent(150)
	debug.SetMemoryLimit(math.MaxInt64)
	for _, env := range [][2]string{{"GOGC", "150"}, {"GOMEMLIMIT", "1GiB"}} {
		t.Setenv("GOGC", "")
		t.Setenv("GOMEMLIMIT", "")
		t.Setenv(env[0], env[1])
		tuneGC()
		if gogc, limit := gcSettings(); gogc != 150 || limit != math.MaxInt64 {
			t.Errorf("%s=%s: GOGC %d, limit %d; want them untouched", env[0], env[1], gogc, limit)
		}
	}
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	tuneGC()
	if gogc, limit := gcSettings(); gogc != 300 || limit != buildGCLimit {
		t.Errorf("unset: GOGC %d, limit %d; want 300 and %d", gogc, limit, buildGCLimit)
	}
}

// TestBuildGCLimitLifted: the build's GOGC=300 and soft limit hold while
// the live heap is under half the limit, and give way to the runtime's
// defaults once it passes that (a limit near the live heap makes the
// collector run back to back).
func TestBuildGCLimitLifted(t *testing.T) {
	restoreGC(t)
	runtime.GC()
	limit := 2 * (liveHeap() + 32<<20)
	setBuildGC(limit)
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs after the cycle
	}
	if gogc, l := gcSettings(); gogc != 300 || l != limit {
		t.Fatalf("live heap under half the limit: GOGC %d, limit %d; want 300 and %d", gogc, l, limit)
	}
	ballast := make([]byte, 64<<20)
	for i := range ballast {
		ballast[i] = byte(i)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
		gogc, l := gcSettings()
		if gogc == 100 && l == math.MaxInt64 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("live heap %d MB past half the %d MB limit: GOGC %d, limit %d; want 100 and none", liveHeap()>>20, limit>>20, gogc, l)
		}
	}
	runtime.KeepAlive(ballast)
}
