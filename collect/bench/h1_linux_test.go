package bench

import (
	"context"
	"errors"
	"net"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestFdConnWriteWaitsOnHalfClosedPeer: a request body that does not fit
// the socket buffers, sent to a server that closed its side for writing
// (answered early) and reads nothing, waits for room without spinning:
// the peer's FIN must not count as writability.
func TestFdConnWriteWaitsOnHalfClosedPeer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		c.(*net.TCPConn).SetReadBuffer(4096)
		c.(*net.TCPConn).CloseWrite() // FIN, and never a read
		accepted <- c
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv := <-accepted
	defer srv.Close()
	c, err := detach(nc)
	if err != nil {
		t.Fatal(err)
	}
	fc := c.(*fdConn)
	defer fc.Close()
	time.Sleep(20 * time.Millisecond) // the FIN is in

	ctx, cancel := context.WithCancel(context.Background())
	defer context.AfterFunc(ctx, fc.abort)()
	done := make(chan error, 1)
	go func() {
		_, err := fc.Write(make([]byte, 64<<20)) // more than any socket buffer
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // blocked by now
	time.Sleep(300 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, net.ErrClosed) {
			t.Fatalf("write after cancel: %v, want a closed-connection error", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("write still blocked 5 s after cancel")
	}
	// A blocked write is woken when the kernel makes room, a handful of
	// times as the window closes; a spin wakes it hundreds of thousands.
	if fc.waits > 100 {
		t.Fatalf("a blocked write waited %d times in 300 ms: it spins", fc.waits)
	}
}

// openFDs lists this process's open file descriptors.
func openFDs(t *testing.T) map[int]bool {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	fds := map[int]bool{}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil {
			fds[fd] = true
		}
	}
	return fds
}

// TestStartPollersOutOfFDs: when the file descriptors run out part way
// through creating the pollers, the error says so, the epoll fds already
// made are closed, and a later call (fds free again) starts them.
func TestStartPollersOutOfFDs(t *testing.T) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	// A new fd takes the lowest free number, which must be below the
	// limit: leave two free numbers under it (three: the listing's own
	// fd, open while it was read, is free again), too few for four.
	before := openFDs(t)
	free, fd := 0, 0
	for ; free < 2; fd++ {
		if !before[fd] {
			free++
		}
	}
	low := lim
	low.Cur = uint64(fd)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &low); err != nil {
		t.Skip(err)
	}
	ps, err := startPollers(4)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if err == nil || !errors.Is(err, syscall.EMFILE) {
		t.Fatalf("startPollers(4) with 2-3 fds left: %v, %d pollers; want EMFILE", err, len(ps))
	}
	if after := openFDs(t); len(after) != len(before) {
		t.Fatalf("%d open fds after the failure, %d before: the epoll fds made leaked", len(after), len(before))
	}
	ps, err = startPollers(1) // (its loop stays parked for the test binary's life)
	if err != nil || len(ps) != 1 {
		t.Fatalf("startPollers with fds free: %v, %d pollers", err, len(ps))
	}
}
