package mock

import (
	"container/list"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
)

// PrefixCache is the automatic prefix cache (vLLM's
// --enable-prefix-caching): prompts are cut into blocks of BlockTokens
// tokens, each identified by a hash of its tokens and of every block
// before it; a request's leading blocks found in the cache are not
// prefilled again. The saving shows where prefill time does: in fixed
// mode TTFT shrinks to TTFT × uncached/prompt tokens, in batching mode the
// sequence starts its prefill after the cached tokens. As vLLM, the last
// prompt token is always computed.
type PrefixCache struct {
	// BlockTokens is the block size in tokens (0: 16, vLLM's default).
	BlockTokens int
	// Blocks is the capacity; the least recently used block goes first.
	// 0: unlimited.
	Blocks int
}

func (p PrefixCache) blockTokens() int {
	if p.BlockTokens <= 0 {
		return 16
	}
	return p.BlockTokens
}

// SpecDecode makes the mock report speculative decoding on /metrics with
// vLLM's counters (vllm:spec_decode_*): every request's output is made of
// drafts of NumSpecTokens proposed tokens, of which a leading run is
// accepted, each position with probability AcceptRate given the one
// before (so position i is accepted in AcceptRate^(i+1) of drafts); a
// draft yields its accepted tokens plus one. Which are accepted is fixed
// by the seed and the prompt. Token timing is unchanged.
type SpecDecode struct {
	NumSpecTokens int
	AcceptRate    float64
}

// prefixCache is PrefixCache's state: an LRU set of block hashes.
type prefixCache struct {
	cfg   PrefixCache
	mu    sync.Mutex
	lru   *list.List // of uint64, most recent first
	index map[uint64]*list.Element
}

func newPrefixCache(cfg PrefixCache) *prefixCache {
	return &prefixCache{cfg: cfg, lru: list.New(), index: map[uint64]*list.Element{}}
}

// lookup returns how many leading tokens of ids are cached, then caches
// every full block of ids.
func (c *prefixCache) lookup(ids []int) int {
	bt := c.cfg.blockTokens()
	c.mu.Lock()
	defer c.mu.Unlock()
	h := uint64(0x51afd7ed558ccd)
	hit, missed := 0, false
	for b := 0; (b+1)*bt <= len(ids); b++ {
		for _, id := range ids[b*bt : (b+1)*bt] {
			h = mix(h ^ uint64(id))
		}
		if e, ok := c.index[h]; ok {
			c.lru.MoveToFront(e)
			if !missed {
				hit += bt
			}
			continue
		}
		missed = true
		c.index[h] = c.lru.PushFront(h)
		if c.cfg.Blocks > 0 && c.lru.Len() > c.cfg.Blocks {
			old := c.lru.Back()
			c.lru.Remove(old)
			delete(c.index, old.Value.(uint64))
		}
	}
	return min(hit, len(ids)-1)
}

// sessions tracks chat sessions by their X-Session-ID header (vllm-bench's
// multi-turn mode): each turn must carry the whole conversation so far,
// the mock's own earlier replies included, or it counts as a broken
// history.
type sessions struct {
	mu sync.Mutex
	m  map[string]*session
	// counters
	turns, mismatches uint64
}

type session struct {
	msgs  int    // messages in the last turn's request
	reply string // the reply the mock generated for it
}

// turn checks msgs against the session's last turn and records this one,
// whose reply will be reply.
func (ss *sessions) turn(id string, msgs []Message, reply string) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.m == nil {
		ss.m = map[string]*session{}
	}
	ss.turns++
	if prev, ok := ss.m[id]; ok {
		if len(msgs) != prev.msgs+2 || msgs[prev.msgs].Role != "assistant" || msgs[prev.msgs].Content != prev.reply {
			ss.mismatches++
		}
	}
	ss.m[id] = &session{msgs: len(msgs), reply: reply}
}

func (ss *sessions) counts() (n int, turns, mismatches uint64) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.m), ss.turns, ss.mismatches
}

