package schema

import "encoding/json"

// Version is the results-contract version this build writes. Readers accept
// every version from 1 up to Version and reject newer ones.
//
// History: 1, the first contract; 2 added sweeps and repeats (Load.Sweep,
// Result.Repeat) and the fields that came with them. A version-1 file is a
// valid version-2 file.
const Version = 2

// Status says how a run ended.
type Status string

const (
	// StatusOK: the benchmark ran to the end (individual requests may still
	// have failed; see Summary.Failed).
	StatusOK Status = "ok"
	// StatusFailed: the benchmark could not run (bad profile, unreachable
	// endpoint before the first request, …).
	StatusFailed Status = "failed"
	// StatusCrashed: the engine died, never became healthy or ran out of
	// memory. LogTail holds the end of its log.
	StatusCrashed Status = "crashed"
	// StatusInterrupted: the run was stopped by the user (Ctrl-C) mid-way;
	// the collector repeats it on resume.
	StatusInterrupted Status = "interrupted"
	// StatusUnsupported: the configuration is not supported by the engine
	// (recorded so that a page can say so).
	StatusUnsupported Status = "unsupported"
	// StatusSkipped: a sweep point collect did not run because the
	// sweep's early stop judged it wasted GPU time (Error says why);
	// `collect --no-early-stop` runs it.
	StatusSkipped Status = "skipped"
)

// Result is one run: one experiment (engine configuration) measured on one
// profile. It is the only contract between the collector and the renderer.
// Every duration is a float64 with its unit in the JSON key; times inside a
// run are seconds relative to Result.Start (the benchmark's t=0).
type Result struct {
	// SchemaVersion is Version at the time of writing.
	SchemaVersion int `json:"schema_version"`
	// ID is a stable key for the run: for collected runs a hash of what
	// defines it (campaign, experiment, profile), for imports a slug.
	ID string `json:"id"`
	// Label is a human label ("vLLM baseline / ShareGPT").
	Label string `json:"label,omitempty"`
	// Campaign, Experiment and Profile tie the run to its campaign
	// definition (schema.Campaign ids). Empty for a stand-alone bench run.
	Campaign   string `json:"campaign,omitempty"`
	Experiment string `json:"experiment,omitempty"`
	Profile    string `json:"profile,omitempty"`
	// Repeat is the index (0-based) of this run among repeats of the same
	// experiment, profile and load point (a profile's `repeats:`, bench's
	// --num-runs); 0 for the first or only run.
	Repeat int `json:"repeat,omitempty"`

	Status Status `json:"status"`
	// Error is the reason for a non-ok status.
	Error string `json:"error,omitempty"`
	// LogTail is the end of the engine's log for crashed runs.
	LogTail string `json:"log_tail,omitempty"`

	// Start and End are RFC 3339 timestamps (UTC) of the benchmark phase.
	Start string `json:"start,omitempty"`
	End   string `json:"end,omitempty"`

	Engine   Engine    `json:"engine"`
	Model    Model     `json:"model"`
	Load     Load      `json:"load"`
	Hardware *Hardware `json:"hardware,omitempty"`
	// Tool says what produced the numbers.
	Tool Tool `json:"tool"`

	// Summary holds the aggregate metrics. Nil when the run produced none
	// (crash before the first request).
	Summary *Summary `json:"summary,omitempty"`
	// PerTurn are the multi-turn run's metrics by turn (nil otherwise).
	PerTurn []TurnSummary `json:"per_turn,omitempty"`
	// Requests are the per-request records, in dataset order. Imports from
	// text have none.
	Requests []Request `json:"requests,omitempty"`
	// Client is the benchmark client's own health during the run.
	Client *ClientStats `json:"client,omitempty"`
	// Telemetry holds GPU samples taken during the run.
	Telemetry *Telemetry `json:"telemetry,omitempty"`

	// Warnings are caveats about the numbers (fallback token counting,
	// client fell behind schedule, partial success, …). They are shown on
	// the page next to the numbers.
	Warnings []string `json:"warnings,omitempty"`
	// RawOutput is the benchmark's text output kept verbatim (the
	// "Serving Benchmark Result" block), for the collapsible raw blocks.
	RawOutput string `json:"raw_output,omitempty"`
	// Artifacts are files written beside the result (engine log, vLLM
	// JSON), relative to the result file's directory.
	Artifacts []Artifact `json:"artifacts,omitempty"`
	// Metadata holds free-form key/value pairs (--metadata K=V).
	Metadata map[string]string `json:"metadata,omitempty"`
}

