package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perflab/perflab/collect/schema"
)

// VLLMLayout selects the key set of the --save-result JSON.
type VLLMLayout int

const (
	// LayoutNewest is the newest vLLM's key set (with latencies,
	// start_times, queue_times, rtfx and the client-queue groups).
	LayoutNewest VLLMLayout = iota
	// LayoutMid is the key set of late-2025 vLLM (≈ v0.11–v0.13): no
	// latencies, start_times, queue_times, rtfx or client-queue groups.
	LayoutMid
)

// KeyValue is one --metadata KEY=VALUE pair.
type KeyValue struct{ Key, Value string }

// MetadataFromMap returns m as --metadata pairs sorted by key (vLLM keeps
// the command-line order; a map has none).
func MetadataFromMap(m map[string]string) []KeyValue {
	kv := make([]KeyValue, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kv = append(kv, KeyValue{k, m[k]})
	}
	return kv
}

// VLLMHeader is what the --save-result JSON holds besides the summary.
type VLLMHeader struct {
	// Date is "%Y%m%d-%H%M%S" local time (VLLMDate).
	Date string
	// Backend is --backend (openai, openai-chat); written as both
	// endpoint_type and backend.
	Backend string
	// Label is --label; "" is written as null.
	Label string
	// ModelID is --model (the Hugging Face id).
	ModelID string
	// TokenizerID is the tokenizer used; "" is written as null (vLLM's
	// --skip-tokenizer-init).
	TokenizerID string
	// NumPrompts is --num-prompts.
	NumPrompts int
	// Metadata are the --metadata pairs in command-line order; keys and
	// values are trimmed as vLLM does. A key equal to a later key
	// (duration, …) keeps its place and takes the later value, as a Python
	// dict update does.
	Metadata []KeyValue
	// Options are the options the summary was computed with (embedded, so
	// h.RequestRate, h.Burstiness and h.MaxConcurrency are the JSON's
	// request_rate, burstiness and max_concurrency). They also choose the
	// metric groups written (Metrics, SkipTokenizer) and how the
	// per-request lists of the detailed JSON count tokens.
	Options
	// Layout is the vLLM version whose key set is written.
	Layout VLLMLayout
	// RampUpStrategy, RampUpStartRPS and RampUpEndRPS are --ramp-up-*
	// (written after max_concurrency when the strategy is set).
	RampUpStrategy               string
	RampUpStartRPS, RampUpEndRPS int
	// RPSChanges are the ramp-up's rps_change_events (written when set).
	RPSChanges []schema.RPSChange
	// PerTurn, when set, is written as "per_turn" (perflab's key: vLLM's
	// Python client has no multi-turn mode): per turn, completed, failed
	// and the mean, median and percentiles of each metric, vLLM's key names.
	PerTurn []schema.TurnSummary
	// PrefixGlobalRatio and PrefixConversationRatio, when either is above
	// 0, are written as vllm-bench writes its prefix-sharing multi-turn
	// run: prefix_global_ratio, prefix_conversation_ratio,
	// prefix_unique_ratio (1 - their sum) and no_history_accumulation.
	PrefixGlobalRatio, PrefixConversationRatio float64
	// SteadyStateKey writes vllm-bench's "steady_state" key last: the
	// summary's SteadyState (schema.SteadyState's JSON), or null when it
	// was not computed. Off for vLLM's own layouts, which lack the key.
	SteadyStateKey bool
}

// VLLMDate formats t as vLLM's result date, "%Y%m%d-%H%M%S".
func VLLMDate(t time.Time) string { return t.Format("20060102-150405") }

// VLLMFileName is vLLM's default --save-result file name,
// "{label or backend}-{request_rate}qps[-concurrency{C}]-{model}-{date}.json",
// with the rate as Python's str(float) ("inf", "10.0") and model the last
// path element of ModelID.
func VLLMFileName(h VLLMHeader) string {
	label := h.Label
	if label == "" {
		label = h.Backend
	}
	rate := "inf"
	if r := h.Options.RequestRate; r > 0 && !math.IsInf(r, 1) {
		rate = pyFloatStr(r)
	}
	conc := ""
	if h.Options.MaxConcurrency > 0 {
		conc = fmt.Sprintf("-concurrency%d", h.Options.MaxConcurrency)
	}
	model := h.ModelID[strings.LastIndex(h.ModelID, "/")+1:]
	if h.RampUpStrategy != "" {
		return fmt.Sprintf("%s-ramp-up-%s-%dqps-%dqps%s-%s-%s.json", label, h.RampUpStrategy, h.RampUpStartRPS, h.RampUpEndRPS, conc, model, h.Date)
	}
	return fmt.Sprintf("%s-%sqps%s-%s-%s.json", label, rate, conc, model, h.Date)
}

