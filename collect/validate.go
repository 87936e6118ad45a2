package collect

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/engine"
	"github.com/perflab/perflab/collect/redact"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/stats"
)

// slug is an id usable in a file name. "--" separates the experiment and
// the profile in result file names, so ids may not contain it.
var slug = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// Validate checks the campaign for what would make a run wrong or
// impossible: missing or duplicate ids, unknown engines and profiles, a
// command that cannot be run or does not serve the campaign's model, more
// GPUs than the campaign's hardware has. Every problem is reported at
// once, each as file:line: field: what.
func (f *File) Validate() error {
	ps := &problems{f: f}
	c := &f.Campaign
	checkID(ps, at("id"), c.ID)
	if c.Model.ID == "" {
		ps.add(at("model", "id"), "missing: the Hugging Face id of the model (Qwen/Qwen3-32B)")
	}
	if c.Hardware.Count < 0 {
		ps.add(at("hardware", "count"), "must be ≥ 0")
	}
	switch strings.ToLower(c.Hardware.Accelerator) {
	case "", "gpu", "npu", "cpu":
	default:
		ps.add(at("hardware", "accelerator"), "%q: want gpu, npu or cpu", c.Hardware.Accelerator)
	}
	for i, e := range c.Engines {
		if _, ok := engine.Lookup(e.Name); !ok {
			ps.add(at("engines", i, "name"), "unknown engine %q (known: %s)", e.Name, strings.Join(engine.Names(), ", "))
		}
	}
	switch c.Rounds {
	case "", "manual", "daily", "weekly", "monthly":
	default:
		ps.add(at("rounds"), "unknown value %q (manual, daily, weekly or monthly)", c.Rounds)
	}
	switch c.Bench.Backend {
	case "", "openai", "openai-chat":
	default:
		ps.add(at("bench", "backend"), "unknown backend %q (openai or openai-chat)", c.Bench.Backend)
	}
	if _, err := StallTimeout(c.Bench); err != nil {
		ps.add(at("bench", "stall_timeout"), "%v", err)
	}

	// Profiles.
	profiles := map[string]bool{}
	if len(c.Profiles) == 0 {
		ps.add(at("profiles"), "missing: a campaign needs at least one benchmark profile")
	}
	for i, p := range c.Profiles {
		path := func(k string) []any { return at("profiles", i, k) }
		checkID(ps, path("id"), p.ID)
		if profiles[p.ID] && p.ID != "" {
			ps.add(path("id"), "duplicate profile id %q", p.ID)
		}
		profiles[p.ID] = true
		validateDataset(ps, c, i, &p)
		if p.NumPrompts <= 0 {
			ps.add(path("num_prompts"), "must be > 0")
		}
		if p.RequestRate < 0 {
			ps.add(path("request_rate"), "must be ≥ 0 (0 or absent: all at once)")
		}
		if p.MaxConcurrency < 0 {
			ps.add(path("max_concurrency"), "must be ≥ 0")
		}
		if p.RangeRatio < 0 || p.RangeRatio >= 1 {
			ps.add(path("range_ratio"), "must be in [0, 1)")
		}
		validateSweep(ps, f, i, &p)
	}
	if err := c.SLO.Validate(); err != nil {
		ps.add(at("slo"), "%v", err)
	}
	if c.Cost != nil && !(c.Cost.GPUHourUSD > 0) {
		ps.add(at("cost", "gpu_hour_usd"), "must be a price > 0 (US dollars per GPU-hour)")
	}

	// Steps and experiments.
	experiments := map[string]bool{}
	steps := map[string]bool{}
	if len(c.Steps) == 0 {
		ps.add(at("steps"), "missing: a campaign needs at least one step with experiments")
	}
	for si, s := range c.Steps {
		checkID(ps, at("steps", si, "id"), s.ID)
		if steps[s.ID] && s.ID != "" {
			ps.add(at("steps", si, "id"), "duplicate step id %q", s.ID)
		}
		steps[s.ID] = true
		if len(s.Experiments) == 0 {
			ps.add(at("steps", si, "experiments"), "missing: a step needs at least one experiment")
		}
		inStep := map[string]bool{}
		for ei, e := range s.Experiments {
			path := func(k string) []any { return at("steps", si, "experiments", ei, k) }
			checkID(ps, path("id"), e.ID)
			if experiments[e.ID] && e.ID != "" {
				ps.add(path("id"), "duplicate experiment id %q", e.ID)
			}
			experiments[e.ID] = true
			inStep[e.ID] = true
			validateExperiment(ps, c, &e, path)
			for pi, id := range e.Profiles {
				if !profiles[id] {
					ps.add(at("steps", si, "experiments", ei, "profiles", pi), "unknown profile %q", id)
				}
			}
		}
		if s.Chosen != "" && !inStep[s.Chosen] {
			ps.add(at("steps", si, "chosen"), "%q is not an experiment of this step", s.Chosen)
		}
	}
	for _, k := range []string{"baseline", "optimized"} {
		id := c.Baseline
		if k == "optimized" {
			id = c.Optimized
		}
		switch {
		case id == "":
			ps.add(at(k), "missing: the id of the %s experiment", k)
		case !experiments[id]:
			ps.add(at(k), "unknown experiment %q", id)
		}
	}
	return ps.err()
}

