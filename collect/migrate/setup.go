package migrate

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
)

// setupInfo is what the Experimental Setup sections say.
type setupInfo struct {
	modelText string // as written in the Model section
	modelLine int
	hwVendor  string
	hwGPU     string
	hwCount   int
	engines   []schema.EngineSpec
}

var (
	reListMark   = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+`)
	reEngineVer  = regexp.MustCompile(`(?i)^(vLLM|SGLang|TensorRT-LLM|TRT-LLM|llama\.cpp|MindIE)\s*:?\s*([vb]?\d[\w.+-]*)`)
	reGPUCount   = regexp.MustCompile(`(?i)(\d+)\s*[x×]\s*`)
	reGPUName    = regexp.MustCompile(`(?i)\b(NVIDIA|AMD|Intel|Huawei|Ascend)?\s*((?:[A-Z]{1,3}\d{2,4}[A-Za-z]*|RTX\s*\w+|MI\d+\w*|Gaudi\s*\d*|910B?)(?:\s*\d+GB)?)`)
	reYAMLPair   = regexp.MustCompile(`([a-z_]+):\s*([^\s]+)`)
	reDatasetRow = regexp.MustCompile(`(?i)^(.+?):\s*(\d+)\s*input tokens?\s*,\s*(\d+)\s*output tokens?`)
)

// engineID maps a display name to perflab's engine kind.
func engineID(s string) string {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "vllm":
		return "vllm"
	case "sglang":
		return "sglang"
	case "tensorrt-llm", "trt-llm", "trtllm":
		return "trtllm"
	case "llama.cpp", "llamacpp":
		return "llamacpp"
	case "mindie":
		return "mindie"
	}
	return ""
}

// contentLines returns the non-blank lines of [from, to), trimmed, with
// their indexes.
func (p *page) contentLines(from, to int) ([]string, []int) {
	var ls []string
	var idx []int
	for i := from; i >= 0 && i < to && i < len(p.lines); i++ {
		if t := strings.TrimSpace(p.lines[i]); t != "" && !reFenceLine.MatchString(t) {
			ls = append(ls, t)
			idx = append(idx, i)
		}
	}
	return ls, idx
}

func (m *migration) readSetup() {
	p := m.p
	if from, to := p.sectionNamed("Model", "Models"); from >= 0 {
		ls, idx := p.contentLines(from, to)
		if len(ls) > 0 {
			m.setup.modelText = modelText(reListMark.ReplaceAllString(ls[0], ""))
			m.setup.modelLine = idx[0]
		}
	}
	if from, to := p.sectionNamed("Hardware"); from >= 0 {
		ls, idx := p.contentLines(from, to)
		if len(ls) > 0 {
			t := reListMark.ReplaceAllString(ls[0], "")
			if mm := reGPUName.FindStringSubmatch(t); mm != nil {
				m.setup.hwVendor = mm[1]
				m.setup.hwGPU = strings.TrimSpace(mm[2])
				if m.setup.hwVendor == "" && strings.Contains(strings.ToUpper(t), "NVIDIA") {
					m.setup.hwVendor = "NVIDIA"
				}
				m.note(idx[0], "hardware %s %s from the Hardware section", m.setup.hwVendor, m.setup.hwGPU)
			} else {
				m.ambiguous(idx[0], "hardware", "the Hardware section (%q) names no GPU model perflab recognises; hardware left as written", t)
				m.setup.hwGPU = t
			}
			if mm := reGPUCount.FindStringSubmatch(t); mm != nil {
				m.setup.hwCount, _ = strconv.Atoi(mm[1])
			}
		}
	}
	if m.setup.hwGPU == "" {
		m.hardwareFromText()
	}
	if from, to := p.sectionNamed("Engine Version", "Engine Versions", "Engines", "Software"); from >= 0 {
		ls, idx := p.contentLines(from, to)
		for k, l := range ls {
			// "- **vLLM**: `v0.10.1`": emphasis and code spans are markup.
			t := strings.NewReplacer("`", "", "*", "").Replace(reListMark.ReplaceAllString(l, ""))
			if mm := reEngineVer.FindStringSubmatch(t); mm != nil {
				m.setup.engines = append(m.setup.engines, schema.EngineSpec{Name: engineID(mm[1]), Version: mm[2]})
				m.note(idx[k], "engine %s %s from the Engine Version section", engineID(mm[1]), mm[2])
			}
		}
	}
	if len(m.setup.engines) == 0 {
		m.enginesFromText()
	}
}

