package bench

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/metrics"
	"github.com/perflab/perflab/collect/openai"
	"github.com/perflab/perflab/collect/schema"
)

// sessionState is what request needs to send turn i of a conversation:
// the messages before it, the session id and the turn number.
type sessionState struct {
	history [][]string
	id      []string
	turn    []int
}

// measureSessions runs cfg.Conversations: SessionConcurrency workers each
// take the next conversation and send its turns one after the other, each
// with the whole history so far (the server's replies as it streamed
// them). A failed turn ends its conversation: the next turn would need its
// reply. The records come back in dataset order (conversation, then
// turn), each with Session and Turn set.
func measureSessions(ctx context.Context, cfg Config) (*schema.Result, float64, error) {
	convs := cfg.Conversations
	st := &sessionState{}
	first := make([]int, len(convs))
	var samples []dataset.Sample
	for c, conv := range convs {
		if len(conv.Turns) == 0 {
			return nil, 0, fmt.Errorf("bench: conversation %s has no turns", conv.ID)
		}
		first[c] = len(samples)
		for t, turn := range conv.Turns {
			samples = append(samples, dataset.Sample{Prompt: turn.Content, PromptLen: turn.ContentLen, OutputLen: turn.OutputLen})
			st.id = append(st.id, conv.ID) // prefixed below
			st.turn = append(st.turn, t+1)
		}
	}
	st.history = make([][]string, len(samples))
	cfg.Samples = samples
	n := len(samples)
	workers := cfg.SessionConcurrency
	if workers <= 0 {
		workers = cfg.MaxConcurrency
	}
	if workers <= 0 || workers > len(convs) {
		workers = len(convs)
	}
	r := newRunner(cfg)
	if r.idPfx == "" {
		r.idPfx = requestIDPrefix()
	}
	if r.client == nil {
		r.client = newClient(workers, workers)
		defer r.client.CloseIdleConnections()
	}
	// warmups are single turns outside any session
	if err := r.warmup(ctx); err != nil {
		return nil, 0, err
	}
	if cfg.AfterWarmup != nil {
		if err := cfg.AfterWarmup(ctx); err != nil {
			return nil, 0, err
		}
	}
	for i := range st.id {
		// unique per run, as vllm-bench's request-id prefix + "conv-N"
		st.id[i] = r.idPfx + st.id[i]
	}
	r.sessions = st

	res := &schema.Result{
		Status: schema.StatusOK,
		Engine: schema.Engine{BaseURL: cfg.BaseURL},
		Model:  schema.Model{ID: cfg.Model},
		Tool:   schema.Tool{Name: "perflab bench"},
		Load: schema.Load{
			Backend: cfg.Backend, Endpoint: cfg.Endpoint, NumPrompts: n, Conversations: len(convs),
			MaxConcurrency: cfg.MaxConcurrency, Seed: cfg.Seed, IgnoreEOS: cfg.IgnoreEOS, NumWarmups: cfg.NumWarmups,
			Burstiness: 1,
		},
	}
	if len(cfg.ExtraBody) > 0 {
		res.Load.ExtraBody = openai.AppendObject(nil, cfg.ExtraBody)
	}
	recs := make([]schema.Request, n)
	sent := make([]bool, n)
	stopProgress := r.progress(n)
	cpu0 := cpuTime()
	r.base = time.Now()
	if cfg.onStart != nil {
		cfg.onStart(r.base)
	}
	res.Start = r.base.UTC().Format(time.RFC3339Nano)
	var next atomic.Int64
	var cutShort atomic.Int64 // conversations ended by a failed turn
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c := int(next.Add(1) - 1)
				if c >= len(convs) || ctx.Err() != nil {
					return
				}
				if !r.conversation(ctx, convs[c], first[c], recs, sent) {
					cutShort.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	dur := time.Since(r.base).Seconds()
	cpu := cpuTime() - cpu0
	stopProgress()
	res.End = time.Now().UTC().Format(time.RFC3339Nano)

	kept := make([]schema.Request, 0, n)
	for i := range recs {
		if sent[i] {
			kept = append(kept, recs[i])
		}
	}
	res.Requests = kept
	countErr := r.countText(ctx, kept)
	if !cfg.KeepText {
		for i := range kept {
			kept[i].GeneratedText = "" // kept only to build the history
		}
	}
	if ctx.Err() != nil && len(kept) < n {
		res.Status = schema.StatusInterrupted
		res.Error = "interrupted"
		res.Warnings = append(res.Warnings, fmt.Sprintf("interrupted: %d of %d turns finished before the run was stopped", len(kept), n))
	}
	res.Client = clientStats(kept, nil, r.events.Load(), dur, cpu)
	wcfg := cfg
	if countErr != nil {
		wcfg.CountText = nil
		res.Warnings = append(res.Warnings, fmt.Sprintf("counting output tokens with the tokenizer failed (%v)", countErr))
	}
	if k := cutShort.Load(); k > 0 && ctx.Err() == nil {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d of %d conversations stopped at a failed turn (the next turn needs its reply): %d of %d turns sent", k, len(convs), len(kept), n))
	}
	res.Warnings = append(res.Warnings, warnings(res, wcfg)...)
	return res, dur, nil
}

// conversation sends conv's turns in order from record index at; it
// reports false when a turn failed and the rest were not sent.
func (r *runner) conversation(ctx context.Context, conv dataset.Conversation, at int, recs []schema.Request, sent []bool) bool {
	var hist []string
	histTokens := 0
	for t, turn := range conv.Turns {
		i := at + t
		r.sessions.history[i] = hist
		// the prompt as the dataset knows it: every message so far, the
		// replies by their reported lengths (the template not counted)
		r.cfg.Samples[i].PromptLen = histTokens + turn.ContentLen
		recs[i].ArrivalS = time.Since(r.base).Seconds()
		if r.request(ctx, i, &recs[i], nil) {
			return true // stopped: not the conversation's fault
		}
		sent[i] = true
		if !recs[i].Success {
			return t == len(conv.Turns)-1
		}
		if !conv.NoHistory {
			hist = append(hist[:len(hist):len(hist)], turn.Content, recs[i].GeneratedText)
			histTokens += turn.ContentLen + recs[i].OutputTokens
		}
		if d := r.cfg.TurnDelay; d > 0 && t+1 < len(conv.Turns) {
			select {
			case <-time.After(d):
			case <-ctx.Done():
				return true
			}
		}
	}
	return true
}

// PerTurn summarizes a multi-turn run's records by turn.
func PerTurn(recs []schema.Request, opt metrics.Options) ([]schema.TurnSummary, error) {
	by := map[int][]schema.Request{}
	for _, rec := range recs {
		if rec.Turn > 0 {
			by[rec.Turn] = append(by[rec.Turn], rec)
		}
	}
	turns := make([]int, 0, len(by))
	for t := range by {
		turns = append(turns, t)
	}
	sort.Ints(turns)
	opt.DurationS = 0 // throughputs per turn mean nothing; latencies do
	var out []schema.TurnSummary
	for _, t := range turns {
		s, err := metrics.Summarize(by[t], opt)
		if err != nil {
			return nil, fmt.Errorf("bench: turn %d: %w", t, err)
		}
		out = append(out, schema.TurnSummary{Turn: t, Completed: s.Completed, Failed: s.Failed,
			TTFT: s.TTFT, TPOT: s.TPOT, ITL: s.ITL, E2EL: s.E2EL})
	}
	return out, nil
}