func checkID(ps *problems, path []any, id string) {
	switch {
	case id == "":
		ps.add(path, "missing")
	case !slug.MatchString(id) || strings.Contains(id, "--"):
		ps.add(path, "%q is not a valid id: lowercase letters, digits, '.', '_' and '-' (no \"--\")", id)
	}
}

// validateExperiment checks one experiment's engine, command and GPUs.
func validateExperiment(ps *problems, c *schema.Campaign, e *schema.Experiment, path func(string) []any) {
	a, ok := engine.Lookup(e.Engine)
	if !ok {
		if e.Engine == "" {
			ps.add(path("engine"), "missing (one of %s)", strings.Join(engine.Names(), ", "))
		} else {
			ps.add(path("engine"), "unknown engine %q (known: %s)", e.Engine, strings.Join(engine.Names(), ", "))
		}
		return
	}
	if e.GPUs < 0 {
		ps.add(path("gpus"), "must be ≥ 0")
	}
	switch e.Expect {
	case "", "ok", string(schema.StatusCrashed), string(schema.StatusFailed):
	default:
		ps.add(path("expect"), "%q: want crashed or failed (the status the experiment's runs are expected to end with)", e.Expect)
	}
	if c.Hardware.Count > 0 && e.GPUs > c.Hardware.Count {
		ps.add(path("gpus"), "uses %d GPUs but the campaign's hardware has %d", e.GPUs, c.Hardware.Count)
	}
	if !a.Launches {
		if e.BaseURL == "" {
			ps.add(path("base_url"), "missing: an external engine is reached at its base_url")
		} else if msg := checkBaseURL(e.BaseURL); msg != "" {
			ps.add(path("base_url"), "%s", msg)
		}
		if e.Command != "" || len(e.Args) > 0 {
			ps.add(path("command"), "an external engine is not launched: remove command and args")
		}
		return
	}
	if e.BaseURL != "" {
		ps.add(path("base_url"), "only external engines take a base_url; a launched engine is reached on its --host/--port")
	}
	if e.Command != "" && len(e.Args) > 0 {
		ps.add(path("args"), "give either command (the exact serve command) or args (appended to the engine's default command), not both")
		return
	}
	argv := a.DefaultArgv(c.Model.ID, e.Args)
	if e.Command != "" {
		cmd, err := engine.ParseCommand(e.Command)
		if err != nil {
			ps.add(path("command"), "%v", err)
			return
		}
		argv = cmd.Argv
		if !servesModel(argv, c.Model) {
			ps.add(path("command"), "does not serve the campaign's model %s (nor a variant: %s)", c.Model.ID, strings.Join(c.Model.Variants, ", "))
		}
	}
	if _, err := a.Endpoint(argv); err != nil {
		ps.add(path("command"), "%v", err)
	}
	if tp := parallelism(argv); tp > 0 {
		gpus := e.GPUs
		if gpus == 0 {
			gpus = c.Hardware.Count
		}
		if gpus > 0 && tp > gpus {
			ps.add(path("command"), "asks for %d-way parallelism but the experiment has %d GPUs", tp, gpus)
		}
	}
}

// servesModel reports whether argv names the model: a word equal to its
// id or a variant, or a file whose base name (without .gguf) is one.
func servesModel(argv []string, m schema.CampaignModel) bool {
	names := append([]string{m.ID}, m.Variants...)
	for _, w := range argv {
		if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
			w = v
		}
		base := strings.TrimSuffix(filepath.Base(w), ".gguf")
		for _, n := range names {
			if n == "" {
				continue
			}
			if w == n || base == n || base == filepath.Base(n) && strings.Contains(w, "/") && strings.HasSuffix(w, n) {
				return true
			}
		}
	}
	return false
}

