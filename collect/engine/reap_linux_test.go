package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestStopReapsOrphanedWorkers: where perflab is PID 1 of a container
// (the Kubernetes example execs it), an engine's workers whose leader has
// exited are reparented to perflab. Once killed they are zombies that only
// perflab can reap; Stop must reap them and not wait on them, nor report
// that the group survived SIGKILL. A child subreaper stands in for PID 1.
func TestStopReapsOrphanedWorkers(t *testing.T) {
	const prSetChildSubreaper = 36
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		t.Skipf("prctl(PR_SET_CHILD_SUBREAPER): %v", e)
	}
	defer syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0)
	// The leader exits at once; its worker (a subshell and its sleep,
	// deaf to SIGINT and SIGTERM, as a stuck CUDA worker can be) is
	// orphaned to this process and only SIGKILL ends it.
	p, err := Start(Config{Name: "orphans", Argv: []string{"sh", "-c", `(trap "" INT TERM; sleep 1000) >/dev/null 2>&1 & exit 0`},
		LogPath: filepath.Join(t.TempDir(), "e.log")})
	if err != nil {
		t.Fatal(err)
	}
	<-p.Exited()
	if !groupAlive(p.Pid()) {
		t.Fatal("the worker is not running: the test proves nothing")
	}
	if err := p.Stop(200e6); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if groupAlive(p.Pid()) {
		t.Fatal("group alive after Stop")
	}
	// The log ends saying how the leader ended, in words ("<nil>" before).
	if log, _ := os.ReadFile(p.LogPath()); !strings.HasSuffix(string(log), ": stopped (exit status 0)\n") {
		t.Errorf("log: %q", log)
	}
	// No zombie of the group is left behind either.
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if _, _, pgrp, ok := parseStat(b); ok && pgrp == p.Pid() {
			t.Errorf("process %s of the group is left: %s", e.Name(), b)
		}
	}
}

func TestParseStat(t *testing.T) {
	// comm may hold spaces and parentheses.
	st, ppid, pgrp, ok := parseStat([]byte("4242 (python3 (vllm) x) Z 1 4200 4200 0 -1 4194560"))
	if !ok || st != 'Z' || ppid != 1 || pgrp != 4200 {
		t.Fatalf("got %c %d %d %v", st, ppid, pgrp, ok)
	}
	if _, _, _, ok := parseStat([]byte("garbage")); ok {
		t.Fatal("garbage parsed")
	}
}