// object is a JSON object that keeps insertion order and, like a Python
// dict, keeps a key's first position when it is set again. Values are
// appenders, so that the large per-request lists are written straight
// into the output buffer.
type object struct {
	keys []string
	vals map[string]func([]byte) []byte
}

func (o *object) set(k string, f func([]byte) []byte) {
	if o.vals == nil {
		o.vals = map[string]func([]byte) []byte{}
	}
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = f
}

func (o *object) str(k, v string) { o.set(k, func(b []byte) []byte { return appendPyString(b, v) }) }
func (o *object) int(k string, v int) {
	o.set(k, func(b []byte) []byte { return strconv.AppendInt(b, int64(v), 10) })
}
func (o *object) float(k string, v float64) {
	o.set(k, func(b []byte) []byte { return appendPyFloat(b, v) })
}
func (o *object) null(k string) { o.set(k, func(b []byte) []byte { return append(b, "null"...) }) }
func (o *object) strOrNull(k, v string) {
	if v == "" {
		o.null(k)
	} else {
		o.str(k, v)
	}
}

// list sets k to a list of n items written by item.
func (o *object) list(k string, n int, item func(b []byte, i int) []byte) {
	o.set(k, func(b []byte) []byte { return appendList(b, n, item) })
}

func appendList(b []byte, n int, item func(b []byte, i int) []byte) []byte {
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = item(b, i)
	}
	return append(b, ']')
}

// bytes is json.dump's output: ", " between items, ": " after keys.
func (o *object) bytes(b []byte) []byte {
	b = append(b, '{')
	for i, k := range o.keys {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = appendPyString(b, k)
		b = append(b, ": "...)
		b = o.vals[k](b)
	}
	return append(b, '}')
}