// parallelism reads the tensor × pipeline parallel degree of a command
// (vLLM, SGLang and TensorRT-LLM spellings); 0 when none is given.
func parallelism(argv []string) int {
	get := func(names ...string) int {
		v, ok := engine.FlagValue(argv, names...)
		if !ok {
			return 0
		}
		n, _ := strconv.Atoi(v)
		return n
	}
	tp := get("-tp", "--tensor-parallel-size", "--tp-size", "--tp", "--tp_size")
	pp := get("-pp", "--pipeline-parallel-size", "--pp-size", "--pp", "--pp_size")
	dp := get("-dp", "--data-parallel-size", "--dp-size", "--dp")
	if tp == 0 && pp == 0 && dp == 0 {
		return 0
	}
	return max(tp, 1) * max(pp, 1) * max(dp, 1)
}

// Warnings lists what is legal but probably wrong: an experiment whose
// command launches another engine than its engine field says (the health
// routes, port and version capture follow the engine field), or a JSON
// value written without quotes around it (--speculative-config={"a":1}
// reaches the engine as {a:1}).
func (f *File) Warnings() []string {
	var out []string
	c := &f.Campaign
	for pi := range c.Profiles {
		p := &c.Profiles[pi]
		// Repeats too few for the Mann-Whitney U test ever to show a
		// difference between two configurations: every delta of the page
		// will read "too few runs to test".
		if n := p.RepeatCount(); n > 1 && stats.MinP(n, n) > stats.Alpha {
			out = append(out, fmt.Sprintf("%s:%d: profiles[%d].repeats: %d runs per configuration can never show a difference (the U test's smallest p at %d+%d is %.2f > %.2f): every comparison will read \"too few runs to test\"; use repeats: %d or more",
				f.Path, f.Line("profiles", pi, "repeats"), pi, n, n, n, stats.MinP(n, n), stats.Alpha, stats.MinRunsPerSide))
		}
	}
	for si, s := range c.Steps {
		for ei, e := range s.Experiments {
			if e.Command == "" {
				continue
			}
			cmd, err := engine.ParseCommand(e.Command)
			if err != nil {
				continue
			}
			if prog := engine.Detect(cmd.Argv); prog != "" && prog != e.Engine {
				out = append(out, fmt.Sprintf("%s:%d: steps[%d].experiments[%d].command: launches %s but engine is %s; health, port and version follow %s",
					f.Path, f.Line("steps", si, "experiments", ei, "command"), si, ei, prog, e.Engine, e.Engine))
			}
			for _, w := range cmd.Argv {
				if v := lostJSONQuotes(w); v != "" {
					out = append(out, fmt.Sprintf("%s:%d: steps[%d].experiments[%d].command: the engine receives %s, which is not JSON: "+
						"a shell, like the collector, removes the double quotes; put the value in single quotes (%s'%s')",
						f.Path, f.Line("steps", si, "experiments", ei, "command"), si, ei, w, strings.TrimSuffix(w, v), rawValue(e.Command, w, v)))
				}
			}
		}
	}
	return out
}

// lostJSONQuotes returns the value of an argument (--flag=VALUE or a bare
// word) that looks like a JSON object or array but is not valid JSON
// after the shell rules: its double quotes were taken as quoting. "" if
// the argument is fine.
func lostJSONQuotes(arg string) string {
	v := arg
	if strings.HasPrefix(arg, "-") {
		_, after, ok := strings.Cut(arg, "=")
		if !ok {
			return ""
		}
		v = after
	}
	object := strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}")
	array := strings.HasPrefix(v, "[") && strings.HasSuffix(v, "]")
	if !object && !array || json.Valid([]byte(v)) || !strings.Contains(v, ":") {
		return ""
	}
	return v
}

// rawValue finds how the command wrote the value v of the argument arg
// (before the shell rules took its quotes): the text after arg's flag
// part up to the next blank. It falls back to v.
func rawValue(command, arg, v string) string {
	prefix := strings.TrimSuffix(arg, v)
	i := strings.Index(command, prefix+v[:1])
	if prefix == "" || i < 0 {
		return v
	}
	raw := command[i+len(prefix):]
	if j := strings.IndexAny(raw, " \t\n"); j >= 0 {
		raw = raw[:j]
	}
	return raw
}

