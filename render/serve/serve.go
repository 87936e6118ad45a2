package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"time"
)

// Config configures a preview server. The zero value of every field but
// Build means the documented default.
type Config struct {
	// Addr is the TCP address to listen on; default "127.0.0.1:8080".
	// Port 0 picks a free port (see Server.URL).
	Addr string
	// Site is the directory the build writes and the server serves;
	// default "site".
	Site string
	// BaseURL is the path prefix the site is built for; default "/".
	// Requests outside it are redirected to it.
	BaseURL string
	// Watch lists the directories whose changes trigger a rebuild,
	// recursively; default content, results and templates. Missing ones
	// are watched for their creation.
	Watch []string
	// Build renders the site into Site. changed lists the absolute paths
	// seen changing since the previous build; nil means "everything" (the
	// first build, or after the watcher lost events). Build must leave
	// Site as it was when it fails (render.Build does). Required.
	Build func(ctx context.Context, changed []string) error
	// Quiet is how long the inputs must stay unchanged before a rebuild
	// starts, so a burst (an editor's save-by-rename, a collector writing
	// many results) gives one build; default 20ms.
	Quiet time.Duration
	// MaxWait bounds how long a continuous stream of changes can hold a
	// rebuild back; default 1s.
	MaxWait time.Duration
	// Log receives one line per build and per problem; default io.Discard.
	Log io.Writer
}

// Endpoint paths, below the base URL.
const (
	eventsPath = "__perflab/events"
	scriptPath = "__perflab/livereload.js"
)

// Server is a running preview server. Start makes one; Wait or Close ends it.
type Server struct {
	cfg      Config
	ln       net.Listener
	http     *http.Server
	watch    *watcher
	cancel   context.CancelFunc
	loopDone chan struct{}
	serveErr chan error
	instance string // random per process: a restarted server reloads the pages

	mu       sync.Mutex
	gen      int           // successful builds so far
	buildErr *BuildError   // the last build's error; nil after a success
	busy     bool          // a change is seen and not yet built
	idle     chan struct{} // closed while !busy; page requests wait on it
	changed  []string
	full     bool
	kick     chan struct{} // cap 1: the build loop has something to do
	subs     map[chan struct{}]struct{}
	closing  chan struct{} // closed at shutdown: event streams end

	waitOnce sync.Once
	waitErr  error
}

