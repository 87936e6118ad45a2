package bench

import (
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/perflab/perflab/collect/sse"
)

// On Linux h1Client's TCP connections are read by pollers: one goroutine
// per P with its own epoll set of the sockets of the streams being read,
// reading each ready socket once and handing that read's events to the
// stream's callback (parse and stamp) right there, so that an event costs
// a read(2) and its share of a wakeup: no goroutine wakeup and switch per
// event, no second read that fails with EAGAIN, no read deadline per
// read; when many sockets are ready at once, one wakeup serves them all.
//
// A socket is taken out of Go's poller (a dup of it is kept and the
// net.Conn closed): left in both, every arrival would wake Go's poller
// too. Request writes and header reads happen in the request's goroutine,
// which waits for readiness on a one-shot registration in the same epoll.
// While a stream is read its registration is level-triggered: a socket
// with bytes left is reported again, so one read per readiness loses
// nothing, and a FIN reported with the data is read at once (step).
// Timeouts and cancels come from the request's context: its AfterFunc
// shuts the socket down, which the poller sees as readable and ends the
// stream with a closed-connection error.

// h1Poll: h1Client uses fdConn and the pollers.
const h1Poll = true

type h1Poller struct {
	ep    int
	f     *os.File        // ep as a file (nil if it could not be made non-blocking)
	rc    syscall.RawConn // ep in Go's poller; nil: loop blocks in epoll_wait
	mu    sync.Mutex      // slots, and everything a registered stream's step touches
	slots map[int32]*fdConn
}

var (
	pollersMu sync.Mutex
	pollers   []*h1Poller // started on first use
)

// pollerFor returns the poller of fd, starting the pollers on first use.
// A failure to start them (no file descriptors left) is that
// connection's error; the next connection tries again.
func pollerFor(fd int) (*h1Poller, error) {
	pollersMu.Lock()
	defer pollersMu.Unlock()
	if pollers == nil {
		ps, err := startPollers(max(1, runtime.GOMAXPROCS(0)))
		if err != nil {
			return nil, err
		}
		pollers = ps
	}
	return pollers[fd%len(pollers)], nil
}

// startPollers creates n pollers and starts their loops; if one cannot be
// created, none is started and the epoll fds made so far are closed.
func startPollers(n int) ([]*h1Poller, error) {
	ps := make([]*h1Poller, 0, n)
	for range n {
		ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
		if err != nil {
			for _, p := range ps {
				p.close()
			}
			return nil, os.NewSyscallError("epoll_create1", err)
		}
		p := &h1Poller{ep: ep, slots: map[int32]*fdConn{}}
		if syscall.SetNonblock(ep, true) == nil {
			p.f = os.NewFile(uintptr(ep), "epoll")
			if rc, err := p.f.SyscallConn(); err == nil {
				p.rc = rc
			}
		}
		ps = append(ps, p)
	}
	for _, p := range ps {
		go p.loop()
	}
	return ps, nil
}

// close closes a poller whose loop never started.
func (p *h1Poller) close() {
	if p.f != nil {
		p.f.Close() // leaves Go's poller, closes ep
		return
	}
	syscall.Close(p.ep)
}