// Engine identifies the serving engine and exactly how it was launched.
type Engine struct {
	// Name is the engine kind: vllm, sglang, trtllm, llamacpp, external, mock.
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	// Command is the full serve command line, secrets redacted.
	Command string `json:"command,omitempty"`
	// Env holds the environment variables set for the engine, secrets redacted.
	Env map[string]string `json:"env,omitempty"`
	// BaseURL is the endpoint the benchmark talked to.
	BaseURL string `json:"base_url,omitempty"`
}

// Model identifies what was served.
type Model struct {
	// ID is the Hugging Face repository id (Qwen/Qwen3-32B).
	ID string `json:"id"`
	// Served is the name requested in the API's "model" field when it
	// differs from ID.
	Served string `json:"served,omitempty"`
	// Tokenizer is the tokenizer used to size prompts (path, HF id or
	// "server").
	Tokenizer string `json:"tokenizer,omitempty"`
}

// Load is the benchmark profile as run: dataset and traffic shape.
type Load struct {
	// Backend is the vLLM backend name (openai, openai-chat).
	Backend  string `json:"backend,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
	// Dataset is random, sharegpt, …
	Dataset     string  `json:"dataset,omitempty"`
	DatasetPath string  `json:"dataset_path,omitempty"`
	InputLen    int     `json:"input_len,omitempty"`
	OutputLen   int     `json:"output_len,omitempty"`
	RangeRatio  float64 `json:"range_ratio,omitempty"`
	PrefixLen   int     `json:"prefix_len,omitempty"`
	NumPrompts  int     `json:"num_prompts"`
	// RequestRate is requests per second; 0 means infinite (all at once),
	// as vLLM's "inf".
	RequestRate    float64 `json:"request_rate_per_s"`
	Burstiness     float64 `json:"burstiness,omitempty"`
	MaxConcurrency int     `json:"max_concurrency,omitempty"`
	// Sweep names the load field that varies across the points of the
	// sweep this run belongs to: "max_concurrency" or "request_rate"
	// (MaxConcurrency or RequestRate above is then this point's value).
	// Empty for a run that is not a sweep point.
	Sweep      string `json:"sweep,omitempty"`
	Seed       int64  `json:"seed"`
	IgnoreEOS  bool   `json:"ignore_eos,omitempty"`
	NumWarmups int    `json:"num_warmups,omitempty"`
	// ExtraBody is the JSON object merged into every request body beyond
	// vLLM's defaults: sampling parameters (--temperature, …) and
	// --extra-body. Absent when none (the server's defaults applied).
	ExtraBody json.RawMessage `json:"extra_body,omitempty"`
	// GoodputSLOMs are the --goodput service-level objectives (ms by
	// metric: ttft, tpot, e2el) that Summary.RequestGoodput counts
	// against. Absent without --goodput.
	GoodputSLOMs map[string]float64 `json:"goodput_slo_ms,omitempty"`
	// RampUpStrategy (linear, exponential) and the rates it went from and
	// to, when the run ramped up; RPSChanges when its integer rate rose.
	RampUpStrategy string      `json:"ramp_up_strategy,omitempty"`
	RampUpStartRPS int         `json:"ramp_up_start_rps,omitempty"`
	RampUpEndRPS   int         `json:"ramp_up_end_rps,omitempty"`
	RPSChanges     []RPSChange `json:"rps_change_events,omitempty"`
	// Conversations is the number of multi-turn conversations (0: none).
	Conversations int `json:"conversations,omitempty"`
	// Command is the benchmark command line that produced the run, when
	// known (perflab bench … or vllm bench serve …).
	Command string `json:"command,omitempty"`
}

// Tool names the program that measured the run.
type Tool struct {
	// Name: "perflab bench", "vllm bench serve" (imported), "guidellm".
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

// Hardware is the GPU inventory of the node that ran the benchmark.
type Hardware struct {
	Host string `json:"host,omitempty"`
	// GPUName is the marketing name shared by the GPUs used (NVIDIA H100
	// 80GB HBM3); GPUCount how many the engine used.
	GPUName  string `json:"gpu_name,omitempty"`
	GPUCount int    `json:"gpu_count,omitempty"`
	// GPUs lists every GPU seen on the node.
	GPUs          []GPU  `json:"gpus,omitempty"`
	DriverVersion string `json:"driver_version,omitempty"`
	CUDAVersion   string `json:"cuda_version,omitempty"`
}

// GPU is one device of the inventory.
type GPU struct {
	Index     int    `json:"index"`
	Name      string `json:"name"`
	UUID      string `json:"uuid,omitempty"`
	MemoryMiB int    `json:"memory_mib,omitempty"`
}

// Artifact is a file kept beside a result.
type Artifact struct {
	// Kind: engine-log, vllm-json, raw-text, …
	Kind string `json:"kind"`
	// Path is relative to the result file's directory.
	Path   string `json:"path"`
	SHA256 string `json:"sha256,omitempty"`
}

// Request is one request's record. Failures are data: a failed request has
// Success false, Error set, and whatever timings it reached.
type Request struct {
	// Index is the request's position in the dataset.
	Index int `json:"index"`
	// PromptTokens is the prompt length as the dataset built it;
	// UsagePromptTokens what the server reported, when it did.
	PromptTokens      int  `json:"prompt_tokens"`
	UsagePromptTokens *int `json:"usage_prompt_tokens,omitempty"`
	// ExpectedOutputTokens is the max_tokens asked for.
	ExpectedOutputTokens int `json:"expected_output_tokens,omitempty"`
	// OutputTokens is the generated length: usage.completion_tokens, or
	// when the server sent no usage (then OutputCounted is true) the
	// generated text's tokens (vLLM's fallback, when a tokenizer is at
	// hand) or else the counted token events.
	OutputTokens  int  `json:"output_tokens"`
	OutputCounted bool `json:"output_counted,omitempty"`
	// ArrivalS is when the schedule released the request, SendS when it
	// was sent (after the concurrency cap admitted it), EndS when the
	// stream ended ([DONE], EOF or error). Seconds since the run's start.
	ArrivalS float64 `json:"arrival_s"`
	SendS    float64 `json:"send_s"`
	EndS     float64 `json:"end_s"`
	// EventS are the arrival times of every token-bearing event (an SSE
	// event with non-empty choices), seconds since the run's start. TTFT is
	// EventS[0]-SendS; the ITLs are its successive differences.
	EventS []float64 `json:"event_s,omitempty"`
	// HTTPStatus is the response status (0 when none arrived).
	HTTPStatus int    `json:"http_status,omitempty"`
	Success    bool   `json:"success"`
	Error      string `json:"error,omitempty"`
	// GeneratedText is kept only when asked for (--save-detailed).
	GeneratedText string `json:"generated_text,omitempty"`
	// Session is the conversation a multi-turn request belongs to (its
	// X-Session-ID) and Turn its turn, from 1; empty and 0 otherwise.
	Session string `json:"session,omitempty"`
	Turn    int    `json:"turn,omitempty"`
}

// Summary holds the aggregate metrics with vLLM's definitions
// (collect/metrics documents each). Optional values are pointers: nil means
// "not measured", never zero.
type Summary struct {
	DurationS         float64 `json:"duration_s"`
	Completed         int     `json:"completed"`
	Failed            int     `json:"failed"`
	TotalInputTokens  int     `json:"total_input_tokens"`
	TotalOutputTokens int     `json:"total_output_tokens"`
	// MaxConcurrency is the configured cap (GPUStack's "Maximum request
	// concurrency" row), nil when unlimited or unknown.
	MaxConcurrency        *int     `json:"max_concurrency,omitempty"`
	RequestThroughput     float64  `json:"request_throughput_req_per_s"`
	RequestGoodput        *float64 `json:"request_goodput_req_per_s,omitempty"`
	OutputThroughput      float64  `json:"output_throughput_tok_per_s"`
	TotalTokenThroughput  float64  `json:"total_token_throughput_tok_per_s"`
	MaxOutputTokensPerS   *float64 `json:"max_output_tokens_per_s,omitempty"`
	MaxConcurrentRequests *int     `json:"max_concurrent_requests,omitempty"`

	TTFT *Stats `json:"ttft_ms,omitempty"`
	TPOT *Stats `json:"tpot_ms,omitempty"`
	ITL  *Stats `json:"itl_ms,omitempty"`
	E2EL *Stats `json:"e2el_ms,omitempty"`
	// ClientQueue is the time requests waited for the client's concurrency
	// cap (send − arrival), and E2ELInclQueue the E2EL plus that wait; vLLM
	// computes them only with --max-concurrency (the latter only with a
	// finite rate). Nil otherwise.
	ClientQueue   *Stats `json:"client_queue_time_ms,omitempty"`
	E2ELInclQueue *Stats `json:"e2el_incl_client_queue_ms,omitempty"`
	// SpecDecode is the server's speculative decoding during the run, from
	// its /metrics counters before and after (vLLM's spec_decode_*); nil
	// when the server exposes none.
	SpecDecode *SpecDecode `json:"spec_decode,omitempty"`
	// SteadyState holds the metrics over the run's plateau (see
	// SteadyState); nil when not computed (no concurrency cap, a finite
	// rate, --no-steady-state, or no plateau reached).
	SteadyState *SteadyState `json:"steady_state,omitempty"`
}

// SpecDecode is speculative decoding over one run: the differences of
// vLLM's vllm:spec_decode_* counters. AcceptanceRatePct is accepted /
// draft tokens × 100, AcceptanceLength 1 + accepted / drafts (tokens per
// draft step), PerPositionPct[i] the drafts whose token i was accepted,
// in percent of drafts.
type SpecDecode struct {
	AcceptanceRatePct float64   `json:"acceptance_rate_pct"`
	AcceptanceLength  float64   `json:"acceptance_length"`
	Drafts            int64     `json:"drafts"`
	DraftTokens       int64     `json:"draft_tokens"`
	AcceptedTokens    int64     `json:"accepted_tokens"`
	PerPositionPct    []float64 `json:"per_position_acceptance_pct,omitempty"`
}

// TurnSummary is the latency of one turn of the multi-turn conversations
// (turn 1 is the first request of each): its requests' metrics, in ms.
type TurnSummary struct {
	Turn      int    `json:"turn"`
	Completed int    `json:"completed"`
	Failed    int    `json:"failed"`
	TTFT      *Stats `json:"ttft_ms,omitempty"`
	TPOT      *Stats `json:"tpot_ms,omitempty"`
	ITL       *Stats `json:"itl_ms,omitempty"`
	E2EL      *Stats `json:"e2el_ms,omitempty"`
}

// RPSChange is one step of a ramp-up: the integer rate reached and when
// (vLLM's rps_change_events).
type RPSChange struct {
	RPS       int    `json:"rps"`
	Timestamp string `json:"timestamp"`
}

// SteadyState is a closed-loop run (a concurrency cap, rate inf) measured
// only over its plateau: the window from the first time the number of
// requests in flight reaches ceil(Threshold × cap) until the last time it
// falls below that, which leaves out the ramp-up and the drain. Momentary
// dips inside the window (a request ending just before the next is sent)
// do not split it. Times are seconds since the run's t=0.
type SteadyState struct {
	// Threshold is the fraction of the cap (--steady-state-threshold) and
	// MinInFlight the in-flight count it asks for, ceil(Threshold × cap).
	Threshold   float64 `json:"threshold"`
	MinInFlight int     `json:"min_in_flight"`
	StartS      float64 `json:"start_s"`
	EndS        float64 `json:"end_s"`
	DurationS   float64 `json:"duration_s"`
	// Requests counts the successful requests sent and finished inside the
	// window; TTFT and TPOT (ms) are over them.
	Requests int `json:"requests"`
	// RequestThroughput is the successful requests that finished inside
	// the window per second; OutputThroughput the output tokens whose
	// events arrived inside it per second (a multi-token event counts its
	// share of the request's tokens); InputThroughput the prompt tokens of
	// the requests sent inside it per second; TotalTokenThroughput their
	// sum.
	RequestThroughput    float64 `json:"request_throughput_req_per_s"`
	InputThroughput      float64 `json:"input_throughput_tok_per_s"`
	OutputThroughput     float64 `json:"output_throughput_tok_per_s"`
	TotalTokenThroughput float64 `json:"total_token_throughput_tok_per_s"`
	TTFT                 *Stats  `json:"ttft_ms,omitempty"`
	TPOT                 *Stats  `json:"tpot_ms,omitempty"`
	// Warning says why the figures deserve caution (a window shorter than
	// --steady-state-min-window).
	Warning string `json:"warning,omitempty"`
}

// Stats summarises one latency metric, in milliseconds. Nil fields were
// not reported (an imported text block without a std row, say).
type Stats struct {
	MeanMs      *float64     `json:"mean,omitempty"`
	MedianMs    *float64     `json:"median,omitempty"`
	StdMs       *float64     `json:"std,omitempty"`
	Percentiles []Percentile `json:"percentiles,omitempty"`
}

// Percentile is one numpy-linear percentile of a metric.
type Percentile struct {
	// P is the percentile in [0, 100] (99 for p99, 99.9 for p99.9).
	P       float64 `json:"p"`
	ValueMs float64 `json:"value"`
}

// Get returns the percentile p if it was reported.
func (s *Stats) Get(p float64) (float64, bool) {
	if s == nil {
		return 0, false
	}
	for _, q := range s.Percentiles {
		if q.P == p {
			return q.ValueMs, true
		}
	}
	return 0, false
}

// ClientStats reports the benchmark client's own health, so that a
// measurement limited by the client is visible.
type ClientStats struct {
	// SchedulingLag is how late requests left compared with the schedule
	// (send time minus arrival for uncapped runs), in milliseconds.
	SchedulingLagP50Ms float64 `json:"scheduling_lag_p50_ms"`
	SchedulingLagP99Ms float64 `json:"scheduling_lag_p99_ms"`
	SchedulingLagMaxMs float64 `json:"scheduling_lag_max_ms"`
	// CPUPercent is the client's process CPU over the run (100 = one core).
	CPUPercent float64 `json:"cpu_percent"`
	// EventsPerS is the SSE events parsed per second over the run.
	EventsPerS float64 `json:"events_per_s"`
	// CoalescedEventFraction is the share of ITL samples under 0.1 ms
	// (events that arrived in one network read).
	CoalescedEventFraction float64 `json:"coalesced_event_fraction"`
}

// Telemetry holds GPU samples taken while the run was in progress.
type Telemetry struct {
	// Available is false when no GPU could be read; Warning says why.
	Available bool    `json:"available"`
	Warning   string  `json:"warning,omitempty"`
	IntervalS float64 `json:"interval_s,omitempty"`
	// Samples are in time order, one per GPU per tick.
	Samples []GPUSample `json:"samples,omitempty"`
	// EnergyJ is the energy used per GPU during the run (from the energy
	// counter), indexed like Hardware.GPUs; TotalEnergyJ their sum.
	EnergyJ      []float64 `json:"energy_j,omitempty"`
	TotalEnergyJ float64   `json:"total_energy_j,omitempty"`
}

// GPUSample is one GPU's state at one instant.
type GPUSample struct {
	TimeS       float64 `json:"t_s"`
	GPU         int     `json:"gpu"`
	UtilPct     float64 `json:"util_pct"`
	MemUsedMiB  float64 `json:"mem_used_mib"`
	PowerW      float64 `json:"power_w"`
	SMClockMHz  float64 `json:"sm_clock_mhz"`
	MemClockMHz float64 `json:"mem_clock_mhz"`
	TempC       float64 `json:"temp_c"`
}

// F returns a pointer to v, for the optional fields.
func F(v float64) *float64 { return &v }

// I returns a pointer to v, for the optional fields.
func I(v int) *int { return &v }
