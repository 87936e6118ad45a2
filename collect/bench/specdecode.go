package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/schema"
)

// SpecCounters are vLLM's speculative-decoding counters at one moment,
// summed over the label sets (engines) a server reports.
type SpecCounters struct {
	Drafts, DraftTokens, Accepted float64
	PerPos                        map[int]float64
}

// vLLM's Prometheus names (V1 engine).
const (
	specDrafts      = "vllm:spec_decode_num_drafts_total"
	specDraftTokens = "vllm:spec_decode_num_draft_tokens_total"
	specAccepted    = "vllm:spec_decode_num_accepted_tokens_total"
	specPerPos      = "vllm:spec_decode_num_accepted_tokens_per_pos_total"
)

// ScrapeSpecDecode reads base/metrics and returns the spec-decode
// counters, or nil when the server exposes none (no /metrics, or no
// speculative decoding), as vLLM's client skips the section then.
func ScrapeSpecDecode(ctx context.Context, client *http.Client, base string) (*SpecCounters, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metrics", nil)
	if err != nil {
		return nil, fmt.Errorf("bench: spec decode metrics: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("bench: spec decode metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil
	}
	return parseSpecCounters(io.LimitReader(resp.Body, 64<<20))
}

// parseSpecCounters reads Prometheus text: `name{labels} value` lines.
func parseSpecCounters(r io.Reader) (*SpecCounters, error) {
	c := &SpecCounters{PerPos: map[int]float64{}}
	found := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "vllm:spec_decode_") {
			continue
		}
		name, labels := line, ""
		if i := strings.IndexByte(line, '{'); i >= 0 {
			j := strings.LastIndexByte(line, '}')
			if j < i {
				continue
			}
			name, labels = line[:i], line[i+1:j]
			line = name + line[j+1:]
		}
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			continue
		}
		name = f[0]
		switch name {
		case specDrafts:
			c.Drafts += v
		case specDraftTokens:
			c.DraftTokens += v
		case specAccepted:
			c.Accepted += v
		case specPerPos:
			pos, ok := label(labels, "position")
			n, err := strconv.Atoi(pos)
			if !ok || err != nil {
				continue
			}
			c.PerPos[n] += v
		default:
			continue
		}
		found = true
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("bench: spec decode metrics: %w", err)
	}
	if !found {
		return nil, nil
	}
	return c, nil
}

// label finds key="value" in a Prometheus label list.
func label(labels, key string) (string, bool) {
	for _, kv := range strings.Split(labels, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if ok && k == key {
			return strings.Trim(v, `"`), true
		}
	}
	return "", false
}

// SpecDecodeDelta is the run's speculative decoding from the counters
// before and after it, as vLLM's client computes it: acceptance rate =
// accepted / draft tokens × 100, acceptance length = 1 + accepted /
// drafts, per position = accepted at that position / drafts × 100. Nil
// when either is nil or no draft was made during the run.
func SpecDecodeDelta(before, after *SpecCounters) *schema.SpecDecode {
	if before == nil || after == nil {
		return nil
	}
	drafts := after.Drafts - before.Drafts
	tokens := after.DraftTokens - before.DraftTokens
	acc := after.Accepted - before.Accepted
	if drafts <= 0 {
		return nil
	}
	sd := &schema.SpecDecode{Drafts: int64(drafts), DraftTokens: int64(tokens), AcceptedTokens: int64(acc),
		AcceptanceLength: 1 + acc/drafts}
	if tokens > 0 {
		sd.AcceptanceRatePct = acc / tokens * 100
	}
	n := 0
	for p := range after.PerPos {
		n = max(n, p+1)
	}
	for p := range n {
		sd.PerPositionPct = append(sd.PerPositionPct, (after.PerPos[p]-before.PerPos[p])/drafts*100)
	}
	return sd
}
