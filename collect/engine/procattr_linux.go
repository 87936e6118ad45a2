package engine

import "syscall"

// procAttr: Setpgid, so that the engine and its workers form their own
// group, which Stop signals as a whole; Pdeathsig, so that if the
// collector itself dies without stopping the engine (kill -9, the OOM
// killer) the kernel kills it rather than leave it holding the GPUs. (The
// signal follows the thread that forked; Go ends a thread only when a
// goroutine locked to it exits locked, which nothing in perflab does.)
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