// WriteVLLMJSON writes the file `vllm bench serve --save-result` writes
// (one line, no trailing newline, as json.dump): h's header keys, the
// summary s computed from reqs with h.Options, and with detailed
// (--save-detailed) the per-request lists over all requests in order.
// Failed requests carry vLLM's values: output length 0, latency 0.0,
// generated text "", the TTFT and ITLs they reached (0.0 and [] without a
// token event), and their error. start_times are seconds since the run's
// t=0 where vLLM writes raw perf_counter readings (only differences are
// meaningful in either). Floats are Python's repr, an infinite rate is
// "inf", absent values are null. It is written in one Write; for
// --append-result, write "\n" first when the file is not empty.
func WriteVLLMJSON(w io.Writer, reqs []schema.Request, s *schema.Summary, h VLLMHeader, detailed bool) error {
	if s == nil {
		return fmt.Errorf("metrics: write vllm json: no summary")
	}
	c, err := h.Options.normalize()
	if err != nil {
		return err
	}
	mid := h.Layout == LayoutMid
	var o object
	o.str("date", h.Date)
	o.str("endpoint_type", h.Backend)
	o.str("backend", h.Backend)
	o.strOrNull("label", h.Label)
	o.str("model_id", h.ModelID)
	o.strOrNull("tokenizer_id", h.TokenizerID)
	o.int("num_prompts", h.NumPrompts)
	for _, kv := range h.Metadata {
		o.str(strings.TrimSpace(kv.Key), strings.TrimSpace(kv.Value))
	}
	if c.RequestRate > 0 {
		o.float("request_rate", c.RequestRate)
	} else {
		o.str("request_rate", "inf")
	}
	o.float("burstiness", c.Burstiness)
	if c.MaxConcurrency > 0 {
		o.int("max_concurrency", c.MaxConcurrency)
	} else {
		o.null("max_concurrency")
	}
	if h.RampUpStrategy != "" {
		o.str("ramp_up_strategy", h.RampUpStrategy)
		o.int("ramp_up_start_rps", h.RampUpStartRPS)
		o.int("ramp_up_end_rps", h.RampUpEndRPS)
	}

	o.float("duration", s.DurationS)
	o.int("completed", s.Completed)
	o.int("failed", s.Failed)
	o.int("total_input_tokens", s.TotalInputTokens)
	o.int("total_output_tokens", s.TotalOutputTokens)
	o.float("request_throughput", s.RequestThroughput)
	if s.RequestGoodput != nil {
		o.float("request_goodput", *s.RequestGoodput)
	} else {
		o.null("request_goodput")
	}
	o.float("output_throughput", s.OutputThroughput)
	o.float("total_token_throughput", s.TotalTokenThroughput)

	n := len(reqs)
	r := func(i int) *schema.Request { return &reqs[i] }
	floats := func(f func(i int) float64) func(b []byte, i int) []byte {
		return func(b []byte, i int) []byte { return appendPyFloat(b, f(i)) }
	}
	ints := func(f func(i int) int) func(b []byte, i int) []byte {
		return func(b []byte, i int) []byte { return strconv.AppendInt(b, int64(f(i)), 10) }
	}
	if detailed {
		o.list("input_lens", n, ints(func(i int) int { return c.inputTokens(r(i)) }))
		o.list("output_lens", n, ints(func(i int) int {
			if !r(i).Success {
				return 0
			}
			return c.outputTokens(r(i))
		}))
		o.list("ttfts", n, floats(func(i int) float64 { return ttft(r(i)) }))
		o.list("itls", n, func(b []byte, i int) []byte {
			ev := r(i).EventS
			return appendList(b, max(len(ev)-1, 0), func(b []byte, k int) []byte { return appendPyFloat(b, ev[k+1]-ev[k]) })
		})
	}
	if !mid {
		o.list("latencies", n, floats(func(i int) float64 {
			if !r(i).Success {
				return 0
			}
			return c.latency(r(i))
		}))
		if detailed {
			o.list("start_times", n, floats(func(i int) float64 { return r(i).SendS }))
		}
		o.list("queue_times", n, floats(func(i int) float64 { return r(i).SendS - r(i).ArrivalS }))
	}
	if detailed {
		o.list("generated_texts", n, func(b []byte, i int) []byte {
			if !r(i).Success {
				return appendPyString(b, "")
			}
			return appendPyString(b, r(i).GeneratedText)
		})
		o.list("errors", n, func(b []byte, i int) []byte {
			if r(i).Success {
				return appendPyString(b, "")
			}
			return appendPyString(b, r(i).Error)
		})
	}
	peakTok, peakConc := 0.0, 0
	if s.MaxOutputTokensPerS != nil {
		peakTok = *s.MaxOutputTokensPerS
	}
	if s.MaxConcurrentRequests != nil {
		peakConc = *s.MaxConcurrentRequests
	}
	o.float("max_output_tokens_per_s", peakTok)
	o.int("max_concurrent_requests", peakConc)
	if !mid {
		o.float("rtfx", 0)
	}
	if len(h.RPSChanges) > 0 {
		o.list("rps_change_events", len(h.RPSChanges), func(b []byte, i int) []byte {
			e := h.RPSChanges[i]
			b = append(b, `{"rps": `...)
			b = strconv.AppendInt(b, int64(e.RPS), 10)
			b = append(b, `, "timestamp": `...)
			b = appendPyString(b, e.Timestamp)
			return append(b, '}')
		})
	}
	if sd := s.SpecDecode; sd != nil {
		o.float("spec_decode_acceptance_rate", sd.AcceptanceRatePct)
		o.float("spec_decode_acceptance_length", sd.AcceptanceLength)
		o.int("spec_decode_num_drafts", int(sd.Drafts))
		o.int("spec_decode_draft_tokens", int(sd.DraftTokens))
		o.int("spec_decode_accepted_tokens", int(sd.AcceptedTokens))
		// vLLM stores fractions here (accepted at the position / drafts)
		// and prints them ×100; perflab keeps percentages.
		frac := make([]float64, len(sd.PerPositionPct))
		for i, p := range sd.PerPositionPct {
			frac[i] = p / 100
		}
		o.list("spec_decode_per_position_acceptance_rates", len(frac), floatsOf(frac))
	}
	if len(h.PerTurn) > 0 {
		o.list("per_turn", len(h.PerTurn), func(b []byte, i int) []byte { return appendTurn(b, h.PerTurn[i]) })
	}
	if h.PrefixGlobalRatio > 0 || h.PrefixConversationRatio > 0 {
		o.float("prefix_global_ratio", h.PrefixGlobalRatio)
		o.float("prefix_conversation_ratio", h.PrefixConversationRatio)
		o.float("prefix_unique_ratio", max(0, 1-(h.PrefixGlobalRatio+h.PrefixConversationRatio)))
		o.set("no_history_accumulation", func(b []byte) []byte { return append(b, "true"...) })
	}

	for _, g := range groups() {
		if !c.reported(s, g) || (mid && (g.key == MetricClientQueue || g.key == MetricE2ELInclQueue)) {
			continue
		}
		st := stats(s, g.key)
		if st.MeanMs != nil {
			o.float("mean_"+g.key+"_ms", *st.MeanMs)
		}
		if st.MedianMs != nil {
			o.float("median_"+g.key+"_ms", *st.MedianMs)
		}
		if st.StdMs != nil {
			o.float("std_"+g.key+"_ms", *st.StdMs)
		}
		for _, p := range st.Percentiles {
			o.float("p"+percentileWord(p.P)+"_"+g.key+"_ms", p.ValueMs)
		}
	}
	if h.SteadyStateKey {
		if s.SteadyState == nil {
			o.null("steady_state")
		} else {
			ss, err := json.Marshal(s.SteadyState)
			if err != nil {
				return fmt.Errorf("metrics: write vllm json: steady state: %w", err)
			}
			o.set("steady_state", func(b []byte) []byte { return append(b, ss...) })
		}
	}
	size := 4096
	if detailed {
		size += 24 * len(reqs)
		for i := range reqs {
			size += 22*len(reqs[i].EventS) + len(reqs[i].GeneratedText)
		}
	}
	if _, err := w.Write(o.bytes(make([]byte, 0, size))); err != nil {
		return fmt.Errorf("metrics: write vllm json: %w", err)
	}
	return nil
}

