package schema

import "strings"

// Campaign is everything needed to reproduce a report: the model, the
// hardware, the experiments (grouped in ordered optimization steps), the
// benchmark profiles and which experiments are the baseline and the
// recommended configuration. `perflab collect` runs it; `perflab build`
// reads the same definition, so nothing is typed twice.
//
// On disk a campaign is YAML (content/<model>/<gpu>/campaign.yaml beside
// the report's index.md). Field names below are the YAML keys.
type Campaign struct {
	// ID is the campaign's slug (qwen3-32b-h100); results carry it.
	ID    string `yaml:"id" json:"id"`
	Title string `yaml:"title,omitempty" json:"title,omitempty"`
	// Objective is throughput or latency.
	Objective string `yaml:"objective,omitempty" json:"objective,omitempty"`
	// ObjectiveStatement is the one-sentence goal shown on the page.
	ObjectiveStatement string `yaml:"objective_statement,omitempty" json:"objective_statement,omitempty"`

	Model    CampaignModel `yaml:"model" json:"model"`
	Hardware HardwareSpec  `yaml:"hardware" json:"hardware"`
	// Engines lists the engines and the versions the campaign expects.
	Engines []EngineSpec `yaml:"engines,omitempty" json:"engines,omitempty"`
	// Bench holds the benchmark settings shared by every profile.
	Bench BenchSpec `yaml:"bench,omitempty" json:"bench,omitempty"`

	Profiles []Profile `yaml:"profiles" json:"profiles"`
	Steps    []Step    `yaml:"steps" json:"steps"`

	// Baseline and Optimized are experiment ids: the page's comparison
	// table, chart and conclusion compare these two.
	Baseline  string `yaml:"baseline" json:"baseline"`
	Optimized string `yaml:"optimized" json:"optimized"`

	// Results is the directory holding this campaign's results, relative to
	// the results root (default: the campaign id).
	Results string `yaml:"results,omitempty" json:"results,omitempty"`

	// Rounds says which round a plain `perflab collect` (no --round or
	// --new-round) runs in, for scheduled jobs: "" (or "manual") resumes
	// the latest round; "daily", "weekly" or "monthly" run in the round
	// of the scheduler run that started the collect (its run id: a
	// GitHub Actions run, a Slurm array, PERFLAB_SCHEDULER_RUN …; see
	// collect.SchedulerRound), so that every shard of a nightly job joins
	// one round without talking to the others, whenever each starts;
	// outside a scheduler, in the round named by the UTC date
	// (2026-11-27, 2026-w48, 2026-11), which the first collect of the day
	// (week, month) starts. See RoundsDir.
	Rounds string `yaml:"rounds,omitempty" json:"rounds,omitempty"`

	// SLO is the latency limits the page's SLO answer, and collect's early
	// stop of sweeps, judge runs by (slo: {ttft_p99: 2000, tpot_p99: 50}).
	SLO SLO `yaml:"slo,omitempty" json:"slo,omitempty"`
	// Cost prices the GPUs, for cost per million tokens.
	Cost *Cost `yaml:"cost,omitempty" json:"cost,omitempty"`
}

// Cost is what the campaign's GPUs cost.
type Cost struct {
	// GPUHourUSD is the price of one GPU for one hour, in US dollars.
	GPUHourUSD float64 `yaml:"gpu_hour_usd" json:"gpu_hour_usd"`
}

// CampaignModel names the model served.
type CampaignModel struct {
	// ID is the Hugging Face repository id of the model family
	// (Qwen/Qwen3-32B); Name its display name (Qwen3-32B).
	ID   string `yaml:"id" json:"id"`
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Variants lists served variants other than ID (…-FP8) that count as
	// the same model when commands are checked.
	Variants []string `yaml:"variants,omitempty" json:"variants,omitempty"`
}

// HardwareSpec is the hardware a campaign expects.
type HardwareSpec struct {
	Vendor string `yaml:"vendor,omitempty" json:"vendor,omitempty"`
	// GPU is the accelerator SKU (H100, H200, MI300X, Ascend 910B, or a
	// CPU's name with accelerator: cpu).
	GPU string `yaml:"gpu" json:"gpu"`
	// Count is the number of accelerators (GPUs, NPUs, CPUs) on the node
	// the campaign may use.
	Count int `yaml:"count" json:"count"`
	// Accelerator is what serves: gpu (the default), npu (Huawei Ascend;
	// the default when the vendor is Huawei or the name says Ascend) or
	// cpu (a machine without an accelerator). It names the unit pages
	// count in ("per GPU", "per CPU") and says whether NVML telemetry is
	// expected (NVIDIA GPUs only).
	Accelerator string `yaml:"accelerator,omitempty" json:"accelerator,omitempty"`
}