// Start checks cfg, binds the address, starts watching, building and
// serving, and returns. Page requests wait for the first build; a failed
// build is shown in the browser, not returned. The server stops when ctx
// is cancelled or Close is called.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.Build == nil {
		return nil, errors.New("serve: no build function")
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:8080"
	}
	if cfg.Site == "" {
		cfg.Site = "site"
	}
	base, err := cleanBase(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	cfg.BaseURL = base
	if cfg.Watch == nil {
		cfg.Watch = []string{"content", "results", "templates"}
	}
	if cfg.Quiet <= 0 {
		cfg.Quiet = 20 * time.Millisecond
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = time.Second
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	site, err := filepath.Abs(cfg.Site)
	if err != nil {
		return nil, fmt.Errorf("serve: %s: %w", cfg.Site, err)
	}
	cfg.Site = site

	var id [6]byte
	_, _ = rand.Read(id[:])
	ctx, cancel := context.WithCancel(ctx)
	s := &Server{
		cfg:      cfg,
		cancel:   cancel,
		loopDone: make(chan struct{}),
		serveErr: make(chan error, 1),
		instance: hex.EncodeToString(id[:]),
		busy:     true, // until the first build is done
		idle:     make(chan struct{}),
		kick:     make(chan struct{}, 1),
		subs:     map[chan struct{}]struct{}{},
		closing:  make(chan struct{}),
	}
	s.ln, err = net.Listen("tcp", cfg.Addr)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("serve: listen: %w", err)
	}
	// Watch before the first build, so a change made during it is not lost.
	s.watch, err = newWatcher(cfg.Watch, []string{cfg.Site}, s.note, s.logf)
	if err != nil {
		s.ln.Close()
		cancel()
		return nil, fmt.Errorf("serve: %w", err)
	}
	s.http = &http.Server{
		Handler:           s.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go func() { s.serveErr <- s.http.Serve(s.ln) }()
	go s.loop(ctx)
	return s, nil
}

// URL is the address of the site's root, e.g. "http://127.0.0.1:8080/".
func (s *Server) URL() string {
	return "http://" + s.ln.Addr().String() + s.cfg.BaseURL
}

// Close stops the server and waits until it has stopped.
func (s *Server) Close() error {
	s.cancel()
	return s.Wait()
}

// Wait blocks until the server stops (its context is cancelled or Close is
// called), shuts it down cleanly: open event streams end, requests in
// flight finish (for up to 5s), the watcher is closed, and returns the
// first error that was not part of stopping.
func (s *Server) Wait() error {
	s.waitOnce.Do(func() { s.waitErr = s.stop() })
	return s.waitErr
}

func (s *Server) stop() error {
	var err error
	select {
	case err = <-s.serveErr: // the listener failed
		s.cancel()
	case <-s.loopDone:
	}
	<-s.loopDone
	close(s.closing)
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if e := s.http.Shutdown(shut); e != nil && err == nil {
		err = e
	}
	if e := s.watch.Close(); e != nil && err == nil {
		err = e
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

func (s *Server) logf(format string, a ...any) {
	fmt.Fprintf(s.cfg.Log, format+"\n", a...)
}

// note records changed paths (from the watcher) and holds page requests
// back until they are built.
func (s *Server) note(paths []string, full bool) {
	s.mu.Lock()
	s.changed = append(s.changed, paths...)
	s.full = s.full || full
	if !s.busy {
		s.busy = true
		s.idle = make(chan struct{})
	}
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// loop makes the first build, then waits for changes, lets a burst
// settle, and rebuilds, until ctx ends.
func (s *Server) loop(ctx context.Context) {
	defer close(s.loopDone)
	s.build(ctx, nil)
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
		}
		// A burst: wait until it has been quiet for cfg.Quiet, or MaxWait.
		quiet.Reset(s.cfg.Quiet)
		limit := time.NewTimer(s.cfg.MaxWait)
	settle:
		for {
			select {
			case <-ctx.Done():
				limit.Stop()
				return
			case <-s.kick:
				quiet.Reset(s.cfg.Quiet)
			case <-quiet.C:
				break settle
			case <-limit.C:
				break settle
			}
		}
		limit.Stop()
		quiet.Stop()
		s.mu.Lock()
		changed, full := s.changed, s.full
		s.changed, s.full = nil, false
		s.mu.Unlock()
		if full {
			changed = nil
		} else if len(changed) == 0 {
			// A wake-up left over from changes an earlier build took.
			s.mu.Lock()
			if s.busy && len(s.changed) == 0 && !s.full {
				s.busy = false
				close(s.idle)
			}
			s.mu.Unlock()
			continue
		}
		s.build(ctx, changed)
	}
}

// build runs cfg.Build and publishes the outcome to the open pages. Page
// requests stay held while more changes are waiting.
func (s *Server) build(ctx context.Context, changed []string) {
	start := time.Now()
	err := s.cfg.Build(ctx, changed)
	if ctx.Err() != nil {
		return // stopping: the outcome no longer matters
	}
	s.mu.Lock()
	if err != nil {
		s.buildErr = newBuildError(err)
	} else {
		s.gen++
		s.buildErr = nil
	}
	if len(s.changed) == 0 && !s.full {
		s.busy = false
		close(s.idle)
	}
	for ch := range s.subs {
		select {
		case ch <- struct{}{}:
		default: // it has an update pending; it will read the newest state
		}
	}
	s.mu.Unlock()
	what := "all"
	if changed != nil {
		what = fmt.Sprintf("%d changed", len(changed))
	}
	if err != nil {
		s.logf("build (%s) failed in %v: %v", what, time.Since(start).Round(time.Millisecond), err)
	} else {
		s.logf("build (%s) done in %v", what, time.Since(start).Round(time.Millisecond))
	}
}

// state is what the page script compares against its own copy.
type state struct {
	Instance string      `json:"instance"`
	Gen      int         `json:"gen"`
	Error    *BuildError `json:"error"`
}

func (s *Server) current() state {
	s.mu.Lock()
	defer s.mu.Unlock()
	return state{Instance: s.instance, Gen: s.gen, Error: s.buildErr}
}

// settled waits until no change is pending, or the request ends.
func (s *Server) settled(ctx context.Context) (state, bool) {
	for {
		s.mu.Lock()
		if !s.busy {
			st := state{Instance: s.instance, Gen: s.gen, Error: s.buildErr}
			s.mu.Unlock()
			return st, true
		}
		idle := s.idle
		s.mu.Unlock()
		select {
		case <-idle:
		case <-ctx.Done():
			return state{}, false
		case <-s.closing:
			return state{}, false
		}
	}
}