// checkBaseURL says what is wrong with an external engine's base_url, ""
// if nothing. The routes (/health, /v1/models, the bench endpoint) are
// appended to it, so it is the server's root: OpenAI clients' habit of a
// base URL ending in /v1 would ask for /v1/v1/models and wait out the
// health deadline.
func checkBaseURL(raw string) string {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return fmt.Sprintf("not a URL: %v", err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		return fmt.Sprintf("%s: want http://HOST:PORT or https://HOST", redact.URL(raw))
	case u.RawQuery != "" || u.Fragment != "":
		return fmt.Sprintf("%s: no query or fragment: routes are appended to the path (give an API key as env OPENAI_API_KEY)", redact.URL(raw))
	case strings.HasSuffix(strings.TrimRight(u.Path, "/"), "/v1"):
		return fmt.Sprintf("%s: give the server's root, without /v1: the collector appends /v1/models and the bench endpoint itself", redact.URL(raw))
	}
	return ""
}

// validateSweep checks a profile's sweep points and repeats.
func validateSweep(ps *problems, f *File, i int, p *schema.Profile) {
	key := "max_concurrency"
	if f.Has("profiles", i, "concurrency") {
		key = "concurrency"
	}
	seen := map[float64]bool{}
	for j, c := range p.Concurrencies {
		if c < 1 {
			ps.add(at("profiles", i, key, j), "a sweep point must be an integer ≥ 1")
		} else if seen[float64(c)] {
			ps.add(at("profiles", i, key, j), "duplicate point %d", c)
		}
		seen[float64(c)] = true
	}
	for j, r := range p.RequestRates {
		if r < 0 {
			ps.add(at("profiles", i, "request_rate", j), "a sweep point must be a rate > 0 or inf")
		} else if seen[r] && r == 0 {
			// 0 and inf are kept as 0: say why "inf" repeats one.
			ps.add(at("profiles", i, "request_rate", j), "duplicate point %s (0 is inf: no rate limit)", schema.Point{Sweep: schema.SweepRate, Value: r})
		} else if seen[r] {
			ps.add(at("profiles", i, "request_rate", j), "duplicate point %s", schema.Point{Sweep: schema.SweepRate, Value: r})
		}
		seen[r] = true
	}
	if p.Repeats < 0 || p.Repeats > 100 {
		ps.add(at("profiles", i, "repeats"), "must be in [1, 100]")
	}
}

// campaignDatasets are the datasets a profile may name: perflab bench's.
var campaignDatasets = []string{"random", "sharegpt", "custom", "prefix_repetition", "timed_trace"}

