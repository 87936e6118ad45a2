package benchflags

func act(name string, k Kind, def, help string) Flag {
	return Flag{Name: name, Kind: k, Default: def, Help: help, Action: Act}
}

func warn(name string, k Kind, def, help, why string) Flag {
	return Flag{Name: name, Kind: k, Default: def, Help: help, Action: Warn, Why: why}
}

func group(name string, o Origin, rows ...Flag) []Flag {
	for i := range rows {
		rows[i].Group, rows[i].Origin = name, o
	}
	return rows
}

func join(parts ...[]Flag) Table {
	var t Table
	for _, p := range parts {
		t = append(t, p...)
	}
	return t
}

// Why strings shared by several rows.
const (
	noMultimodal = "perflab sends text prompts only"
	noDataset    = "a dataset perflab does not build"
	noPlots      = "perflab draws its charts at build time, from the result"
)

// VLLM are the 105 flags of Python's `vllm bench serve` (vLLM's names,
// kinds and defaults), then the vllm-bench flags perflab acts on.
// Another file may append its rows (perflab's own, a sweep's) before
// parsing: bench uses append(VLLM, Own...).
var VLLM = join(
	group("Server and model", Serve,
		act("backend", String, "openai", "openai (completions), openai-chat, or vllm (= openai)"),
		act("base-url", String, "", "server URL, e.g. http://127.0.0.1:8000 (overrides --host/--port)"),
		act("host", String, "127.0.0.1", "server host"),
		act("port", Int, "8000", "server port"),
		act("endpoint", String, "", "API path (default /v1/completions, or /v1/chat/completions for openai-chat)"),
		act("model", String, "", "model id (default: the server's first /v1/models entry: its id is sent, its root recorded)"),
		act("served-model-name", String, "", "model name sent in requests when it differs from --model"),
		act("tokenizer", String, "server", "tokenizer.json path, model folder, Hugging Face id found in the local cache ($HF_HUB_CACHE, $HF_HOME/hub, $XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub), or \"server\" for the server's /tokenize"),
		warn("tokenizer-mode", String, "auto", "tokenizer implementation (auto, hf, slow, mistral)", "perflab reads tokenizer.json itself"),
		warn("trust-remote-code", Bool, "", "trust remote code from Hugging Face", "perflab runs no model code"),
		warn("skip-tokenizer-init", Bool, "", "skip loading the tokenizer", "perflab counts with the tokenizer or the server's /tokenize"),
		warn("insecure", Bool, "", "skip TLS certificate verification", "perflab verifies certificates"),
		warn("lora-modules", List, "", "LoRA adapters to spread requests over", "perflab sends --model (or --served-model-name) on every request"),
		warn("lora-assignment", String, "random", "how requests pick a LoRA adapter", "no --lora-modules here"),
		act("header", List, "", "KEY=VALUE headers sent with every request, e.g. x-tenant=a (override OPENAI_API_KEY's Authorization)"),
		act("ready-check-timeout-sec", Int, "0", "send the first prompt as a test request before the run, again every 5 s until it succeeds, for at most this many seconds (0: no test request, vLLM's default)"),
	),
	group("Dataset", Serve,
		act("dataset-name", String, "random", "random, sharegpt, custom, prefix_repetition or timed_trace"),
		act("dataset-path", String, "", "ShareGPT JSON, custom JSONL or timed_trace JSONL file"),
		act("num-prompts", Int, "1000", "number of requests (multi-turn: conversations)"),
		act("seed", Int, "0", "random seed (dataset and arrivals)"),
		act("input-len", Int, "", "general input length: sets --random-input-len"),
		act("output-len", Int, "", "general output length: sets --random-output-len, --sharegpt-output-len, --custom-output-len and --prefix-repetition-output-len"),
		act("random-input-len", Int, "1024", "random: input tokens per request"),
		act("random-output-len", Int, "128", "random: output tokens per request"),
		act("random-range-ratio", Float, "0.0", "random: lengths drawn from [len*(1-r), len*(1+r)]"),
		act("random-prefix-len", Int, "0", "random: shared prefix tokens"),
		warn("random-batch-size", Int, "1", "inputs per request (embedding backends)", "perflab benchmarks generation only"),
		warn("no-reranker", Bool, "", "random-rerank: the model is not a reranker", noDataset),
		warn("random-mm-base-items-per-request", Int, "1", "random-mm: multimodal items per request", noMultimodal),
		warn("random-mm-num-mm-items-range-ratio", Float, "0.0", "random-mm: range ratio of the item count", noMultimodal),
		warn("random-mm-limit-mm-per-prompt", String, `{"image": 255, "video": 1}`, "random-mm: per-modality caps", noMultimodal),
		warn("random-mm-bucket-config", String, "", "random-mm: image/video size buckets", noMultimodal),
		warn("enable-multimodal-chat", Bool, "", "multimodal chat transformation", noMultimodal),
		act("sharegpt-output-len", Int, "", "sharegpt: fixed output length (default: the conversation's reply length)"),
		act("disable-shuffle", Bool, "", "sharegpt, custom, prefix_repetition: keep the file's (or the built) order"),
		act("no-oversample", Bool, "", "send fewer than --num-prompts requests when the dataset is smaller (default: repeat some)"),
		act("custom-output-len", Int, "256", "custom: output tokens per request; -1 takes each line's output_tokens"),
		act("skip-chat-template", Bool, "", "custom: send the prompt as written (default: the tokenizer's chat template wraps it, as vLLM)"),
		warn("custom-ensure-client-side-data", Bool, "", "custom_image/custom_audio: load media client-side", noMultimodal),
		act("prefix-repetition-prefix-len", Int, "256", "prefix_repetition: tokens of each shared prefix"),
		act("prefix-repetition-suffix-len", Int, "256", "prefix_repetition: random tokens after the prefix"),
		act("prefix-repetition-num-prefixes", Int, "10", "prefix_repetition: distinct prefixes (num-prompts / num-prefixes requests each)"),
		act("prefix-repetition-output-len", Int, "128", "prefix_repetition: output tokens per request"),
		act("timed-trace-chunk-hash-size", Int, "16", "timed_trace: tokens per hash id block"),
		act("timed-trace-sec-multiplier", Float, "1.0", "timed_trace: seconds per timestamp unit (0.001 for milliseconds)"),
		act("timed-trace-label-timestamp", String, "timestamp", "timed_trace: JSON key of the timestamp"),
		act("timed-trace-label-input-length", String, "input_length", "timed_trace: JSON key of the input length"),
		act("timed-trace-label-output-length", String, "output_length", "timed_trace: JSON key of the output length"),
		act("timed-trace-label-hash-ids", String, "hash_ids", "timed_trace: JSON key of the hash ids"),
		warn("sonnet-input-len", Int, "550", "sonnet: input tokens", noDataset),
		warn("sonnet-output-len", Int, "150", "sonnet: output tokens", noDataset),
		warn("sonnet-prefix-len", Int, "200", "sonnet: prefix tokens", noDataset),
		// vLLM's --no-stream is a dataset flag (load a Hugging Face dataset
		// without streaming), not non-streaming requests
		warn("no-stream", Bool, "", "load the Hugging Face dataset without streaming", "perflab loads no Hugging Face datasets"),
		warn("hf-name", String, "", "Hugging Face dataset name", noDataset),
		warn("hf-split", String, "", "Hugging Face dataset split", noDataset),
		warn("hf-subset", String, "", "Hugging Face dataset subset", noDataset),
		warn("hf-output-len", Int, "", "Hugging Face dataset output length", noDataset),
		warn("spec-bench-category", String, "", "spec_bench: category", noDataset),
		warn("spec-bench-output-len", Int, "256", "spec_bench: output tokens", noDataset),
		warn("speed-bench-category", String, "", "speed_bench: category", noDataset),
		warn("speed-bench-dataset-subset", String, "qualitative", "speed_bench: subset", noDataset),
		warn("speed-bench-output-len", Int, "4096", "speed_bench: output tokens", noDataset),
		warn("blazedit-min-distance", Float, "0.0", "blazedit: minimum edit distance", noDataset),
		warn("blazedit-max-distance", Float, "1.0", "blazedit: maximum edit distance", noDataset),
		warn("bfcl-categories", List, "", "bfcl: categories", noDataset),
		warn("asr-min-audio-len-sec", Float, "0.0", "ASR: shortest audio", noMultimodal),
		warn("asr-max-audio-len-sec", Float, "inf", "ASR: longest audio", noMultimodal),
	),
	group("Load", Serve,
		act("request-rate", String, "inf", "requests per second, or inf to send all at once"),
		act("burstiness", Float, "1.0", "gamma shape of the arrival gaps (1 = Poisson)"),
		act("max-concurrency", Int, "", "most requests in flight (default: no cap)"),
		act("ramp-up-strategy", String, "", "linear or exponential: the rate goes from --ramp-up-start-rps to --ramp-up-end-rps over the run"),
		act("ramp-up-start-rps", Int, "", "ramp-up: first rate (requests/s)"),
		act("ramp-up-end-rps", Int, "", "ramp-up: last rate (requests/s)"),
		act("self-timed", Bool, "", "timed_trace: send each request at its trace timestamp (the default for timed_trace)"),
		act("no-self-timed", Bool, "", "timed_trace: use --request-rate instead of the trace's timestamps"),
		warn("probe-request-rate", Float, "", "rate of extra latency probe requests", "perflab sends no probe requests"),
		act("num-warmups", Int, "0", "warmup requests before the measured run"),
		act("profile", Bool, "", "POST /start_profile before the run and /stop_profile after (the server must have a profiler configured)"),
		act("disable-tqdm", Bool, "", "no progress line (it is shown only on a terminal anyway)"),
	),
	group("Request", Serve,
		act("ignore-eos", Bool, "", "send ignore_eos (forced on for the random dataset, as vLLM does, and for timed_trace, whose output lengths are what it replays)"),
		act("top-p", Float, "", "top-p sampling parameter (sent only when given)"),
		act("top-k", Int, "", "top-k sampling parameter (sent only when given)"),
		act("min-p", Float, "", "min-p sampling parameter (sent only when given)"),
		act("temperature", Float, "", "sampling temperature (sent only when given: the server's default applies otherwise)"),
		act("frequency-penalty", Float, "", "frequency penalty (sent only when given)"),
		act("presence-penalty", Float, "", "presence penalty (sent only when given)"),
		act("repetition-penalty", Float, "", "repetition penalty (sent only when given; completions otherwise send 1.0 as vLLM)"),
		act("logprobs", Int, "", "completions: ask for this many logprobs per token (default null)"),
		act("extra-body", JSON, "", "JSON object merged into every request body (wins over the sampling flags); --extra-body.key value sets one member"),
		warn("chat-template-kwargs", JSON, "", "arguments of the chat template vLLM renders client-side (custom, speed_bench prompts)", "vLLM uses them only to render custom prompts, where perflab refuses them: it renders templates without arguments; server-side: --extra-body.chat_template_kwargs"),
		act("request-id-prefix", String, "", "x-request-id prefix; the request's index follows (default perflab-bench-<8 hex>-)"),
		warn("use-beam-search", Bool, "", "beam search", "a no-op in vLLM's client too"),
	),
	group("Results", Serve,
		act("percentile-metrics", String, "ttft,tpot,itl", "metrics to report percentiles of: ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue"),
		act("metric-percentiles", String, "99", "percentiles to report, e.g. 50,90,99"),
		act("goodput", List, "", "SLOs in ms, e.g. ttft:500 tpot:50"),
		act("save-result", Bool, "", "write vLLM's result JSON (and perflab's beside it)"),
		act("append-result", Bool, "", "like --save-result, but append the vLLM JSON as one more line to the file"),
		act("save-detailed", Bool, "", "with --save-result: include per-request lists and generated texts"),
		act("result-dir", String, "", "folder for --save-result files (default: current)"),
		act("result-filename", String, "", "file name for --save-result (default: vLLM's naming)"),
		act("label", String, "", "label of the run (default: the backend)"),
		act("metadata", List, "", "KEY=VALUE pairs recorded with the result"),
		warn("plot-timeline", Bool, "", "timeline plot", noPlots),
		warn("timeline-itl-thresholds", List, "", "ITL colour thresholds of the timeline plot", noPlots),
		warn("plot-dataset-stats", Bool, "", "dataset statistics plot", noPlots+"; --dry-run prints them"),
	),
	group("Multi-turn sessions and vllm-bench extras", VLLMBench,
		act("multi-turn", Bool, "", "chat sessions: each turn sends the whole history (openai-chat), one X-Session-ID per conversation; from random or sharegpt"),
		act("multi-turn-num-turns", Int, "3", "random: turns per conversation"),
		act("multi-turn-min-turns", Int, "0", "random: fewest turns (0: --multi-turn-num-turns)"),
		act("multi-turn-max-turns", Int, "0", "most turns (random, 0: --multi-turn-num-turns; sharegpt, 0: all)"),
		act("multi-turn-concurrency", Int, "", "conversations in flight (default --max-concurrency, else all)"),
		act("multi-turn-delay-ms", Int, "0", "user think time between a reply and the next turn"),
		act("per-turn-input-len", Int, "0", "random: input tokens of turns 2+ (0: --random-input-len)"),
		act("multi-turn-prefix-global-ratio", Float, "0.0", "random: share of the first turn's input every turn of every conversation starts with; above 0 (or the next), turns send no history (prefix-sharing mode)"),
		act("multi-turn-prefix-conversation-ratio", Float, "0.0", "random: share of the first turn's input every turn of one conversation starts with (after the global part); the two sum below 1"),
		act("dry-run", Bool, "", "build the dataset, print its statistics, send nothing"),
		act("prompt-token-ids", Bool, "", "completions: send each prompt as its token ids"),
	),
)

// Own are perflab's own flags.
var Own = group("perflab", Perflab,
	act("output-json", String, "", "write perflab's result JSON here (default with --save-result: beside the vLLM JSON, .perflab.json)"),
	act("request-timeout", Duration, "6h0m0s", "per-request timeout"),
	act("stall-timeout", Duration, "5m0s", "fail a request whose stream sends nothing for this long mid-stream (before its first token: while no request of the run receives anything); at least 100ms; 0: off"),
)
