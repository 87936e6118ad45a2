package mock

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Server is the simulated engine as an http.Handler. Create it with New
// and Close it when done: Close ends in-flight streams and stops the
// batching scheduler.
type Server struct {
	cfg   Config
	tok   Tokenizer
	names []string
	mux   *http.ServeMux
	sched *scheduler // nil in fixed mode
	// pcache and spec are nil unless configured; sess tracks X-Session-ID
	pcache *prefixCache
	spec   *specCounters
	sess   sessions

	closing   chan struct{}
	closeOnce sync.Once
	readyAt   time.Time
	crashed   chan struct{}
	crashOnce sync.Once

	n     atomic.Uint64 // generation requests received: their arrival number
	stats struct {
		completed, errors, stalls, cuts, garbage atomic.Uint64
		promptTokens, outputTokens               atomic.Uint64
		cacheQueries, cacheHits, profileCalls    atomic.Uint64
	}
}

// Stats counts what the server has done so far.
type Stats struct {
	Requests     uint64 // generation requests that passed validation
	Completed    uint64 // streams or responses finished with all tokens
	Errors       uint64 // injected HTTP 500s
	Stalls       uint64 // injected stalls (counted when they start)
	Cuts         uint64 // injected connection cuts
	Garbage      uint64 // injected malformed events
	PromptTokens uint64 // of requests that passed validation
	OutputTokens uint64 // tokens written to clients
	Steps        uint64 // batching steps run (0 in fixed mode)
	Running      int    // sequences in the batch after the last step plan
	Waiting      int    // sequences queued after the last step plan
	// CachedTokens are prompt tokens found in the prefix cache.
	CachedTokens uint64
	// Sessions are the X-Session-ID values seen, SessionTurns their
	// requests, and HistoryMismatches the turns whose messages were not
	// the previous turn's plus the mock's reply plus one new message.
	Sessions          int
	SessionTurns      uint64
	HistoryMismatches uint64
	// ProfileCalls counts POST /start_profile and /stop_profile.
	ProfileCalls uint64
}

var errClosed = errors.New("mock: server closed")

// ErrCrashed is what Running.Wait returns after a simulated crash
// (Config.CrashAfterRequests).
var ErrCrashed = errors.New("mock: simulated engine crash")

// New checks cfg and returns a server; in batching mode its scheduler
// goroutine is already running.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, names: cfg.servedNames(), closing: make(chan struct{}),
		crashed: make(chan struct{}), readyAt: time.Now().Add(cfg.StartupDelay)}
	if cfg.Batching != nil {
		s.sched = newScheduler(*cfg.Batching)
	}
	if cfg.PrefixCache != nil {
		s.pcache = newPrefixCache(*cfg.PrefixCache)
	}
	if cfg.SpecDecode != nil {
		s.spec = &specCounters{}
	}
	m := http.NewServeMux()
	m.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {})
	m.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]string{"version": "perflab-mock"})
	})
	m.HandleFunc("GET /v1/models", s.handleModels)
	m.HandleFunc("GET /metrics", s.handleMetrics)
	m.HandleFunc("GET /ping", func(w http.ResponseWriter, r *http.Request) {})
	for _, prefix := range []string{"", "/v1"} { // vLLM's paths, and SGLang's too
		m.HandleFunc("POST "+prefix+"/tokenize", s.handleTokenize)
		m.HandleFunc("POST "+prefix+"/detokenize", s.handleDetokenize)
	}
	for _, route := range []string{"POST /start_profile", "POST /stop_profile"} { // vLLM's profiler routes
		m.HandleFunc(route, func(w http.ResponseWriter, r *http.Request) { s.stats.profileCalls.Add(1) })
	}
	m.HandleFunc("POST /v1/completions", func(w http.ResponseWriter, r *http.Request) { s.handleGen(w, r, false) })
	m.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { s.handleGen(w, r, true) })
	s.mux = m
	return s, nil
}

// ServeHTTP serves the engine's routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	select {
	case <-s.crashed:
		panic(http.ErrAbortHandler) // a crashed engine answers nothing
	default:
	}
	if s.cfg.StartupDelay > 0 && time.Now().Before(s.readyAt) {
		if r.URL.Path == "/health" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		writeError(w, &apiError{http.StatusServiceUnavailable, "ServiceUnavailableError", "mock: the model is still loading"})
		return
	}
	s.mux.ServeHTTP(w, r)
}

// Crashed is closed when the engine has crashed (Config.CrashAfterRequests).
func (s *Server) Crashed() <-chan struct{} { return s.crashed }