var reSetupLabel = regexp.MustCompile(`(?i)^(?:engines?|software|versions?|frameworks?)\s*:\s*`)

// enginesFromText reads engine versions of a page without an Engine
// Version section from its list items and setup lines ("- vLLM v0.9.0",
// "Engines: vLLM v0.10.1, SGLang v0.5.0").
func (m *migration) enginesFromText() {
	p := m.p
	seen := map[string]bool{}
	for i, l := range p.lines {
		if insideFence(p, i) || reFenceLine.MatchString(l) {
			continue
		}
		t := strings.NewReplacer("`", "", "*", "").Replace(strings.TrimSpace(reListMark.ReplaceAllString(l, "")))
		t = reSetupLabel.ReplaceAllString(t, "")
		for _, part := range strings.FieldsFunc(t, func(r rune) bool { return r == ',' || r == ';' }) {
			mm := reEngineVer.FindStringSubmatch(strings.TrimSpace(part))
			if mm == nil || seen[engineID(mm[1])] {
				continue
			}
			seen[engineID(mm[1])] = true
			m.setup.engines = append(m.setup.engines, schema.EngineSpec{Name: engineID(mm[1]), Version: mm[2]})
			m.note(i, "engine %s %s from the page's text (no Engine Version section)", engineID(mm[1]), mm[2])
		}
	}
	// An install command pinning the engine (a recipe's "uv pip install
	// vllm==0.11.0", "pip install "sglang[all]==0.5.3"") says its version
	// where no prose does.
	for i, l := range p.lines {
		if !insideFence(p, i) {
			continue
		}
		for _, mm := range rePipPin.FindAllStringSubmatch(l, -1) {
			id := engineID(strings.ReplaceAll(mm[1], "_", "-"))
			if id == "" || seen[id] {
				continue
			}
			seen[id] = true
			m.setup.engines = append(m.setup.engines, schema.EngineSpec{Name: id, Version: "v" + mm[2]})
			m.note(i, "engine %s v%s from the install command (no Engine Version section)", id, mm[2])
		}
	}
}

// rePipPin is an engine pinned in a pip install command.
var rePipPin = regexp.MustCompile(`(?i)\bpip3?\s+install\b[^#\n]*?\b(vllm|sglang|tensorrt[-_]llm)(?:\[[^\]]*\])?==v?(\d+\.\d+[\w.+-]*)`)

var (
	reHFID    = regexp.MustCompile(`[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*[A-Za-z0-9]`)
	reHFURL   = regexp.MustCompile(`huggingface\.co/([A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*[A-Za-z0-9])`)
	reLabelKV = regexp.MustCompile(`^[A-Za-z ]{1,20}:\s+`)
)

// modelText reads the model a Model section's first line names, without
// its markup: "[Qwen/Qwen3-8B](https://huggingface.co/Qwen/Qwen3-8B)",
// "Model: `Qwen/Qwen3-8B`" and "Qwen/Qwen3-8B (BF16)" are Qwen/Qwen3-8B;
// a link whose text is no id names the model by its Hugging Face URL; a
// name without organisation ("Qwen3-32B") is kept for the commands to
// complete.
func modelText(l string) string {
	for _, lm := range reMDLink.FindAllStringSubmatch(l, -1) {
		if !strings.Contains(lm[1], "/") {
			if u := reHFURL.FindStringSubmatch(lm[0]); u != nil {
				return u[1]
			}
		}
	}
	t := reMDLink.ReplaceAllString(l, "$1")
	t = strings.NewReplacer("`", "", "*", "").Replace(t)
	if id := reHFID.FindString(t); id != "" {
		return id
	}
	t = reLabelKV.ReplaceAllString(strings.TrimSpace(t), "")
	if i := strings.Index(t, " ("); i > 0 {
		t = t[:i]
	}
	return strings.TrimSpace(t)
}

