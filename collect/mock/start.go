package mock

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Running is a mock engine serving on a TCP address.
type Running struct {
	// URL is the base URL, "http://127.0.0.1:PORT" (no trailing slash).
	URL string
	// Addr is the bound address, "127.0.0.1:PORT".
	Addr   string
	Server *Server

	http *http.Server
	errc chan error
	stop context.CancelFunc
	once sync.Once
	done chan struct{}
	err  error
}

// Start serves cfg on 127.0.0.1 at a free port. It stops when ctx ends or
// Close is called.
func Start(ctx context.Context, cfg Config) (*Running, error) {
	return Listen(ctx, "127.0.0.1:0", cfg)
}

// Listen serves cfg on addr ("host:port"; port 0 picks a free one). It
// stops when ctx ends or Close is called.
func Listen(ctx context.Context, addr string, cfg Config) (*Running, error) {
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("mock: listen %s: %w", addr, err)
	}
	ctx, stop := context.WithCancel(ctx)
	r := &Running{
		URL:    "http://" + ln.Addr().String(),
		Addr:   ln.Addr().String(),
		Server: s,
		http:   &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second},
		errc:   make(chan error, 1),
		stop:   stop,
		done:   make(chan struct{}),
	}
	go func() { r.errc <- r.http.Serve(ln) }()
	go func() {
		select {
		case <-ctx.Done():
		case <-s.Crashed():
		}
		r.shutdown()
	}()
	return r, nil
}

// Close ends in-flight streams, stops serving and waits for the server's
// goroutines. It returns the serve error, if serving failed, or
// ErrCrashed (wrapped) after a simulated crash.
func (r *Running) Close() error {
	r.stop()
	r.shutdown()
	return r.err
}

// Wait blocks until the server has stopped (after Close or the end of
// Listen's ctx) and returns what Close returns.
func (r *Running) Wait() error {
	<-r.done
	return r.err
}

func (r *Running) shutdown() {
	r.once.Do(func() {
		defer close(r.done)
		r.Server.Close() // in-flight handlers return
		select {
		case <-r.Server.Crashed():
			r.http.Close() // drop every connection, as a dead process would
			<-r.errc
			r.err = fmt.Errorf("mock: %s: %w after %d requests", r.Addr, ErrCrashed, r.Server.cfg.CrashAfterRequests)
			return
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := r.http.Shutdown(ctx)
		if serr := <-r.errc; !errors.Is(serr, http.ErrServerClosed) {
			err = errors.Join(err, serr)
		}
		if err != nil {
			r.err = fmt.Errorf("mock: shutdown %s: %w", r.Addr, err)
		}
	})
}
