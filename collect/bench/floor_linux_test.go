package bench

import (
	"bytes"
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/perflab/perflab/collect/schema"
)

// floorResult is one measured round of floorRun.
type floorResult struct {
	recs   []schema.Request // SendS and EventS (one stamp per token event)
	dur    float64          // seconds, first send to last read
	cpuS   float64          // process CPU in that time
	events int64            // SSE events (tokens, usage, [DONE]), as the client counts them
	reads  int64            // read(2) calls that returned stream data
	csw    int64            // voluntary context switches in that time
}

// floorRun is BenchmarkClientEfficiency's floor: streams connections to
// the paced server at url, out of Go's poller (a dup of each socket, the
// net.Conn closed), one request each as warmup, then the measured round,
// its t=0 passed to onStart. One loop waits in a level-triggered
// epoll_wait and reads each ready socket once into one buffer: no HTTP or
// JSON parsing, events counted by their blank line, one clock read per
// read. Level-triggered: a socket with bytes left is reported again, so
// one read per readiness loses nothing.
func floorRun(url string, streams, tokens int, onStart func(time.Time)) (floorResult, error) {
	addr := strings.TrimPrefix(url, "http://")
	fds := make([]int, 0, streams)
	defer func() {
		for _, fd := range fds {
			syscall.Close(fd)
		}
	}()
	for range streams {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return floorResult{}, err
		}
		raw, err := c.(*net.TCPConn).SyscallConn()
		if err != nil {
			c.Close()
			return floorResult{}, err
		}
		var fd int
		var derr error
		if err := raw.Control(func(s uintptr) { fd, derr = syscall.Dup(int(s)) }); err != nil {
			derr = err
		}
		c.Close() // the dup keeps the socket, outside Go's poller
		if derr != nil {
			return floorResult{}, derr
		}
		fds = append(fds, fd)
	}
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		return floorResult{}, err
	}
	defer syscall.Close(ep)
	for i, fd := range fds {
		if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, fd, &syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(i)}); err != nil {
			return floorResult{}, err
		}
	}
	if _, err := floorRound(ep, fds, tokens, nil); err != nil { // warmup
		return floorResult{}, err
	}
	return floorRound(ep, fds, tokens, onStart)
}

// floorRound sends one request per connection and reads every answer to
// its end.
func floorRound(ep int, fds []int, tokens int, onStart func(time.Time)) (floorResult, error) {
	type conn struct {
		hdr  bool    // the header block is read
		tail [8]byte // the last bytes read: a blank line or the body's end split across reads
		done bool
	}
	conns := make([]conn, len(fds))
	res := floorResult{recs: make([]schema.Request, len(fds))}
	for i := range res.recs {
		res.recs[i] = schema.Request{Index: i, Success: true, EventS: make([]float64, 0, tokens+2)}
	}
	reqs := make([][]byte, len(fds))
	for i := range fds {
		reqs[i] = fmt.Appendf(nil, "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Request-Id: eff-%d\r\nContent-Length: 2\r\n\r\n{}", i)
	}
	base := time.Now()
	if onStart != nil {
		onStart(base)
	}
	cpu0, csw0 := cpuTime(), voluntaryCSW()
	for i, fd := range fds {
		res.recs[i].SendS = time.Since(base).Seconds()
		if n, err := syscall.Write(fd, reqs[i]); err != nil || n != len(reqs[i]) {
			return res, fmt.Errorf("floor: write %d of %d bytes: %v", n, len(reqs[i]), err)
		}
	}
	buf := make([]byte, 64<<10)
	evs := make([]syscall.EpollEvent, 256)
	end := []byte("\r\n0\r\n\r\n")
	for left := len(fds); left > 0; {
		n, err := syscall.EpollWait(ep, evs, -1)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return res, err
		}
		for _, ev := range evs[:n] {
			i := int(ev.Fd)
			c := &conns[i]
			m, err := syscall.Read(fds[i], buf)
			if err == syscall.EAGAIN {
				continue
			}
			if err != nil || m == 0 {
				return res, fmt.Errorf("floor: stream %d: read: %v (%d bytes)", i, err, m)
			}
			if c.done {
				return res, fmt.Errorf("floor: stream %d: bytes after the end", i)
			}
			now := time.Since(base).Seconds()
			b := buf[:m]
			if !c.hdr {
				k := bytes.Index(b, []byte("\r\n\r\n"))
				if k < 0 {
					return res, fmt.Errorf("floor: stream %d: header split across reads", i)
				}
				c.hdr, b = true, b[k+4:]
				if len(b) == 0 {
					continue
				}
			}
			res.reads++
			// events: blank lines, the first maybe split from the last read
			k := bytes.Count(b, []byte("\n\n"))
			if c.tail[7] == '\n' && b[0] == '\n' {
				k++
			}
			r := &res.recs[i]
			for range k {
				if len(r.EventS) < tokens {
					r.EventS = append(r.EventS, now)
				}
			}
			res.events += int64(k)
			var t [16]byte
			copy(t[:8], c.tail[:])
			nt := copy(t[8:], b[max(0, len(b)-8):])
			copy(c.tail[:], t[nt:nt+8])
			if bytes.HasSuffix(t[:8+nt], end) {
				c.done = true
				left--
			}
		}
	}
	res.dur = time.Since(base).Seconds()
	res.cpuS = cpuTime() - cpu0
	res.csw = voluntaryCSW() - csw0
	return res, nil
}