// validateDataset checks profile i's dataset and its own settings (named
// as perflab bench's flags): each setting belongs to one dataset or mode,
// and the values are those perflab bench accepts.
func validateDataset(ps *problems, c *schema.Campaign, i int, p *schema.Profile) {
	path := func(k string) []any { return at("profiles", i, k) }
	// settings given for another dataset than the profile's
	only := func(dataset string, given bool, field string) {
		if given && p.Dataset != dataset {
			ps.add(path(field), "applies to the %s dataset only (this profile's is %q)", dataset, p.Dataset)
		}
	}
	only("custom", p.CustomOutputLen != 0, "custom_output_len")
	only("custom", p.SkipChatTemplate, "skip_chat_template")
	only("prefix_repetition", p.PrefixRepetitionPrefixLen != nil, "prefix_repetition_prefix_len")
	only("prefix_repetition", p.PrefixRepetitionSuffixLen != nil, "prefix_repetition_suffix_len")
	only("prefix_repetition", p.PrefixRepetitionNumPrefixes != 0, "prefix_repetition_num_prefixes")
	only("prefix_repetition", p.PrefixRepetitionOutputLen != 0, "prefix_repetition_output_len")
	only("timed_trace", p.TimedTraceChunkHashSize != 0, "timed_trace_chunk_hash_size")
	only("timed_trace", p.TimedTraceSecMultiplier != 0, "timed_trace_sec_multiplier")
	only("timed_trace", p.SelfTimed != nil, "self_timed")
	// the random dataset's lengths are not read by the datasets that
	// have lengths of their own: an author who wrote them meant something
	if own, ok := map[string]string{"custom": "the prompts' own, output custom_output_len",
		"prefix_repetition": "prefix_repetition_prefix_len and _suffix_len, output prefix_repetition_output_len",
		"timed_trace":       "each line's input_length and output_length"}[p.Dataset]; ok {
		for _, f := range []struct {
			field string
			given bool
		}{{"input_len", p.InputLen != 0}, {"output_len", p.OutputLen != 0}, {"range_ratio", p.RangeRatio != 0}} {
			if f.given {
				ps.add(path(f.field), "not read by the %s dataset (its lengths: %s)", p.Dataset, own)
			}
		}
	}
	switch p.Dataset {
	case "random":
		if p.InputLen <= 0 {
			ps.add(path("input_len"), "must be > 0 for the random dataset")
		}
		if p.OutputLen <= 0 {
			ps.add(path("output_len"), "must be > 0 for the random dataset")
		}
	case "sharegpt", "custom", "timed_trace":
		if p.DatasetPath == "" {
			what := map[string]string{"sharegpt": "the ShareGPT JSON file", "custom": `the JSONL file of {"prompt": …} lines`,
				"timed_trace": "the trace's JSONL file"}[p.Dataset]
			ps.add(path("dataset_path"), "missing: %s", what)
		}
	case "prefix_repetition":
		if p.DatasetPath != "" {
			ps.add(path("dataset_path"), "the prefix_repetition dataset reads no file")
		}
	case "":
		ps.add(path("dataset"), "missing: one of %s", strings.Join(campaignDatasets, ", "))
	default:
		ps.add(path("dataset"), "unknown dataset %q (%s)", p.Dataset, strings.Join(campaignDatasets, ", "))
	}
	switch p.Dataset {
	case "custom":
		if p.CustomOutputLen < -1 {
			ps.add(path("custom_output_len"), "want a positive number, or -1 for each line's output_tokens")
		}
	case "prefix_repetition":
		pre, suf := 256, 256
		if p.PrefixRepetitionPrefixLen != nil {
			pre = *p.PrefixRepetitionPrefixLen
		}
		if p.PrefixRepetitionSuffixLen != nil {
			suf = *p.PrefixRepetitionSuffixLen
		}
		switch {
		case pre < 0:
			ps.add(path("prefix_repetition_prefix_len"), "must be ≥ 0")
		case suf < 0:
			ps.add(path("prefix_repetition_suffix_len"), "must be ≥ 0")
		case pre+suf == 0:
			ps.add(path("prefix_repetition_suffix_len"), "prefix and suffix lengths are both 0: the prompts would be empty")
		}
		if p.PrefixRepetitionNumPrefixes < 0 {
			ps.add(path("prefix_repetition_num_prefixes"), "must be ≥ 1 (absent: 10)")
		}
		if p.PrefixRepetitionOutputLen < 0 {
			ps.add(path("prefix_repetition_output_len"), "must be ≥ 1 (absent: 128)")
		}
	case "timed_trace":
		if p.TimedTraceChunkHashSize < 0 {
			ps.add(path("timed_trace_chunk_hash_size"), "must be ≥ 1 (absent: 16)")
		}
		if p.TimedTraceSecMultiplier < 0 {
			ps.add(path("timed_trace_sec_multiplier"), "must be > 0 (absent: 1)")
		}
		if backend, _ := backendEndpoint(c.Bench); backend == "openai-chat" {
			ps.add(path("dataset"), "timed_trace prompts are token ids: the campaign's bench.backend must be openai (completions)")
		}
		if (p.SelfTimed == nil || *p.SelfTimed) && (p.RequestRate > 0 || len(p.RequestRates) > 0) {
			ps.add(path("request_rate"), "timed_trace sends at the trace's timestamps: drop request_rate, or set self_timed: false")
		}
	}

	// multi-turn sessions
	mt := map[string]bool{"multi_turn_num_turns": p.MultiTurnNumTurns != 0, "multi_turn_min_turns": p.MultiTurnMinTurns != 0,
		"multi_turn_max_turns": p.MultiTurnMaxTurns != 0, "multi_turn_concurrency": p.MultiTurnConcurrency != 0,
		"multi_turn_delay_ms": p.MultiTurnDelayMs != 0, "per_turn_input_len": p.PerTurnInputLen != 0,
		"multi_turn_prefix_global_ratio": p.MultiTurnPrefixGlobalRatio != 0, "multi_turn_prefix_conversation_ratio": p.MultiTurnPrefixConversationRatio != 0}
	if !p.MultiTurn {
		for _, k := range []string{"multi_turn_num_turns", "multi_turn_min_turns", "multi_turn_max_turns", "multi_turn_concurrency",
			"multi_turn_delay_ms", "per_turn_input_len", "multi_turn_prefix_global_ratio", "multi_turn_prefix_conversation_ratio"} {
			if mt[k] {
				ps.add(path(k), "needs multi_turn: true")
			}
		}
	} else {
		if p.Dataset != "random" && p.Dataset != "sharegpt" {
			ps.add(path("multi_turn"), "builds conversations from the random or sharegpt dataset, not %q", p.Dataset)
		}
		if backend, _ := backendEndpoint(c.Bench); backend != "openai-chat" {
			ps.add(path("multi_turn"), "sends chat messages: the campaign's bench.backend must be openai-chat")
		}
		if p.RequestRate > 0 || len(p.RequestRates) > 0 || p.Burstiness != 0 {
			ps.add(path("multi_turn"), "paces turns by the replies (and multi_turn_delay_ms): drop request_rate and burstiness")
		}
		for _, kv := range []struct {
			k string
			v int
		}{{"multi_turn_num_turns", p.MultiTurnNumTurns}, {"multi_turn_min_turns", p.MultiTurnMinTurns},
			{"multi_turn_max_turns", p.MultiTurnMaxTurns}, {"multi_turn_concurrency", p.MultiTurnConcurrency},
			{"multi_turn_delay_ms", p.MultiTurnDelayMs}, {"per_turn_input_len", p.PerTurnInputLen}} {
			if kv.v < 0 {
				ps.add(path(kv.k), "must be ≥ 0")
			}
		}
		g, cr := p.MultiTurnPrefixGlobalRatio, p.MultiTurnPrefixConversationRatio
		switch {
		case !(g >= 0 && g <= 1):
			ps.add(path("multi_turn_prefix_global_ratio"), "must be in [0.0, 1.0]")
		case !(cr >= 0 && cr <= 1):
			ps.add(path("multi_turn_prefix_conversation_ratio"), "must be in [0.0, 1.0]")
		case g+cr >= 1:
			ps.add(path("multi_turn_prefix_conversation_ratio"), "the two prefix ratios must sum below 1.0 (each turn needs a part of its own)")
		case (g > 0 || cr > 0) && p.Dataset != "random":
			ps.add(path("multi_turn_prefix_global_ratio"), "the prefix ratios work with the random dataset only")
		}
		if lo, hi := profileMultiTurn(p).Turns(); hi < lo && p.Dataset == "random" {
			ps.add(path("multi_turn_max_turns"), "%d is below the fewest turns %d", hi, lo)
		}
	}

	// ramp-up
	given := p.RampUpStartRPS != 0 || p.RampUpEndRPS != 0
	switch {
	case p.RampUpStrategy == "" && given:
		ps.add(path("ramp_up_start_rps"), "needs ramp_up_strategy (linear or exponential)")
	case p.RampUpStrategy == "":
	case p.RampUpStrategy != "linear" && p.RampUpStrategy != "exponential":
		ps.add(path("ramp_up_strategy"), "unknown strategy %q (linear or exponential)", p.RampUpStrategy)
	case p.RampUpStartRPS < 1:
		// vLLM's first request would have rate 0 (its get_request asserts)
		ps.add(path("ramp_up_start_rps"), "must be ≥ 1 (the first request's rate)")
	case p.RampUpEndRPS < p.RampUpStartRPS:
		ps.add(path("ramp_up_end_rps"), "must be ≥ ramp_up_start_rps %d", p.RampUpStartRPS)
	case p.RequestRate > 0 || len(p.RequestRates) > 0:
		ps.add(path("request_rate"), "the ramp sets the rate: drop request_rate")
	case p.MultiTurn:
		ps.add(path("ramp_up_strategy"), "multi-turn sessions have no request rate to ramp up")
	case p.Dataset == "timed_trace" && (p.SelfTimed == nil || *p.SelfTimed):
		ps.add(path("ramp_up_strategy"), "timed_trace sends at the trace's timestamps: set self_timed: false to ramp")
	}
}