// Unit is the accelerator's word on a page: "GPU", "NPU" or "CPU".
func (h HardwareSpec) Unit() string {
	switch strings.ToLower(h.Accelerator) {
	case "cpu":
		return "CPU"
	case "npu":
		return "NPU"
	case "gpu":
		return "GPU"
	}
	if strings.EqualFold(h.Vendor, "huawei") || strings.Contains(strings.ToLower(h.GPU), "ascend") {
		return "NPU"
	}
	return "GPU"
}

// NVML reports whether the campaign's hardware is read through NVIDIA's
// NVML (power, energy, memory): NVIDIA GPUs, or GPUs of no stated vendor.
// Elsewhere no NVML telemetry is expected, and its absence is no caveat.
func (h HardwareSpec) NVML() bool {
	return h.Unit() == "GPU" && (h.Vendor == "" || strings.EqualFold(h.Vendor, "nvidia"))
}

// EngineSpec is an engine and its version.
type EngineSpec struct {
	Name    string `yaml:"name" json:"name"`
	Version string `yaml:"version,omitempty" json:"version,omitempty"`
}

// BenchSpec holds the benchmark client settings shared by every profile.
type BenchSpec struct {
	// Backend is openai (completions) or openai-chat.
	Backend  string `yaml:"backend,omitempty" json:"backend,omitempty"`
	Endpoint string `yaml:"endpoint,omitempty" json:"endpoint,omitempty"`
	// Tokenizer is a tokenizer.json path or "server".
	Tokenizer string `yaml:"tokenizer,omitempty" json:"tokenizer,omitempty"`
	// Tool is the benchmark the profiles were run with when imported
	// ("vllm bench serve"); empty means perflab bench.
	Tool string `yaml:"tool,omitempty" json:"tool,omitempty"`
	// StallTimeout fails a request whose stream goes quiet for this long
	// (a Go duration, "2m"; empty: 5m; "0": off, only the 6 h request
	// timeout): no data mid-stream, or before its first token no data for
	// any request (perflab bench's --stall-timeout).
	StallTimeout string `yaml:"stall_timeout,omitempty" json:"stall_timeout,omitempty"`
}

