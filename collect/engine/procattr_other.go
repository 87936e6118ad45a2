//go:build !linux

package engine

import "syscall"

// procAttr: Setpgid, so that the engine and its workers form their own
// group, which Stop signals as a whole. Outside Linux there is no
// Pdeathsig: an engine outlives a collector killed with SIGKILL.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// groupAlive reports whether any process of group pgid exists (a zombie
// leader counts until it is reaped).
func groupAlive(pgid int) bool {
	return syscall.Kill(-pgid, 0) == nil
}
