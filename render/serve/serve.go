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
	"sort"
	"strconv"
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
	// Site as it was when it fails (render.Build does). It returns
	// ErrUnchanged when it succeeded without changing a file of Site:
	// the open pages are then not reloaded. Required.
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

// ErrUnchanged is what Config.Build returns when the site is up to date
// and the build changed none of its files (a log next to the results was
// appended to): not a failure, but no reason to reload the open pages.
var ErrUnchanged = errors.New("serve: site unchanged")

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
	gen      int         // successful builds so far
	buildErr *BuildError // the last build's error; nil after a success
	// seen counts the change notes so far (the first build counts as
	// one); built is the count the last finished build covered. A page
	// request waits until built reaches the seen of its arrival, so it
	// never gets a page older than a change made before it, and a stream
	// of later changes (a log being appended to) cannot hold it back.
	seen, built int
	progress    chan struct{} // closed and replaced whenever built grows
	changed     map[string]struct{}
	full        bool
	kick        chan struct{} // cap 1: the build loop has something to do
	hurry       chan struct{} // cap 1: a page request waits; build without settling
	subs        map[chan struct{}]struct{}
	closing     chan struct{} // closed at shutdown: event streams end

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
		seen:     1, // the first build
		progress: make(chan struct{}),
		changed:  map[string]struct{}{},
		kick:     make(chan struct{}, 1),
		hurry:    make(chan struct{}, 1),
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
// A server listening on every address (0.0.0.0, ::) gives its loopback
// one, which opens in a browser on this machine.
func (s *Server) URL() string {
	return "http://" + browserHost(s.ln.Addr()) + s.cfg.BaseURL
}

// browserHost is a listener's address as a browser should be given it.
func browserHost(a net.Addr) string {
	if ta, ok := a.(*net.TCPAddr); ok && ta.IP.IsUnspecified() {
		return net.JoinHostPort("127.0.0.1", strconv.Itoa(ta.Port))
	}
	return a.String()
}

// Close stops the server and waits until it has stopped.
func (s *Server) Close() error {
	s.cancel()
	return s.Wait()
}

// Wait blocks until the server stops (its context is cancelled or Close is
// called), shuts it down cleanly: open event streams end, requests in
// flight get up to 1s to finish before every connection is closed, the
// watcher is closed, and returns the first error that was not part of
// stopping.
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
	shut, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if e := s.http.Shutdown(shut); e != nil {
		// Connections a browser opened ahead and never used count as
		// busy for 5s; a preview has nothing worth waiting for them.
		s.http.Close()
		if !errors.Is(e, context.DeadlineExceeded) && err == nil {
			err = e
		}
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
// made from now on back until they are built.
func (s *Server) note(paths []string, full bool) {
	s.mu.Lock()
	for _, p := range paths {
		s.changed[p] = struct{}{}
	}
	s.full = s.full || full
	s.seen++
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
	s.mu.Lock()
	upto := s.seen // the first build covers what is noted so far
	s.changed, s.full = map[string]struct{}{}, false
	s.mu.Unlock()
	s.build(ctx, nil, upto)
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.kick:
		}
		// A burst: wait until it has been quiet for cfg.Quiet, or MaxWait.
		// Once a page request waits, later changes no longer put the build
		// off (a file written to all the time would otherwise make every
		// page load take MaxWait); the running Quiet still lets an editor's
		// save-by-rename finish.
		quiet.Reset(s.cfg.Quiet)
		hurried := false
		limit := time.NewTimer(s.cfg.MaxWait)
	settle:
		for {
			select {
			case <-ctx.Done():
				limit.Stop()
				return
			case <-s.kick:
				if !hurried {
					quiet.Reset(s.cfg.Quiet)
				}
			case <-quiet.C:
				break settle
			case <-limit.C:
				break settle
			case <-s.hurry:
				hurried = true
			}
		}
		limit.Stop()
		quiet.Stop()
		s.mu.Lock()
		upto := s.seen
		var changed []string
		for p := range s.changed {
			changed = append(changed, p)
		}
		sort.Strings(changed)
		full := s.full
		s.changed, s.full = map[string]struct{}{}, false
		s.mu.Unlock()
		if full {
			changed = nil
		} else if len(changed) == 0 {
			// A wake-up left over from changes an earlier build took.
			s.mu.Lock()
			s.advance(upto)
			s.mu.Unlock()
			continue
		}
		s.build(ctx, changed, upto)
	}
}

// build runs cfg.Build for the changes noted up to upto and publishes the
// outcome to the open pages and to the page requests waiting for it.
func (s *Server) build(ctx context.Context, changed []string, upto int) {
	start := time.Now()
	err := s.cfg.Build(ctx, changed)
	if ctx.Err() != nil {
		return // stopping: the outcome no longer matters
	}
	unchanged := errors.Is(err, ErrUnchanged)
	if unchanged {
		err = nil
	}
	s.mu.Lock()
	switch {
	case err != nil:
		s.buildErr = newBuildError(err)
	case unchanged:
		s.buildErr = nil // the pages served are the site's: no reload
	default:
		s.gen++
		s.buildErr = nil
	}
	s.advance(upto)
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
		if unchanged {
			what += ", site unchanged"
		}
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

// advance records that the changes noted up to upto are built (or failed
// to build) and wakes the requests waiting. s.mu must be held.
func (s *Server) advance(upto int) {
	if upto > s.built {
		s.built = upto
		close(s.progress)
		s.progress = make(chan struct{})
	}
}

// settled waits until every change noted before the call is built, or the
// request ends. Changes noted later do not hold it back.
func (s *Server) settled(ctx context.Context) (state, bool) {
	s.mu.Lock()
	target := s.seen
	s.mu.Unlock()
	for {
		s.mu.Lock()
		if s.built >= target {
			st := state{Instance: s.instance, Gen: s.gen, Error: s.buildErr}
			s.mu.Unlock()
			return st, true
		}
		progress := s.progress
		s.mu.Unlock()
		select {
		case s.hurry <- struct{}{}:
		default:
		}
		select {
		case <-progress:
		case <-ctx.Done():
			return state{}, false
		case <-s.closing:
			return state{}, false
		}
	}
}