// Profile is one benchmark case: dataset and traffic shape.
type Profile struct {
	ID string `yaml:"id" json:"id"`
	// Name is the display name (Long Prompt); Description an optional
	// line such as "4000 input tokens, 200 output tokens".
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description,omitempty" json:"description,omitempty"`
	// Dataset: random, sharegpt, custom, prefix_repetition or
	// timed_trace (perflab bench's --dataset-name).
	Dataset     string  `yaml:"dataset" json:"dataset"`
	DatasetPath string  `yaml:"dataset_path,omitempty" json:"dataset_path,omitempty"`
	InputLen    int     `yaml:"input_len,omitempty" json:"input_len,omitempty"`
	OutputLen   int     `yaml:"output_len,omitempty" json:"output_len,omitempty"`
	RangeRatio  float64 `yaml:"range_ratio,omitempty" json:"range_ratio,omitempty"`
	NumPrompts  int     `yaml:"num_prompts" json:"num_prompts"`
	// RequestRate in requests/s; 0 or absent means inf. In YAML,
	// request_rate takes a number, inf, or a list of them (a sweep: see
	// RequestRates).
	RequestRate float64 `yaml:"-" json:"request_rate,omitempty"`
	Burstiness  float64 `yaml:"burstiness,omitempty" json:"burstiness,omitempty"`
	// MaxConcurrency caps the requests in flight (0: none). In YAML,
	// max_concurrency (or concurrency) takes a number or a list (a sweep:
	// see Concurrencies).
	MaxConcurrency int   `yaml:"-" json:"max_concurrency,omitempty"`
	Seed           int64 `yaml:"seed,omitempty" json:"seed,omitempty"`
	// Args are extra benchmark flags passed through verbatim.
	Args []string `yaml:"args,omitempty" json:"args,omitempty"`

	// The datasets' own settings, named as perflab bench's flags (vLLM's
	// and vllm-bench's, dashes as underscores); each applies to its
	// dataset only. custom: CustomOutputLen (0: 256; -1: each line's
	// output_tokens) and SkipChatTemplate.
	CustomOutputLen  int  `yaml:"custom_output_len,omitempty" json:"custom_output_len,omitempty"`
	SkipChatTemplate bool `yaml:"skip_chat_template,omitempty" json:"skip_chat_template,omitempty"`
	// prefix_repetition: absent means vLLM's defaults (256, 256, 10, 128).
	PrefixRepetitionPrefixLen   *int `yaml:"prefix_repetition_prefix_len,omitempty" json:"prefix_repetition_prefix_len,omitempty"`
	PrefixRepetitionSuffixLen   *int `yaml:"prefix_repetition_suffix_len,omitempty" json:"prefix_repetition_suffix_len,omitempty"`
	PrefixRepetitionNumPrefixes int  `yaml:"prefix_repetition_num_prefixes,omitempty" json:"prefix_repetition_num_prefixes,omitempty"`
	PrefixRepetitionOutputLen   int  `yaml:"prefix_repetition_output_len,omitempty" json:"prefix_repetition_output_len,omitempty"`
	// timed_trace: TimedTraceChunkHashSize tokens per hash id (0: 16),
	// TimedTraceSecMultiplier the timestamps' unit in seconds (0: 1);
	// SelfTimed false sends at request_rate instead of the timestamps.
	TimedTraceChunkHashSize int     `yaml:"timed_trace_chunk_hash_size,omitempty" json:"timed_trace_chunk_hash_size,omitempty"`
	TimedTraceSecMultiplier float64 `yaml:"timed_trace_sec_multiplier,omitempty" json:"timed_trace_sec_multiplier,omitempty"`
	SelfTimed               *bool   `yaml:"self_timed,omitempty" json:"self_timed,omitempty"`
	// MultiTurn makes a random or sharegpt profile chat sessions
	// (vllm-bench's --multi-turn; num_prompts counts conversations,
	// input_len is the first turn's, output_len every turn's).
	MultiTurn                        bool    `yaml:"multi_turn,omitempty" json:"multi_turn,omitempty"`
	MultiTurnNumTurns                int     `yaml:"multi_turn_num_turns,omitempty" json:"multi_turn_num_turns,omitempty"`
	MultiTurnMinTurns                int     `yaml:"multi_turn_min_turns,omitempty" json:"multi_turn_min_turns,omitempty"`
	MultiTurnMaxTurns                int     `yaml:"multi_turn_max_turns,omitempty" json:"multi_turn_max_turns,omitempty"`
	MultiTurnConcurrency             int     `yaml:"multi_turn_concurrency,omitempty" json:"multi_turn_concurrency,omitempty"`
	MultiTurnDelayMs                 int     `yaml:"multi_turn_delay_ms,omitempty" json:"multi_turn_delay_ms,omitempty"`
	PerTurnInputLen                  int     `yaml:"per_turn_input_len,omitempty" json:"per_turn_input_len,omitempty"`
	MultiTurnPrefixGlobalRatio       float64 `yaml:"multi_turn_prefix_global_ratio,omitempty" json:"multi_turn_prefix_global_ratio,omitempty"`
	MultiTurnPrefixConversationRatio float64 `yaml:"multi_turn_prefix_conversation_ratio,omitempty" json:"multi_turn_prefix_conversation_ratio,omitempty"`
	// RampUpStrategy (linear or exponential) raises the rate from
	// RampUpStartRPS to RampUpEndRPS over the run, in place of
	// request_rate (vLLM's --ramp-up-*).
	RampUpStrategy string `yaml:"ramp_up_strategy,omitempty" json:"ramp_up_strategy,omitempty"`
	RampUpStartRPS int    `yaml:"ramp_up_start_rps,omitempty" json:"ramp_up_start_rps,omitempty"`
	RampUpEndRPS   int    `yaml:"ramp_up_end_rps,omitempty" json:"ramp_up_end_rps,omitempty"`

	// Concurrencies, when set, make the profile a sweep over
	// max_concurrency: one run per value (`concurrency: [1, 4, 16, 64]`).
	// RequestRates likewise sweep request_rate (0 stands for inf). At
	// most one of them is set; see Points. An invalid entry (not a
	// positive integer, a negative or unreadable rate) is kept as -1 for
	// validation to report.
	Concurrencies []int     `yaml:"-" json:"concurrencies,omitempty"`
	RequestRates  []float64 `yaml:"-" json:"request_rates,omitempty"`
	// Repeats is how many times each load point is run (default 1).
	Repeats int `yaml:"repeats,omitempty" json:"repeats,omitempty"`
}