// flagValue returns the value of a command-line flag (any of names),
// "--flag value" or "--flag=value".
func flagValue(fields []string, names ...string) (string, bool) {
	for i, f := range fields {
		for _, n := range names {
			if f == n && i+1 < len(fields) {
				return strings.Trim(fields[i+1], `"'`), true
			}
			if v, ok := strings.CutPrefix(f, n+"="); ok {
				return strings.Trim(v, `"'`), true
			}
		}
	}
	return "", false
}

// commandFields splits a command (continuations joined, env prefix kept
// apart) into fields.
func commandFields(cmd string) []string {
	return strings.Fields(strings.ReplaceAll(strings.ReplaceAll(cmd, "\\\n", " "), "\\ ", " "))
}

// gpusOf is the GPU count a serving command's parallelism flags ask for
// (0 when it sets none).
func gpusOf(cmd string) int {
	f := commandFields(cmd)
	n, set := 1, false
	// SGLang's DP attention runs its data-parallel ranks inside the tensor
	// parallel group: --tp 8 --dp 8 --enable-dp-attention is 8 GPUs.
	dpAttention := false
	for _, x := range f {
		dpAttention = dpAttention || x == "--enable-dp-attention"
	}
	for k, names := range [][]string{
		{"-tp", "--tp", "--tp-size", "--tp_size", "--tensor-parallel-size", "--tensor_parallel_size"},
		{"-dp", "--dp", "--dp-size", "--data-parallel-size", "--data_parallel_size"},
		{"-pp", "--pp", "--pp-size", "--pp_size", "--pipeline-parallel-size", "--pipeline_parallel_size"},
	} {
		if k == 1 && dpAttention {
			continue
		}
		if v, ok := flagValue(f, names...); ok {
			if k, err := strconv.Atoi(v); err == nil && k > 0 {
				n *= k
				set = true
			}
		}
	}
	if !set {
		return 0
	}
	return n
}

// benchCommand is a benchmark client command found on the page.
type benchCommand struct {
	idx    int
	fields []string
}

var reBenchCmd = regexp.MustCompile(`(vllm\s+bench\s+serve|benchmark_serving(\.py)?|sglang\.bench_serving|perflab\s+bench)\b`)

