package benchrun

import (
	"cmp"
	"io"
	"net/http"
	"time"

	"github.com/perflab/perflab/collect/bench"
	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/metrics"
)

// Datasets are the datasets Build makes (perflab bench's --dataset-name
// values).
var Datasets = []string{"random", "sharegpt", "custom", "prefix_repetition", "timed_trace"}

// Options are one run: the measuring (server, load, metrics) and the
// dataset it sends.
type Options struct {
	// Bench is the measuring: server, model, load, metrics, hooks. Its
	// Samples, PromptIDs, Times and Conversations are set by Run from the
	// Workload (whatever they hold here is not used); IgnoreEOS is forced
	// on for the datasets that force it (see Dataset.ForcesIgnoreEOS);
	// Metrics' MaxConcurrency, RequestRate and Burstiness are taken from
	// the load fields; CountText, when nil, counts with Tokenizer.
	Bench bench.Config
	// Dataset is what the run sends.
	Dataset Dataset
	// Steady, when set, computes the steady-state window of a
	// closed-loop run into the summary (vllm-bench does by default; nil:
	// none, --no-steady-state).
	Steady *metrics.SteadyOptions
	// Tokenizer sizes the prompts: a tokenizer of the caller's own (a
	// tokenizer.json) or a *dataset.ServerTokenizer (the server's own
	// /tokenize). It must be set.
	Tokenizer dataset.Tokenizer
	// Offline means no server is there to ask (a dry run with a
	// tokenizer of its own): the prompts are not aligned to the server's
	// tokenizer.
	Offline bool
	// Log receives the notes written while the dataset is built (the
	// alignment's warnings); nil: discarded.
	Log io.Writer
	// AuxClient sends the requests around the benchmark: the alignment's
	// /tokenize and /detokenize, the spec-decode counters' /metrics;
	// nil: Client(Bench.Headers).
	AuxClient *http.Client
}

// Dataset is the dataset of a run, its fields named after perflab bench's
// flags (the campaign profile's fields are the same names with
// underscores). Zero values mean the dataset package's defaults.
type Dataset struct {
	// Name is random (""), sharegpt, custom, prefix_repetition or
	// timed_trace; Path the file of those that read one.
	Name, Path string
	// NumPrompts is --num-prompts: the samples, or the conversations with
	// MultiTurn.
	NumPrompts int
	// Seed is --seed; DisableShuffle and NoOversample the flags of those
	// names.
	Seed                         int64
	DisableShuffle, NoOversample bool

	// random: --random-input-len, --random-output-len,
	// --random-range-ratio, --random-prefix-len.
	RandomInputLen, RandomOutputLen int
	RandomRangeRatio                float64
	RandomPrefixLen                 int
	// sharegpt: --sharegpt-output-len (0: each conversation's reply).
	ShareGPTOutputLen int
	// custom: --custom-output-len (-1: each line's output_tokens) and
	// --skip-chat-template.
	CustomOutputLen  int
	SkipChatTemplate bool
	// prefix_repetition: --prefix-repetition-prefix-len, -suffix-len,
	// -num-prefixes, -output-len.
	PrefixLen, SuffixLen, NumPrefixes, PrefixOutputLen int
	// timed_trace: --timed-trace-chunk-hash-size, -sec-multiplier and
	// the --timed-trace-label-* keys. SelfTimed sends at the trace's
	// timestamps (--self-timed, the default; false: --no-self-timed).
	TraceBlockTokens                                                  int
	TraceSecMultiplier                                                float64
	TraceKeyTimestamp, TraceKeyInput, TraceKeyOutput, TraceKeyHashIDs string
	SelfTimed                                                         bool
	// PromptTokenIDs sends each prompt as the token ids Tokenizer makes
	// of it (--prompt-token-ids; timed_trace prompts are ids anyway).
	PromptTokenIDs bool
	// MultiTurn, when set, makes random or sharegpt chat conversations
	// (vllm-bench's --multi-turn).
	MultiTurn *MultiTurn
}

// MultiTurn are the multi-turn settings (vllm-bench's --multi-turn-*).
type MultiTurn struct {
	// NumTurns, MinTurns and MaxTurns are --multi-turn-num-turns,
	// -min-turns and -max-turns as given (0: not given): Turns resolves
	// a random conversation's range from them; MaxTurns alone caps a
	// ShareGPT conversation's turns (0: all).
	NumTurns, MinTurns, MaxTurns int
	// PerTurnInputLen is --per-turn-input-len (0: RandomInputLen).
	PerTurnInputLen int
	// GlobalRatio and ConversationRatio are the prefix-sharing ratios.
	GlobalRatio, ConversationRatio float64
	// Concurrency is --multi-turn-concurrency (0: the max concurrency);
	// Delay the think time between a reply and the next turn.
	Concurrency int
	Delay       time.Duration
}

// DefaultNumTurns is --multi-turn-num-turns' default (vllm-bench's).
const DefaultNumTurns = 3

// Turns is a random conversation's fewest and most turns: MinTurns and
// MaxTurns, each NumTurns (DefaultNumTurns when 0) where not given. The
// callers check hi >= lo in their own words; Build refuses it too.
func (m *MultiTurn) Turns() (lo, hi int) {
	n := cmp.Or(m.NumTurns, DefaultNumTurns)
	return cmp.Or(m.MinTurns, n), cmp.Or(m.MaxTurns, n)
}

// name is the dataset's name, random when empty.
func (d *Dataset) name() string {
	if d.Name == "" {
		return "random"
	}
	return d.Name
}

// ForcesIgnoreEOS reports whether the dataset sends ignore_eos whatever
// the command says: random (vLLM forces it, so that the outputs reach
// their lengths) and timed_trace (the trace's output lengths are what it
// replays).
func (d *Dataset) ForcesIgnoreEOS() bool {
	return d.name() == "random" || d.name() == "timed_trace"
}

// Alignable reports whether the dataset's prompts are the kind vLLM
// (after 0.28) checks against the server's tokenizer: random and
// prefix_repetition prompts sent as text, one turn each.
func (d *Dataset) Alignable() bool {
	return !d.PromptTokenIDs && d.MultiTurn == nil && (d.name() == "random" || d.name() == "prefix_repetition")
}

// Aligns reports whether Build checks the prompts against the server's
// tokenizer: an alignable dataset sized by a tokenizer other than the
// server's, with a server to ask.
func (o *Options) Aligns() bool {
	_, server := o.Tokenizer.(*dataset.ServerTokenizer)
	return o.Tokenizer != nil && !server && !o.Offline && o.Dataset.Alignable()
}
