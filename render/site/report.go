package site

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/perflab/perflab/collect/schema"
)

// Objective is throughput (the default) or latency.
func (r *Report) Objective() string {
	if o := strings.ToLower(strings.TrimSpace(r.Campaign.Objective)); o != "" {
		return o
	}
	return "throughput"
}

// ModelName is the model's display name.
func (r *Report) ModelName() string {
	if r.Campaign.Model.Name != "" {
		return r.Campaign.Model.Name
	}
	if r.Campaign.Model.ID != "" {
		return path.Base(r.Campaign.Model.ID)
	}
	return r.Campaign.ID
}

// GPULabel is the accelerator SKU (H100).
func (r *Report) GPULabel() string {
	if r.Campaign.Hardware.GPU != "" {
		return r.Campaign.Hardware.GPU
	}
	return r.Unit()
}

// Unit is the accelerator's word: "GPU", "NPU" or "CPU" (the campaign's
// hardware.accelerator).
func (r *Report) Unit() string { return r.Campaign.Hardware.Unit() }

// UnitCount spells a count of the report's accelerators: "1 GPU", "2 CPUs".
func (r *Report) UnitCount(n int) string {
	if n == 1 {
		return "1 " + r.Unit()
	}
	return fmt.Sprintf("%d %ss", n, r.Unit())
}

// HardwareLabel is "8 × NVIDIA H100"; a CPU machine's name says CPU once
// ("1 × 2-core VM CPU").
func (r *Report) HardwareLabel() string {
	hw := r.Campaign.Hardware
	name := strings.TrimSpace(hw.Vendor + " " + r.GPULabel())
	if u := r.Unit(); u != "GPU" && !strings.Contains(strings.ToUpper(name), u) {
		name += " " + u
	}
	if hw.Count > 0 {
		return fmt.Sprintf("%d × %s", hw.Count, name)
	}
	return name
}

// Title is the page title: front matter, campaign, or a generated one in
// GPUStack's words.
func (r *Report) Title() string {
	if t := r.Page.FrontMatter.Title; t != "" {
		return t
	}
	if r.Campaign.Title != "" {
		return r.Campaign.Title
	}
	obj := r.Objective()
	obj = strings.ToUpper(obj[:1]) + obj[1:]
	vendor := r.Campaign.Hardware.Vendor
	if vendor != "" {
		vendor += " "
	}
	return fmt.Sprintf("Optimizing %s %s on %s%s %ss", r.ModelName(), obj, vendor, r.GPULabel(), r.Unit())
}

// Baseline and Optimized return the compared experiments.
func (r *Report) Baseline() *schema.Experiment {
	e, _ := r.Campaign.Experiment(r.Campaign.Baseline)
	return e
}

// Optimized returns the recommended experiment.
func (r *Report) Optimized() *schema.Experiment {
	e, _ := r.Campaign.Experiment(r.Campaign.Optimized)
	return e
}

// GPUs is the number of GPUs experiment e uses: its own gpus field, else
// the campaign's hardware count, else 1.
func (r *Report) GPUs(e *schema.Experiment) int {
	if e != nil && e.GPUs > 0 {
		return e.GPUs
	}
	if r.Campaign.Hardware.Count > 0 {
		return r.Campaign.Hardware.Count
	}
	return 1
}

// Command is experiment e's serving command line (env assignments first).
func (r *Report) Command(e *schema.Experiment) string {
	cmd := e.Command
	if cmd == "" {
		// Fall back to what a run recorded, then to engine + args.
		for _, p := range r.Campaign.Profiles {
			if run := r.Run(e.ID, p.ID); run != nil && run.Result.Engine.Command != "" {
				cmd = run.Result.Engine.Command
				break
			}
		}
	}
	if cmd == "" {
		parts := append([]string{defaultLaunch(e.Engine, r.Campaign.Model.ID)}, e.Args...)
		cmd = strings.Join(parts, " ")
	}
	if len(e.Env) == 0 {
		return cmd
	}
	var env []string
	for _, k := range sortedKeys(e.Env) {
		env = append(env, k+"="+shellQuote(e.Env[k]))
	}
	return strings.Join(env, " ") + " " + cmd
}

func defaultLaunch(engine, model string) string {
	switch engine {
	case "vllm":
		return "vllm serve " + model
	case "sglang":
		return "python3 -m sglang.launch_server --model-path " + model
	case "trtllm":
		return "trtllm-serve " + model
	case "llamacpp":
		return "llama-server"
	}
	return engine
}

// EngineName is the display name of an engine kind.
func EngineName(kind string) string {
	switch strings.ToLower(kind) {
	case "vllm":
		return "vLLM"
	case "sglang":
		return "SGLang"
	case "trtllm", "tensorrt-llm":
		return "TensorRT-LLM"
	case "llamacpp", "llama.cpp":
		return "llama.cpp"
	case "mock":
		return "perflab mock"
	case "external":
		return "external"
	case "mindie":
		return "MindIE"
	}
	return kind
}

// Engines lists the engines and versions: the campaign's, completed with
// versions the results recorded.
func (r *Report) Engines() []schema.EngineSpec { return EnginesOf(r.Campaign, r.Runs()) }

// EnginesOf is Engines of campaign camp with its runs in campaign order.
func EnginesOf(camp *schema.Campaign, runs []*Run) []schema.EngineSpec {
	var out []schema.EngineSpec
	seen := map[string]int{}
	add := func(name, version string) {
		if name == "" {
			return
		}
		key := strings.ToLower(name)
		if i, ok := seen[key]; ok {
			if out[i].Version == "" {
				out[i].Version = version
			}
			return
		}
		seen[key] = len(out)
		out = append(out, schema.EngineSpec{Name: name, Version: version})
	}
	for _, e := range camp.Engines {
		add(e.Name, e.Version)
	}
	for _, st := range camp.Steps {
		for _, e := range st.Experiments {
			add(e.Engine, e.Version)
		}
	}
	for _, run := range runs {
		add(run.Result.Engine.Name, run.Result.Engine.Version)
	}
	return out
}

// ProfilesOf returns the profiles an experiment is run on.
func (r *Report) ProfilesOf(e *schema.Experiment) []schema.Profile {
	if len(e.Profiles) == 0 {
		return r.Campaign.Profiles
	}
	var out []schema.Profile
	for _, p := range r.Campaign.Profiles {
		for _, id := range e.Profiles {
			if p.ID == id {
				out = append(out, p)
			}
		}
	}
	return out
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,+@%", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