// crash simulates the engine dying: in-flight streams stop at once and
// every later request is dropped.
func (s *Server) crash() {
	s.crashOnce.Do(func() { close(s.crashed) })
	s.Close()
}

// Close ends in-flight streams (they stop without [DONE]) and stops the
// scheduler. It is safe to call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.closing)
		if s.sched != nil {
			s.sched.close()
		}
	})
	return nil
}

// Tokenizer is the server's tokenizer, for in-process clients.
func (s *Server) Tokenizer() Tokenizer { return s.tok }

// Stats returns the counters so far.
func (s *Server) Stats() Stats {
	st := Stats{
		Requests:     s.n.Load(),
		Completed:    s.stats.completed.Load(),
		Errors:       s.stats.errors.Load(),
		Stalls:       s.stats.stalls.Load(),
		Cuts:         s.stats.cuts.Load(),
		Garbage:      s.stats.garbage.Load(),
		PromptTokens: s.stats.promptTokens.Load(),
		OutputTokens: s.stats.outputTokens.Load(),
		CachedTokens: s.stats.cacheHits.Load(),
		ProfileCalls: s.stats.profileCalls.Load(),
	}
	st.Sessions, st.SessionTurns, st.HistoryMismatches = s.sess.counts()
	if s.sched != nil {
		st.Steps = uint64(s.sched.steps.Load())
		st.Running = int(s.sched.running.Load())
		st.Waiting = int(s.sched.waiting.Load())
	}
	return st
}