// specCounters are the spec-decode counters.
type specCounters struct {
	mu                            sync.Mutex
	drafts, draftTokens, accepted uint64
	perPos                        []uint64
}

// add simulates the drafts that produce outLen tokens, deterministically
// from seed.
func (c *specCounters) add(cfg SpecDecode, seed uint64, outLen int) {
	k := cfg.NumSpecTokens
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.perPos) < k {
		c.perPos = append(c.perPos, make([]uint64, k-len(c.perPos))...)
	}
	for made, d := 0, uint64(0); made < outLen; d++ {
		c.drafts++
		c.draftTokens += uint64(k)
		a := 0
		for a < k && float64(mix(seed+d*64+uint64(a))>>11)/(1<<53) < cfg.AcceptRate {
			c.perPos[a]++
			a++
		}
		c.accepted += uint64(a)
		made += a + 1
	}
}

// writeSpecMetrics writes vLLM's spec-decode counters in Prometheus text.
func (c *specCounters) write(w io.Writer, label string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range []struct {
		name string
		v    uint64
	}{
		{"vllm:spec_decode_num_drafts_total", c.drafts},
		{"vllm:spec_decode_num_draft_tokens_total", c.draftTokens},
		{"vllm:spec_decode_num_accepted_tokens_total", c.accepted},
	} {
		fmt.Fprintf(w, "# TYPE %s counter\n%s%s %d.0\n", m.name, m.name, label, m.v)
	}
	const pos = "vllm:spec_decode_num_accepted_tokens_per_pos_total"
	fmt.Fprintf(w, "# TYPE %s counter\n", pos)
	for i, v := range c.perPos {
		fmt.Fprintf(w, "%s%s,position=\"%d\"} %d.0\n", pos, label[:len(label)-1], i, v)
	}
}

// validate checks the optional features' fields.
func validateFeatures(c Config) error {
	if p := c.PrefixCache; p != nil && (p.BlockTokens < 0 || p.Blocks < 0) {
		return fmt.Errorf("mock: prefix cache: BlockTokens %d and Blocks %d must not be negative", p.BlockTokens, p.Blocks)
	}
	if s := c.SpecDecode; s != nil {
		if s.NumSpecTokens < 1 || s.NumSpecTokens > 64 {
			return fmt.Errorf("mock: spec decode: NumSpecTokens %d: want 1 to 64", s.NumSpecTokens)
		}
		if !(s.AcceptRate >= 0 && s.AcceptRate <= 1) || math.IsNaN(s.AcceptRate) {
			return fmt.Errorf("mock: spec decode: AcceptRate %g is outside [0, 1]", s.AcceptRate)
		}
	}
	return nil
}

// replyText is the text the mock generates for j (all its tokens).
func replyText(j *job) string {
	b := make([]byte, 0, 4*j.outLen)
	for k := 0; k < j.outLen; k++ {
		b, _ = appendPiece(b, outputToken(mix(j.textSeed+uint64(k))))
	}
	return string(b)
}

// featureMetrics writes the prefix cache's and the sessions' counters.
func (s *Server) featureMetrics(w io.Writer, label string) {
	if s.pcache != nil {
		fmt.Fprintf(w, "# TYPE vllm:prefix_cache_queries_total counter\nvllm:prefix_cache_queries_total%s %d.0\n", label, s.stats.cacheQueries.Load())
		fmt.Fprintf(w, "# TYPE vllm:prefix_cache_hits_total counter\nvllm:prefix_cache_hits_total%s %d.0\n", label, s.stats.cacheHits.Load())
	}
	if s.spec != nil {
		s.spec.write(w, label)
	}
	n, turns, bad := s.sess.counts()
	for _, m := range []struct {
		name string
		v    uint64
	}{
		{"perflab_mock_sessions", uint64(n)},
		{"perflab_mock_session_turns_total", turns},
		{"perflab_mock_session_history_mismatches_total", bad},
		{"perflab_mock_profile_calls_total", s.stats.profileCalls.Load()},
	} {
		fmt.Fprintf(w, "%s%s %s\n", m.name, label, strconv.FormatUint(m.v, 10))
	}
}
