package collect

import (
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/engine"
	"github.com/perflab/perflab/collect/schema"
)

// Benchmark tools a campaign may name in bench.tool. The collector always
// measures with perflab bench, whose flags are vllm bench serve's; the
// tool only says how the plan prints the benchmark commands (the seeds'
// own commands), so a reader can repeat them with the original tool.
const (
	ToolPerflab  = "perflab bench"
	ToolVLLM     = "vllm bench serve"
	ToolGuideLLM = "guidellm"
)

// backendEndpoint returns the campaign's backend and endpoint with
// vLLM's defaults filled in (openai on /v1/completions; openai-chat on
// /v1/chat/completions).
func backendEndpoint(b schema.BenchSpec) (string, string) {
	backend, endpoint := b.Backend, b.Endpoint
	if backend == "" {
		backend = "openai"
		if strings.Contains(endpoint, "chat") {
			backend = "openai-chat"
		}
	}
	if endpoint == "" {
		endpoint = "/v1/completions"
		if backend == "openai-chat" {
			endpoint = "/v1/chat/completions"
		}
	}
	return backend, endpoint
}

// BenchArgs returns the vllm bench serve style flags of a profile run
// against model, in the order the seeds write them.
func BenchArgs(c *schema.Campaign, p *schema.Profile, model string) []string {
	backend, endpoint := backendEndpoint(c.Bench)
	args := []string{"--model", model, "--backend", backend, "--endpoint", endpoint, "--dataset-name", p.Dataset}
	if p.DatasetPath != "" {
		args = append(args, "--dataset-path", p.DatasetPath)
	}
	switch p.Dataset {
	case "random":
		args = append(args, "--random-input-len", itoa(p.InputLen), "--random-output-len", itoa(p.OutputLen))
		if p.RangeRatio != 0 {
			args = append(args, "--random-range-ratio", ftoa(p.RangeRatio))
		}
	case "sharegpt":
		if p.OutputLen > 0 {
			args = append(args, "--sharegpt-output-len", itoa(p.OutputLen))
		}
	case "custom":
		if p.CustomOutputLen != 0 {
			args = append(args, "--custom-output-len", itoa(p.CustomOutputLen))
		}
		if p.SkipChatTemplate {
			args = append(args, "--skip-chat-template")
		}
	case "prefix_repetition":
		if v := p.PrefixRepetitionPrefixLen; v != nil {
			args = append(args, "--prefix-repetition-prefix-len", itoa(*v))
		}
		if v := p.PrefixRepetitionSuffixLen; v != nil {
			args = append(args, "--prefix-repetition-suffix-len", itoa(*v))
		}
		if v := p.PrefixRepetitionNumPrefixes; v != 0 {
			args = append(args, "--prefix-repetition-num-prefixes", itoa(v))
		}
		if v := p.PrefixRepetitionOutputLen; v != 0 {
			args = append(args, "--prefix-repetition-output-len", itoa(v))
		}
	case "timed_trace":
		if v := p.TimedTraceChunkHashSize; v != 0 {
			args = append(args, "--timed-trace-chunk-hash-size", itoa(v))
		}
		if v := p.TimedTraceSecMultiplier; v != 0 {
			args = append(args, "--timed-trace-sec-multiplier", ftoa(v))
		}
		if p.SelfTimed != nil && !*p.SelfTimed {
			args = append(args, "--no-self-timed")
		}
	}
	if p.MultiTurn {
		args = append(args, "--multi-turn")
		for _, f := range []struct {
			flag string
			v    int
		}{{"--multi-turn-num-turns", p.MultiTurnNumTurns}, {"--multi-turn-min-turns", p.MultiTurnMinTurns},
			{"--multi-turn-max-turns", p.MultiTurnMaxTurns}, {"--multi-turn-concurrency", p.MultiTurnConcurrency},
			{"--multi-turn-delay-ms", p.MultiTurnDelayMs}, {"--per-turn-input-len", p.PerTurnInputLen}} {
			if f.v != 0 {
				args = append(args, f.flag, itoa(f.v))
			}
		}
		if v := p.MultiTurnPrefixGlobalRatio; v != 0 {
			args = append(args, "--multi-turn-prefix-global-ratio", ftoa(v))
		}
		if v := p.MultiTurnPrefixConversationRatio; v != 0 {
			args = append(args, "--multi-turn-prefix-conversation-ratio", ftoa(v))
		}
	}
	if p.RampUpStrategy != "" {
		args = append(args, "--ramp-up-strategy", p.RampUpStrategy, "--ramp-up-start-rps", itoa(p.RampUpStartRPS), "--ramp-up-end-rps", itoa(p.RampUpEndRPS))
	}
	args = append(args, "--num-prompts", itoa(p.NumPrompts))
	if p.RequestRate > 0 {
		args = append(args, "--request-rate", ftoa(p.RequestRate))
	}
	if p.Burstiness != 0 {
		args = append(args, "--burstiness", ftoa(p.Burstiness))
	}
	if p.MaxConcurrency > 0 {
		args = append(args, "--max-concurrency", itoa(p.MaxConcurrency))
	}
	if p.Seed != 0 {
		args = append(args, "--seed", strconv.FormatInt(p.Seed, 10))
	}
	return append(args, p.Args...)
}

// BenchCommand is the benchmark command line of a profile as the
// campaign's tool writes it, with target standing for the endpoint.
func BenchCommand(c *schema.Campaign, p *schema.Profile, model, target string) string {
	switch c.Bench.Tool {
	case ToolGuideLLM:
		return guidellmCommand(p, model, target)
	case ToolVLLM:
		return ToolVLLM + " " + engine.Quote(BenchArgs(c, p, model))
	}
	args := append(BenchArgs(c, p, model), p.SweepArgs()...)
	if c.Bench.StallTimeout != "" { // perflab's own flag: not in BenchArgs, which vllm bench serve takes too
		args = append(args, "--stall-timeout", c.Bench.StallTimeout)
	}
	if target != "" {
		args = append([]string{"--base-url", target}, args...)
	}
	return ToolPerflab + " " + engine.Quote(args)
}

// guidellmCommand writes GPUStack's guidellm replacement command
// (seeds/000: a constant-rate profile with a request budget).
func guidellmCommand(p *schema.Profile, model, target string) string {
	if target == "" {
		target = "${target}"
	}
	rate := "1000"
	if p.RequestRate > 0 {
		rate = ftoa(p.RequestRate)
	}
	args := []string{"guidellm", "benchmark", "--target", target, "--profile", "constant", "--rate", rate,
		"--max-requests", itoa(p.NumPrompts), "--processor", model}
	switch p.Dataset {
	case "sharegpt":
		path := p.DatasetPath
		if !strings.Contains(path, "/") {
			path = "./" + path
		}
		args = append(args, "--data", path)
	default:
		args = append(args, "--data", `"prompt_tokens=`+itoa(p.InputLen)+",output_tokens="+itoa(p.OutputLen)+`"`)
		seed := p.Seed
		if seed == 0 {
			seed = 42
		}
		args = append(args, "--random-seed", strconv.FormatInt(seed, 10))
	}
	return strings.Join(args, " ") // as GPUStack's page writes it
}

func itoa(n int) string { return strconv.Itoa(n) }

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