// pyFloatStr is Python's repr(float) / str(float): the shortest digits
// that round-trip, in fixed notation with at least one decimal ("100.0")
// when the decimal exponent e (d.ddd×10^e) is in [−4, 16), else in
// exponent notation with a signed, at least two-digit exponent ("1e-05",
// "1e+16", "1.5e+300"); "nan", "inf", "-inf".
func pyFloatStr(f float64) string { return string(appendPyFloatStr(nil, f)) }

func appendPyFloatStr(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "nan"...)
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0.0"...)
		}
		return append(b, "0.0"...)
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // -d.ddde±XX
	if e[0] == '-' {
		b = append(b, '-')
		e = e[1:]
	}
	ei := bytes.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(string(e[ei+1:]))
	var dig [24]byte
	digits := append(dig[:0], e[0])
	if ei > 1 {
		digits = append(digits, e[2:ei]...) // skip the '.'
	}
	if exp < -4 || exp >= 16 {
		b = append(b, digits[0])
		if len(digits) > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		if exp < 0 {
			b = append(b, '-')
			exp = -exp
		} else {
			b = append(b, '+')
		}
		if exp < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(exp), 10)
	}
	point := exp + 1 // digits before the decimal point
	switch {
	case point <= 0:
		b = append(b, "0."...)
		for range -point {
			b = append(b, '0')
		}
		b = append(b, digits...)
	case point >= len(digits):
		b = append(b, digits...)
		for range point - len(digits) {
			b = append(b, '0')
		}
		b = append(b, ".0"...)
	default:
		b = append(b, digits[:point]...)
		b = append(b, '.')
		b = append(b, digits[point:]...)
	}
	return b
}

// appendPyFloat is a float as Python's json.dump writes it: repr, with
// NaN, Infinity and -Infinity for the non-finite values.
func appendPyFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "Infinity"...)
	case math.IsInf(f, -1):
		return append(b, "-Infinity"...)
	}
	return appendPyFloatStr(b, f)
}

// appendPyString is a string as Python's json.dump writes it with the
// default ensure_ascii=True: \" \\ \n \r \t \b \f, every other character
// outside printable ASCII as \uXXXX (lower-case hex, surrogate pairs above
// U+FFFF). Invalid UTF-8 becomes U+FFFD, the character Python would hold.
func appendPyString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	u4 := func(b []byte, r rune) []byte {
		return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
	}
	b = append(b, '"')
	for _, r := range s { // invalid bytes arrive as utf8.RuneError = U+FFFD
		switch {
		case r == '"':
			b = append(b, '\\', '"')
		case r == '\\':
			b = append(b, '\\', '\\')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r >= 0x20 && r <= 0x7e:
			b = append(b, byte(r))
		case r > 0xffff:
			r -= 0x10000
			b = u4(b, 0xd800|(r>>10)&0x3ff)
			b = u4(b, 0xdc00|r&0x3ff)
		default:
			b = u4(b, r)
		}
	}
	return append(b, '"')
}

func floatsOf(v []float64) func(b []byte, i int) []byte {
	return func(b []byte, i int) []byte { return appendPyFloat(b, v[i]) }
}

// appendTurn writes one per_turn entry: {"turn": N, "completed": …,
// "failed": …, "mean_ttft_ms": …, "median_ttft_ms": …, "p99_ttft_ms": …, …}.
func appendTurn(b []byte, t schema.TurnSummary) []byte {
	var o object
	o.int("turn", t.Turn)
	o.int("completed", t.Completed)
	o.int("failed", t.Failed)
	for _, m := range []struct {
		key string
		st  *schema.Stats
	}{{MetricTTFT, t.TTFT}, {MetricTPOT, t.TPOT}, {MetricITL, t.ITL}, {MetricE2EL, t.E2EL}} {
		if m.st == nil {
			continue
		}
		if m.st.MeanMs != nil {
			o.float("mean_"+m.key+"_ms", *m.st.MeanMs)
		}
		if m.st.MedianMs != nil {
			o.float("median_"+m.key+"_ms", *m.st.MedianMs)
		}
		for _, p := range m.st.Percentiles {
			o.float("p"+percentileWord(p.P)+"_"+m.key+"_ms", p.ValueMs)
		}
	}
	return o.bytes(b)
}