// Step is one ordered optimization step (engine selection, quantization,
// parallelism, …) and the experiments tried in it.
type Step struct {
	ID    string `yaml:"id" json:"id"`
	Title string `yaml:"title" json:"title"`
	// Kind: engine-selection, quantization, parallelism, scheduling, …
	Kind string `yaml:"kind,omitempty" json:"kind,omitempty"`
	// Chosen is the experiment carried forward from this step; empty
	// means the step did not change the configuration, except in the step
	// holding the campaign's optimized experiment, where it defaults to
	// that experiment (DefaultChosen).
	Chosen      string       `yaml:"chosen,omitempty" json:"chosen,omitempty"`
	Experiments []Experiment `yaml:"experiments" json:"experiments"`
}

// Experiment is one engine configuration.
type Experiment struct {
	ID string `yaml:"id" json:"id"`
	// Name is the display label (vLLM, SGLang, +FP8, TP4+EP).
	Name string `yaml:"name" json:"name"`
	// Engine is vllm, sglang, trtllm, llamacpp, external or mock.
	Engine  string `yaml:"engine" json:"engine"`
	Version string `yaml:"version,omitempty" json:"version,omitempty"`
	// Command is the exact serve command. Alternatively Args are appended
	// to the engine's default launch command.
	Command string            `yaml:"command,omitempty" json:"command,omitempty"`
	Args    []string          `yaml:"args,omitempty" json:"args,omitempty"`
	Env     map[string]string `yaml:"env,omitempty" json:"env,omitempty"`
	// GPUs is the number of GPUs the experiment uses (default: the
	// campaign's hardware count).
	GPUs int `yaml:"gpus,omitempty" json:"gpus,omitempty"`
	// BaseURL points at an engine someone else runs (engine: external).
	BaseURL string `yaml:"base_url,omitempty" json:"base_url,omitempty"`
	// Profiles restricts the experiment to these profile ids (default all).
	Profiles []string `yaml:"profiles,omitempty" json:"profiles,omitempty"`
	// Note is a line of narrative shown next to the experiment.
	Note string `yaml:"note,omitempty" json:"note,omitempty"`
	// Expect is the status its runs are expected to end with when that is
	// not ok: "crashed" or "failed" (a configuration the engine refuses,
	// kept as a result as the labs keep theirs). perflab collect exits 1
	// when a run crashes or fails that its experiment does not expect.
	Expect string `yaml:"expect,omitempty" json:"expect,omitempty"`
}

// Experiment returns the experiment with the given id.
func (c *Campaign) Experiment(id string) (*Experiment, bool) {
	for i := range c.Steps {
		for j := range c.Steps[i].Experiments {
			if c.Steps[i].Experiments[j].ID == id {
				return &c.Steps[i].Experiments[j], true
			}
		}
	}
	return nil, false
}

// Profile returns the profile with the given id.
func (c *Campaign) Profile(id string) (*Profile, bool) {
	for i := range c.Profiles {
		if c.Profiles[i].ID == id {
			return &c.Profiles[i], true
		}
	}
	return nil, false
}

// DefaultChosen sets the chosen experiment of the step holding the
// campaign's optimized experiment when the campaign gives none: the
// experiment the campaign recommends is carried forward from its step (a
// campaign without chosen: showed its own optimized configuration as
// "not carried forward" in the summary of optimization options). Other
// steps without chosen carry nothing forward, as written.
func (c *Campaign) DefaultChosen() {
	for si := range c.Steps {
		s := &c.Steps[si]
		if s.Chosen != "" {
			continue
		}
		for _, e := range s.Experiments {
			if e.ID == c.Optimized && e.ID != "" {
				s.Chosen = e.ID
			}
		}
	}
}