// benchCommands lists the benchmark client commands of the page.
func (p *page) benchCommands() []benchCommand {
	var out []benchCommand
	for i := 0; i < len(p.lines); i++ {
		l := strings.TrimSpace(p.lines[i])
		if !strings.Contains(l, "bench") || !reBenchCmd.MatchString(l) || strings.HasPrefix(l, "#") {
			continue
		}
		start := i
		for strings.HasSuffix(l, `\`) && i+1 < len(p.lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + " " + strings.TrimSpace(p.lines[i])
		}
		out = append(out, benchCommand{idx: start, fields: strings.Fields(l)})
	}
	return out
}

// readProfiles collects the profiles the page defines: the Benchmark
// Dataset list, the benchmark commands and GPUStack's Benchmark Profiles.
func (m *migration) readProfiles() {
	p := m.p
	if from, to := p.sectionNamed("Benchmark Dataset", "Benchmark Datasets", "Datasets", "Dataset"); from >= 0 {
		ls, idx := p.contentLines(from, to)
		for k, l := range ls {
			t := strings.TrimSpace(reListMark.ReplaceAllString(l, ""))
			if mm := reDatasetRow.FindStringSubmatch(t); mm != nil {
				in, _ := strconv.Atoi(mm[2])
				out, _ := strconv.Atoi(mm[3])
				name := titleCase(strings.TrimSpace(mm[1]))
				m.addProfile(idx[k], schema.Profile{Name: name, Dataset: "random", InputLen: in, OutputLen: out}, "the Benchmark Dataset list")
			} else if strings.Contains(strings.ToLower(t), "sharegpt") && !strings.Contains(strings.ToLower(t), "random") {
				m.addProfile(idx[k], schema.Profile{Name: "ShareGPT", Dataset: "sharegpt", DatasetPath: "ShareGPT_V3_unfiltered_cleaned_split.json"}, "the Benchmark Dataset list")
			}
		}
	}
	// GPUStack's generator: "##### Name" + a YAML fence.
	if from, to := p.sectionNamed("Benchmark Profiles"); from >= 0 {
		for _, h := range p.heads {
			if h.idx < from || h.idx >= to {
				continue
			}
			kv := map[string]string{}
			for i := h.idx + 1; i < to && i < len(p.lines); i++ {
				l := strings.TrimSpace(p.lines[i])
				if reHeading.MatchString(l) {
					break
				}
				for _, mm := range reYAMLPair.FindAllStringSubmatch(l, -1) {
					kv[mm[1]] = mm[2]
				}
			}
			if len(kv) == 0 {
				continue
			}
			pr := schema.Profile{Name: h.title}
			if strings.EqualFold(kv["dataset_name"], "sharegpt") {
				pr.Dataset, pr.DatasetPath = "sharegpt", "ShareGPT_V3_unfiltered_cleaned_split.json"
			} else {
				pr.Dataset = strings.ToLower(kv["dataset_name"])
			}
			pr.InputLen, _ = strconv.Atoi(kv["dataset_input_tokens"])
			pr.OutputLen, _ = strconv.Atoi(kv["dataset_output_tokens"])
			pr.Seed, _ = strconv.ParseInt(kv["dataset_seed"], 10, 64)
			pr.RequestRate, _ = strconv.ParseFloat(kv["request_rate"], 64)
			pr.NumPrompts, _ = strconv.Atoi(kv["total_requests"])
			m.addProfile(h.idx, pr, "the Benchmark Profiles section")
			m.generator = true
		}
	}
	// Benchmark commands: dataset, lengths, prompts, seed.
	var seeds []int64
	for _, bc := range p.benchCommands() {
		f := bc.fields
		ds, _ := flagValue(f, "--dataset-name", "--dataset")
		if b, ok := flagValue(f, "--backend"); ok && m.bench.Backend == "" {
			m.bench.Backend = b
		}
		if e, ok := flagValue(f, "--endpoint"); ok && m.bench.Endpoint == "" {
			m.bench.Endpoint = e
		}
		if mod, ok := flagValue(f, "--model"); ok {
			m.modelRefs = append(m.modelRefs, modelRef{mod, bc.idx, "benchmark command"})
		}
		np, _ := strconv.Atoi(first(flagValue(f, "--num-prompts")))
		switch strings.ToLower(ds) {
		case "sharegpt":
			pr := m.profileBy(func(x *schema.Profile) bool { return x.Dataset == "sharegpt" })
			if pr == nil {
				pr = m.addProfile(bc.idx, schema.Profile{Name: "ShareGPT", Dataset: "sharegpt"}, "a benchmark command")
			}
			if dp, ok := flagValue(f, "--dataset-path"); ok {
				pr.DatasetPath = path.Base(dp)
			}
			if np > 0 {
				pr.NumPrompts = np
				m.note(bc.idx, "profile %s: %d prompts from the benchmark command", pr.ID, np)
			}
		case "random":
			in, _ := strconv.Atoi(first(flagValue(f, "--random-input-len", "--input-len", "--random-input")))
			out, _ := strconv.Atoi(first(flagValue(f, "--random-output-len", "--output-len", "--random-output")))
			pr := m.profileBy(func(x *schema.Profile) bool { return x.Dataset == "random" && x.InputLen == in && x.OutputLen == out })
			if pr == nil {
				pr = m.addProfile(bc.idx, schema.Profile{Name: fmt.Sprintf("Random %d/%d", in, out), Dataset: "random", InputLen: in, OutputLen: out}, "a benchmark command")
			}
			if np > 0 {
				pr.NumPrompts = np
				m.note(bc.idx, "profile %s: %d prompts from the benchmark command", pr.ID, np)
			}
			if s, ok := flagValue(f, "--seed"); ok {
				v, _ := strconv.ParseInt(s, 10, 64)
				pr.Seed = v
				seeds = append(seeds, v)
			}
		}
		if rr, ok := flagValue(f, "--request-rate"); ok && rr != "inf" {
			m.note(bc.idx, "the benchmark command sets --request-rate %s (kept in the profiles it names)", rr)
		}
	}
	// One seed on the page's random command(s): the random profiles share it.
	if len(seeds) > 0 {
		same := true
		for _, s := range seeds {
			same = same && s == seeds[0]
		}
		if same {
			for i := range m.profiles {
				if pr := &m.profiles[i]; pr.Dataset == "random" && pr.Seed == 0 {
					pr.Seed = seeds[0]
				}
			}
		}
	}
}

func first(s string, _ bool) string { return s }

// addProfile adds a profile (id from its name, made unique) or merges into
// the one of the same name.
func (m *migration) addProfile(idx int, pr schema.Profile, from string) *schema.Profile {
	if ex := m.profileBy(func(x *schema.Profile) bool { return normName(x.Name) == normName(pr.Name) }); ex != nil {
		return ex
	}
	base := idSlug(strings.TrimSuffix(strings.TrimSuffix(strings.ToLower(pr.Name), " profile"), " prompt"))
	if base == "" {
		base = "profile"
	}
	pr.ID = uniqueID(base, func(id string) bool {
		return m.profileBy(func(x *schema.Profile) bool { return x.ID == id }) != nil
	})
	m.profiles = append(m.profiles, pr)
	m.note(idx, "profile %s (%s) from %s", pr.ID, describeProfile(&pr), from)
	return &m.profiles[len(m.profiles)-1]
}

func describeProfile(p *schema.Profile) string {
	if p.Dataset == "random" {
		return fmt.Sprintf("random %d in / %d out", p.InputLen, p.OutputLen)
	}
	return p.Dataset
}

func (m *migration) profileBy(f func(*schema.Profile) bool) *schema.Profile {
	for i := range m.profiles {
		if f(&m.profiles[i]) {
			return &m.profiles[i]
		}
	}
	return nil
}

// normName compares profile names: "Long Context Profile" = "long context".
// A name with no ASCII letter or digit ("长提示") is compared as written.
func normName(s string) string {
	if slug(s) == "" {
		return strings.ToLower(strings.TrimSpace(s))
	}
	s = slug(s)
	for _, suf := range []string{"-profile", "-prompt", "-dataset"} {
		s = strings.TrimSuffix(s, suf)
	}
	return s
}

// uniqueID is base, or base-2, base-3 … when taken; base is cut so that
// the id stays within maxID characters.
func uniqueID(base string, taken func(string) bool) string {
	id := base
	for n := 2; taken(id); n++ {
		suf := fmt.Sprintf("-%d", n)
		b := base
		if len(b)+len(suf) > maxID {
			b = strings.TrimRight(b[:maxID-len(suf)], "-.")
		}
		id = b + suf
	}
	return id
}

func titleCase(s string) string {
	w := strings.Fields(s)
	for i, x := range w {
		if x == strings.ToLower(x) && len(x) > 0 {
			w[i] = strings.ToUpper(x[:1]) + x[1:]
		}
	}
	return strings.Join(w, " ")
}

// modelRef is a model id named somewhere on the page.
type modelRef struct {
	id   string
	idx  int
	what string
}

// resolveModel decides the page's model id and its variants; ids that are
// neither are reported.
func (m *migration) resolveModel() {
	text := m.setup.modelText
	ids := map[string]bool{}
	for _, r := range m.modelRefs {
		ids[r.id] = true
	}
	id := ""
	if strings.Contains(text, "/") {
		id = text
	} else if text != "" {
		// The commands spell the full id: prefer one whose name is the
		// section's text exactly, else one that starts with it.
		var exact, prefix []string
		for x := range ids {
			base := path.Base(x)
			if strings.EqualFold(base, text) {
				exact = append(exact, x)
			} else if strings.HasPrefix(strings.ToLower(base), strings.ToLower(text)) {
				prefix = append(prefix, x)
			}
		}
		sort.Strings(exact)
		sort.Strings(prefix)
		switch {
		case len(exact) > 0:
			id = exact[0]
		case len(prefix) > 0:
			id = prefix[0]
			m.note(m.setup.modelLine, "model %s: the shortest command model starting with the Model section's %q", id, text)
		default:
			id = text
			m.ambiguous(m.setup.modelLine, "model", "the Model section says %q but no command names a model id for it; the model id is left as %q", text, text)
		}
	} else if len(m.modelRefs) > 0 {
		id = m.modelRefs[0].id
		m.ambiguous(m.modelRefs[0].idx, "model", "the page has no Model section; model %s taken from the first command naming one", id)
	}
	if id == "" {
		m.ambiguous(0, "model", "the page names no model: no Model section, and no serving or benchmark command names one")
	}
	m.model = schema.CampaignModel{ID: id}
	if id != "" {
		m.model.Name = path.Base(id)
	}
	if text != "" && !strings.Contains(text, "/") {
		m.model.Name = text
	}
	var variants []string
	seen := map[string]bool{}
	for _, r := range m.modelRefs {
		if strings.EqualFold(r.id, id) || seen[r.id] {
			continue
		}
		if isVariant(id, r.id) {
			seen[r.id] = true
			variants = append(variants, r.id)
			continue
		}
		seen[r.id] = true
		m.ambiguous(r.idx, "model", "the %s names model %s, which is not the page's model %s or a variant of it", r.what, r.id, id)
	}
	sort.Strings(variants)
	m.model.Variants = variants
}

// isVariant: Qwen/Qwen3-32B-FP8 is a variant of Qwen/Qwen3-32B.
func isVariant(model, id string) bool {
	a, b := strings.ToLower(model), strings.ToLower(id)
	if strings.HasPrefix(b, a+"-") || strings.HasPrefix(b, a+"_") {
		return true
	}
	// Another organisation's quantisation of the same model.
	return strings.HasPrefix(strings.ToLower(path.Base(id)), strings.ToLower(path.Base(model))+"-")
}

// modelOfCommand is ingest's reading of a serving command's model.
func modelOfCommand(cmd string) string { return ingest.ModelOf(cmd) }

// reHWText is a GPU count and model written in prose or a setup list:
// "4x NVIDIA H100 80GB", "GPU: 1x NVIDIA L40S", "on 8× H200".
var reHWText = regexp.MustCompile(`(?i)\b(\d+)\s*[x×]\s*((?:NVIDIA|AMD|Intel|Huawei|Ascend)\s+)?([A-Z]{1,3}\d{2,4}[A-Za-z]*|RTX\s*\w+|MI\d+\w*|Gaudi\s*\d*)(\s*\d+\s*GB)?\b`)

var reNVIDIAModel = regexp.MustCompile(`(?i)^(?:[HABL]\d|GB\d|RTX|V100|T4)`)

// hardwareFromText reads the hardware of a page without a Hardware
// section from the first prose or list line that names a GPU count and
// model (other labs write their setup as a sentence or a list).
func (m *migration) hardwareFromText() {
	p := m.p
	for i, l := range p.lines {
		if insideFence(p, i) || reFenceLine.MatchString(l) || strings.HasPrefix(strings.TrimSpace(l), "|") {
			continue
		}
		mm := reHWText.FindStringSubmatch(l)
		if mm == nil {
			continue
		}
		n, _ := strconv.Atoi(mm[1])
		if n < 1 || n > 1024 {
			continue
		}
		m.setup.hwCount = n
		m.setup.hwVendor = strings.TrimSpace(mm[2])
		m.setup.hwGPU = strings.TrimSpace(mm[3] + " " + strings.ReplaceAll(strings.TrimSpace(mm[4]), " ", ""))
		if m.setup.hwVendor == "" && reNVIDIAModel.MatchString(m.setup.hwGPU) {
			m.setup.hwVendor = "NVIDIA"
		}
		m.note(i, "hardware %d× %s %s from the page's text (no Hardware section)", n, m.setup.hwVendor, m.setup.hwGPU)
		return
	}
}