// checkModel resolves the request's model name: nil or "" is the first
// served name, an unknown one is vLLM's 404.
func (s *Server) checkModel(m *string) (string, *apiError) {
	if m == nil || *m == "" {
		return s.names[0], nil
	}
	if !slices.Contains(s.names, *m) {
		return "", &apiError{http.StatusNotFound, "NotFoundError", fmt.Sprintf("The model `%s` does not exist.", *m)}
	}
	return *m, nil
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	type model struct {
		ID          string  `json:"id"`
		Object      string  `json:"object"`
		Created     int64   `json:"created"`
		OwnedBy     string  `json:"owned_by"`
		Root        string  `json:"root"`
		Parent      *string `json:"parent"`
		MaxModelLen int     `json:"max_model_len"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list"}
	now := time.Now().Unix()
	for _, n := range s.names {
		list.Data = append(list.Data, model{ID: n, Object: "model", Created: now, OwnedBy: "perflab-mock", Root: s.cfg.model(), MaxModelLen: s.cfg.maxModelLen()})
	}
	writeJSON(w, list)
}

// handleMetrics serves a few of vLLM's Prometheus series, so a collector
// can scrape the mock as it would vLLM.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	st := s.Stats()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	label := `{model_name="` + s.names[0] + `"}`
	for _, m := range []struct {
		name, kind string
		v          uint64
	}{
		{"vllm:num_requests_running", "gauge", uint64(st.Running)},
		{"vllm:num_requests_waiting", "gauge", uint64(st.Waiting)},
		{"vllm:prompt_tokens_total", "counter", st.PromptTokens},
		{"vllm:generation_tokens_total", "counter", st.OutputTokens},
		{"vllm:request_success_total", "counter", st.Completed},
	} {
		fmt.Fprintf(w, "# TYPE %s %s\n%s%s %d\n", m.name, m.kind, m.name, label, m.v)
	}
	s.featureMetrics(w, label)
}

func (s *Server) handleTokenize(w http.ResponseWriter, r *http.Request) {
	var req tokenizeRequest
	if e := decodeBody(r, &req); e != nil {
		writeError(w, e)
		return
	}
	if _, e := s.checkModel(req.Model); e != nil {
		writeError(w, e)
		return
	}
	var ids []int
	switch {
	case len(req.Messages) > 0:
		ids, _ = s.tok.Encode(ChatPrompt(req.Messages))
	case len(req.Prompt) > 0:
		text, given, err := promptText(req.Prompt, s.tok)
		if err != nil {
			writeError(w, badRequest("%v", err))
			return
		}
		if ids = given; ids == nil {
			ids, _ = s.tok.Encode(text)
		}
	default:
		writeError(w, badRequest("prompt or messages is required"))
		return
	}
	resp := struct {
		Count       int      `json:"count"`
		MaxModelLen int      `json:"max_model_len"`
		Tokens      []int    `json:"tokens"`
		TokenStrs   []string `json:"token_strs,omitempty"`
	}{Count: len(ids), MaxModelLen: s.cfg.maxModelLen(), Tokens: ids}
	if req.ReturnTokenStr {
		resp.TokenStrs = make([]string, len(ids))
		for i, id := range ids {
			resp.TokenStrs[i], _ = s.tok.Piece(id)
		}
	}
	writeJSON(w, resp)
}

func (s *Server) handleDetokenize(w http.ResponseWriter, r *http.Request) {
	var req tokenizeRequest
	if e := decodeBody(r, &req); e != nil {
		writeError(w, e)
		return
	}
	if _, e := s.checkModel(req.Model); e != nil {
		writeError(w, e)
		return
	}
	if req.Tokens == nil {
		writeError(w, badRequest("tokens is required"))
		return
	}
	text, err := s.tok.Decode(req.Tokens)
	if err != nil {
		writeError(w, badRequest("tokens: %v", err))
		return
	}
	writeJSON(w, map[string]string{"prompt": text})
}

// job is one validated generation request.
type job struct {
	chat      bool
	stream    bool
	model     string
	id        string
	created   int64
	promptLen int
	outLen    int
	finish    string // finish_reason of the last token: "length" or "stop"
	textSeed  uint64 // generated token k is outputToken(mix(textSeed + k))
	usage     bool   // stream_options.include_usage
	contUsage bool   // stream_options.continuous_usage_stats
	fault     fault
	faultAt   int
	cached    int // prompt tokens found in the prefix cache
}

// parse validates a generation request as vLLM would.
func (s *Server) parse(r *http.Request, chat bool) (*job, *apiError) {
	var req genRequest
	if e := decodeBody(r, &req); e != nil {
		return nil, e
	}
	model, e := s.checkModel(req.Model)
	if e != nil {
		return nil, e
	}
	j := &job{chat: chat, model: model, created: time.Now().Unix()}
	var prompt string
	var ids []int // the prompt's token ids, when the prefix cache needs them
	if chat {
		if len(req.Messages) == 0 {
			return nil, badRequest("messages is required")
		}
		prompt = ChatPrompt(req.Messages)
		j.promptLen = s.tok.Count(prompt)
	} else {
		text, given, err := promptText(req.Prompt, s.tok)
		if err != nil {
			return nil, badRequest("%v", err)
		}
		prompt, j.promptLen, ids = text, len(given), given
		if given == nil {
			j.promptLen = s.tok.Count(text)
		}
	}
	if req.StreamOptions != nil && !req.Stream {
		return nil, badRequest("Stream options can only be defined when `stream=True`.")
	}
	if req.N != nil && *req.N != 1 {
		return nil, badRequest("n is %d; the mock generates one choice (n=1)", *req.N)
	}
	maxTok, field := req.MaxTokens, "max_tokens"
	if chat && req.MaxCompletionTokens != nil {
		maxTok, field = req.MaxCompletionTokens, "max_completion_tokens"
	}
	ctxLen := s.cfg.maxModelLen()
	left := ctxLen - j.promptLen
	switch {
	case maxTok != nil && *maxTok < 1:
		return nil, badRequest("%s must be at least 1, got %d.", field, *maxTok)
	case left < 1 || maxTok != nil && *maxTok > left:
		want := j.promptLen + 1
		if maxTok != nil {
			want = j.promptLen + *maxTok
		}
		return nil, badRequest("This model's maximum context length is %d tokens. However, you requested %d tokens (%d in the messages, %d in the completion). Please reduce the length of the messages or completion.",
			ctxLen, want, j.promptLen, want-j.promptLen)
	}
	j.outLen, j.finish = left, "length"
	if maxTok != nil {
		j.outLen = *maxTok
	}
	j.textSeed = mix(fnv64(prompt) ^ uint64(s.cfg.Seed))
	if mean := s.cfg.eosMean(); !req.IgnoreEOS && mean > 0 {
		natural := 1 + int(mix(j.textSeed)%uint64(2*mean-1))
		natural = max(natural, req.MinTokens)
		if natural < j.outLen {
			j.outLen, j.finish = natural, "stop"
		}
	}
	if o := req.StreamOptions; o != nil && req.Stream {
		j.usage, j.contUsage = o.IncludeUsage, o.ContinuousUsageStats
	}
	n := s.n.Add(1) - 1
	if c := s.cfg.CrashAfterRequests; c > 0 && n >= uint64(c) {
		s.crash()
		panic(http.ErrAbortHandler)
	}
	j.fault, j.faultAt = decideFault(s.cfg.Seed, s.cfg.Faults, n, j.outLen)
	prefix := "cmpl-"
	if chat {
		prefix = "chatcmpl-"
	}
	j.id = fmt.Sprintf("%s%016x%016x", prefix, draw(s.cfg.Seed, n, streamID), draw(s.cfg.Seed, n, streamID+1))
	s.stats.promptTokens.Add(uint64(j.promptLen))
	j.stream = req.Stream
	if s.pcache != nil {
		if ids == nil {
			ids, _ = s.tok.Encode(prompt)
		}
		j.cached = s.pcache.lookup(ids)
		s.stats.cacheQueries.Add(uint64(j.promptLen))
		s.stats.cacheHits.Add(uint64(j.cached))
	}
	if s.spec != nil {
		s.spec.add(*s.cfg.SpecDecode, j.textSeed, j.outLen)
	}
	if id := r.Header.Get("X-Session-ID"); id != "" && chat {
		s.sess.turn(id, req.Messages, replyText(j))
	}
	return j, nil
}

// pacer says when tokens are ready. wait blocks until token k (from 0) may
// be written and returns how many tokens may be written by now (> k).
type pacer interface {
	wait(ctx context.Context, k int) (int, error)
	// shift delays every later token by d (after a stall).
	shift(d time.Duration)
	release()
}

// fixedPacer is the fixed timing mode: absolute deadlines from arrival.
type fixedPacer struct {
	start     time.Time
	ttft, itl time.Duration
	closing   <-chan struct{}
	timer     *time.Timer
}

func (p *fixedPacer) wait(ctx context.Context, k int) (int, error) {
	deadline := p.start.Add(p.ttft + time.Duration(k)*p.itl)
	late := -time.Until(deadline)
	if late < 0 {
		if p.timer == nil {
			p.timer = time.NewTimer(-late)
		} else {
			p.timer.Reset(-late)
		}
		select {
		case <-p.timer.C:
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-p.closing:
			return 0, errClosed
		}
		return k + 1, nil
	}
	// Behind schedule (an overloaded box): every token already due.
	if p.itl == 0 {
		return math.MaxInt, nil
	}
	return k + 1 + int(late/p.itl), nil
}

func (p *fixedPacer) shift(d time.Duration) { p.start = p.start.Add(d) }

func (p *fixedPacer) release() {
	if p.timer != nil {
		p.timer.Stop()
	}
}

// batchPacer follows a sequence in the batching scheduler.
type batchPacer struct {
	q       *seq
	closing <-chan struct{}
}

func (p *batchPacer) wait(ctx context.Context, k int) (int, error) {
	for {
		if n := int(p.q.produced.Load()); n > k {
			return n, nil
		}
		select {
		case <-p.q.notify:
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-p.closing:
			return 0, errClosed
		}
	}
}

func (p *batchPacer) shift(time.Duration) {}

// release drops the sequence from the batch if it is still there (client
// gone, cut, server closing); a finished one is already out.
func (p *batchPacer) release() { p.q.aborted.Store(true) }

func (s *Server) handleGen(w http.ResponseWriter, r *http.Request, chat bool) {
	arrival := time.Now()
	j, e := s.parse(r, chat)
	if e != nil {
		writeError(w, e)
		return
	}
	if j.fault == faultError {
		s.stats.errors.Add(1)
		writeError(w, &apiError{http.StatusInternalServerError, "InternalServerError", "mock: injected fault"})
		return
	}
	var p pacer
	if s.sched != nil {
		q := newSeq(j.promptLen, j.outLen)
		q.prefilled = min(j.cached, q.promptLen-1) // cached blocks need no prefill
		s.sched.submit(q)
		p = &batchPacer{q: q, closing: s.closing}
	} else {
		ttft := s.cfg.TTFT
		if j.cached > 0 && j.promptLen > 0 {
			// only the uncached part of the prompt is prefilled
			ttft = time.Duration(float64(ttft) * float64(j.promptLen-j.cached) / float64(j.promptLen))
		}
		p = &fixedPacer{start: arrival, ttft: ttft, itl: s.cfg.ITL, closing: s.closing}
	}
	defer p.release()
	if j.fault == faultCut {
		// Counted before the panic that closes the connection.
		defer func() {
			if v := recover(); v != nil {
				s.stats.cuts.Add(1)
				panic(v)
			}
		}()
	}
	if j.stream {
		s.stream(r.Context(), w, j, p)
	} else {
		s.respond(r.Context(), w, j, p)
	}
}