// loop waits for ready sockets and serves them: a waiting goroutine is
// woken, a stream is stepped (read once, events handed out) and, when it
// ended, disarmed and its goroutine woken.
//
// The loop does not block in epoll_wait itself: a goroutine blocked in a
// system call keeps its P in the syscall state, which sysmon takes back
// after 20 µs when no other P is idle (GOMAXPROCS 1, a pinned client),
// waking a thread to poll Go's network and keeping sysmon from sleeping:
// two more thread wakeups per event when events come tens of µs apart.
// Instead the epoll fd sits in Go's own poller (an epoll fd is readable
// while it has ready sockets), the loop parks there, and epoll_wait is
// called with a zero timeout until it returns nothing.
func (p *h1Poller) loop() {
	evs := make([]syscall.EpollEvent, 128)
	serve := func(evs []syscall.EpollEvent) {
		p.mu.Lock()
		for _, ev := range evs {
			c := p.slots[ev.Fd]
			if c == nil {
				continue // disarmed or closed since
			}
			if c.step != nil && !c.step(ev.Events&(syscall.EPOLLRDHUP|syscall.EPOLLHUP|syscall.EPOLLERR) != 0) {
				continue // the stream goes on
			}
			// a one-shot wait fired or the stream ended
			delete(p.slots, ev.Fd)
			if c.step != nil {
				c.step, c.ended = nil, true
				p.ctl(c, syscall.EPOLLONESHOT) // disarmed: reports nothing
			}
			select {
			case c.wake <- struct{}{}:
			default:
			}
		}
		p.mu.Unlock()
	}
	drain := func(uintptr) bool {
		for {
			n, err := syscall.EpollWait(p.ep, evs, 0)
			if err == syscall.EINTR {
				continue
			}
			if n <= 0 {
				return false // park until the epoll fd is readable
			}
			serve(evs[:n])
			if n < len(evs) {
				// Every socket served is empty now (a stream steps until
				// a short read or EAGAIN, and to the end when the peer's
				// FIN was already reported) or disarmed, so anything
				// ready from here on arrived since, and its arrival makes
				// the epoll fd readable again for Go's poller: park
				// without the epoll_wait that would return nothing.
				return false
			}
		}
	}
	if p.rc != nil {
		for {
			p.rc.Read(drain) // returns only if the poller fails
			time.Sleep(time.Millisecond)
		}
	}
	for { // the epoll fd could not join Go's poller: block in epoll_wait
		n, err := syscall.EpollWait(p.ep, evs, -1)
		if err != nil {
			if err != syscall.EINTR {
				time.Sleep(time.Millisecond) // never spin
			}
			continue
		}
		serve(evs[:n])
	}
}

// ctl registers c with events (p.mu held).
func (p *h1Poller) ctl(c *fdConn, events uint32) error {
	op := syscall.EPOLL_CTL_MOD
	if !c.added {
		op = syscall.EPOLL_CTL_ADD
	}
	if err := syscall.EpollCtl(p.ep, op, c.fd, &syscall.EpollEvent{Events: events, Fd: int32(c.fd)}); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	c.added = true
	return nil
}

// fdConn is a TCP connection read and written with raw syscalls on its
// own file descriptor (out of Go's poller), waiting through a h1Poller.
type fdConn struct {
	fd         int
	p          *h1Poller
	local, rem net.Addr
	wake       chan struct{} // the poller's signal (buffered: a stale one makes a waiter look again)
	waits      int           // wait calls (tests)

	// under p.mu
	added bool                // fd is in the epoll set
	step  func(hup bool) bool // the stream being read: read once, hand out events; true: ended
	ended bool                // the last stream ended (step cleared by the poller)

	mu     sync.Mutex // shut and closed: abort runs concurrently with the owner
	shut   atomic.Bool
	closed bool
}

// detach takes a TCP connection out of Go's poller into an fdConn; other
// connections (tests' pipes) stay as they are.
func detach(c net.Conn) (net.Conn, error) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return c, nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return c, nil
	}
	fd := -1
	var derr error
	dup := func(s uintptr) {
		// close-on-exec from the start: no exec'd child inherits it
		r, _, errno := syscall.Syscall(syscall.SYS_FCNTL, s, syscall.F_DUPFD_CLOEXEC, 0)
		if fd = int(r); errno != 0 {
			fd, derr = -1, errno
		}
	}
	if err := raw.Control(dup); err != nil {
		derr = err
	}
	fc := &fdConn{fd: fd, local: tc.LocalAddr(), rem: tc.RemoteAddr(), wake: make(chan struct{}, 1)}
	tc.Close() // the dup holds the socket; Go's poller forgets it
	if derr != nil {
		return nil, os.NewSyscallError("dup", derr)
	}
	if fc.p, err = pollerFor(fd); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return fc, nil
}

// wait blocks until fd is ready for events (or shut, or in error: the
// kernel always reports EPOLLHUP and EPOLLERR). A read waits with
// EPOLLRDHUP too; a write must not: the peer's FIN stays reported while
// the send buffer is full, and a writer woken by it would find EAGAIN and
// wait again at once, spinning until the request times out.
func (c *fdConn) wait(events uint32) error {
	c.waits++
	c.p.mu.Lock()
	c.p.slots[int32(c.fd)] = c
	err := c.p.ctl(c, events|syscall.EPOLLONESHOT)
	c.p.mu.Unlock()
	if err != nil {
		return err
	}
	<-c.wake
	return nil
}

func (c *fdConn) opErr(op string, err error) error {
	if err == nil {
		return nil
	}
	if c.shut.Load() {
		err = net.ErrClosed
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.local, Addr: c.rem, Err: err}
}

