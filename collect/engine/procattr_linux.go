package engine

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// procAttr: Setpgid, so that the engine and its workers form their own
// group, which Stop signals as a whole; Pdeathsig, so that if the
// collector itself dies without stopping the engine (kill -9, the OOM
// killer) the kernel kills it rather than leave it holding the GPUs. (The
// signal follows the thread that forked; Go ends a thread only when a
// goroutine locked to it exits locked, which nothing in perflab does.)
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// groupAlive reports whether a live process of group pgid exists: the
// leader until it is reaped (exec.Cmd.Wait does that), or a worker that
// is not a zombie. A dead worker holds no GPU memory, but it stays in the
// group as a zombie until its parent reaps it; where perflab is that
// parent — PID 1 of a container (`exec perflab collect …`), which
// inherits every orphan — nobody else will, so it reaps them here.
// Without this, kill(-pgid, 0) saw the zombies, and every engine stop
// waited out its grace period and then reported a group that "survived
// SIGKILL".
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false // no process at all: the common case, without a scan
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	self, alive := os.Getpid(), false
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile
		}
		state, ppid, pgrp, ok := parseStat(b)
		switch {
		case !ok || pgrp != pgid:
		case state != 'Z' || pid == pgid:
			alive = true
		case ppid == self:
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, syscall.WNOHANG, nil) // an orphaned worker of ours
		}
	}
	return alive
}

// parseStat reads the state, parent and process group of /proc/PID/stat
// ("pid (comm) S ppid pgrp …"; comm may hold spaces and parentheses).
func parseStat(b []byte) (state byte, ppid, pgrp int, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, 0, false
	}
	ppid, err1 := strconv.Atoi(string(f[1]))
	pgrp, err2 := strconv.Atoi(string(f[2]))
	return f[0][0], ppid, pgrp, err1 == nil && err2 == nil
}