// Read reads what is there, waiting until something is.
func (c *fdConn) Read(p []byte) (int, error) {
	for {
		if c.shut.Load() {
			return 0, c.opErr("read", net.ErrClosed)
		}
		n, err := rawRead(c.fd, p)
		switch {
		case err == sse.ErrWouldBlock:
			if err := c.wait(syscall.EPOLLIN | syscall.EPOLLRDHUP); err != nil {
				return 0, err
			}
		case err != nil:
			return 0, c.opErr("read", err) // an *os.SyscallError, as net wraps them
		case n == 0:
			if c.shut.Load() {
				return 0, c.opErr("read", net.ErrClosed)
			}
			return 0, io.EOF
		default:
			return n, nil
		}
	}
}

// Write writes all of b (one send(2) when the socket has room).
func (c *fdConn) Write(b []byte) (int, error) {
	done := 0
	for done < len(b) {
		if c.shut.Load() {
			return done, c.opErr("write", net.ErrClosed)
		}
		n, err := syscall.SendmsgN(c.fd, b[done:], nil, nil, syscall.MSG_NOSIGNAL)
		switch err {
		case nil:
			done += n
		case syscall.EINTR:
		case syscall.EAGAIN:
			if err := c.wait(syscall.EPOLLOUT); err != nil {
				return done, err
			}
		default:
			return done, c.opErr("write", os.NewSyscallError("write", err))
		}
	}
	return done, nil
}

// abort shuts the socket down (a cancel, from any goroutine): a waiting
// or streaming read ends with a closed-connection error.
func (c *fdConn) abort() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed && !c.shut.Swap(true) {
		syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
	}
}

// Close closes the connection; only its owner calls it, with no wait or
// stream in progress.
func (c *fdConn) Close() error {
	c.p.mu.Lock()
	if c.p.slots[int32(c.fd)] == c {
		delete(c.p.slots, int32(c.fd))
	}
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		if c.added {
			syscall.EpollCtl(c.p.ep, syscall.EPOLL_CTL_DEL, c.fd, nil)
		}
		syscall.Close(c.fd)
	}
	c.mu.Unlock()
	c.p.mu.Unlock()
	return nil
}

func (c *fdConn) LocalAddr() net.Addr              { return c.local }
func (c *fdConn) RemoteAddr() net.Addr             { return c.rem }
func (c *fdConn) SetDeadline(time.Time) error      { return errNoDeadline }
func (c *fdConn) SetReadDeadline(time.Time) error  { return errNoDeadline }
func (c *fdConn) SetWriteDeadline(time.Time) error { return errNoDeadline }

// stream reads hc's body with the poller: whatever is already there is
// handed out here, the rest by the poller's loop as it arrives.
func (c *fdConn) stream(hc *h1Conn, rd *sse.Reader, fn func(sse.Event) bool) error {
	var serr error
	hc.push, hc.fd = true, c.fd
	defer func() { hc.push = false }()
	// hup: the peer's FIN (or an error) was there when readiness was
	// reported. A short read does not consume it, and with it nothing new
	// will arrive to report the socket again (see loop): read on to it.
	step := func(hup bool) bool {
		// readiness was reported: read (once, if it comes short)
		hc.drained, hc.skipped = false, false
		for {
			ev, err := rd.Next()
			if err == sse.ErrWouldBlock {
				if hup && hc.skipped { // a short read skipped the FIN: read it
					hc.skipped = false
					continue
				}
				return false
			}
			if err != nil {
				if err != io.EOF {
					serr = err
				}
				return true
			}
			if !fn(ev) {
				return true
			}
		}
	}
	if !step(false) {
		c.p.mu.Lock()
		c.step, c.ended = step, false
		c.p.slots[int32(c.fd)] = c
		err := c.p.ctl(c, syscall.EPOLLIN|syscall.EPOLLRDHUP)
		c.p.mu.Unlock()
		if err != nil {
			c.p.mu.Lock()
			c.step = nil
			delete(c.p.slots, int32(c.fd))
			c.p.mu.Unlock()
			return err
		}
		for ended := false; !ended; {
			<-c.wake
			c.p.mu.Lock()
			ended = c.ended
			c.p.mu.Unlock()
		}
	}
	if c.shut.Load() {
		// cancelled: the shutdown ended the stream, whatever it read
		err := c.opErr("read", net.ErrClosed)
		hc.err = err
		return err
	}
	return serr
}
