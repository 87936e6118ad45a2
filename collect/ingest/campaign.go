package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/perflab/perflab/collect/schema"
)

var reYAMLLine = regexp.MustCompile(`^yaml: (?:unmarshal errors:\n\s*)?line (\d+): (.*)$`)

// ReadCampaign reads a campaign YAML file (unknown fields are errors) and
// checks what import relies on: an id, unique experiment and profile ids,
// and baseline, optimized and chosen ids that exist. Errors name the file
// and, where yaml.v3 gives one, the line.
func ReadCampaign(path string) (*schema.Campaign, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("campaign: %w", err)
	}
	return ParseCampaign(path, data)
}

// ParseCampaign is ReadCampaign on bytes; name prefixes errors.
func ParseCampaign(name string, data []byte) (*schema.Campaign, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c schema.Campaign
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s: empty campaign file", name)
		}
		msg := err.Error()
		if m := reYAMLLine.FindStringSubmatch(msg); m != nil {
			return nil, fmt.Errorf("%s:%s: %s", name, m[1], m[2])
		}
		return nil, fmt.Errorf("%s: %s", name, strings.TrimPrefix(msg, "yaml: "))
	}
	var node yaml.Node
	_ = yaml.Unmarshal(data, &node) // only for line numbers below
	where := func(key, val string) string {
		if l := findLine(&node, key, val); l > 0 {
			return fmt.Sprintf("%s:%d", name, l)
		}
		return name
	}
	if c.ID == "" {
		return nil, fmt.Errorf("%s: missing field id", name)
	}
	exps := map[string]bool{}
	for _, st := range c.Steps {
		for _, e := range st.Experiments {
			if e.ID == "" {
				return nil, fmt.Errorf("%s: step %q: an experiment has no id", where("id", st.ID), st.ID)
			}
			if exps[e.ID] {
				return nil, fmt.Errorf("%s: experiment id %q used twice", where("id", e.ID), e.ID)
			}
			exps[e.ID] = true
		}
	}
	profs := map[string]bool{}
	for _, p := range c.Profiles {
		if p.ID == "" || profs[p.ID] {
			return nil, fmt.Errorf("%s: profile id %q is empty or used twice", where("id", p.ID), p.ID)
		}
		profs[p.ID] = true
	}
	for _, st := range c.Steps {
		if st.Chosen != "" && !exps[st.Chosen] {
			return nil, fmt.Errorf("%s: step %q: chosen experiment %q does not exist", where("chosen", st.Chosen), st.ID, st.Chosen)
		}
		for _, e := range st.Experiments {
			for _, p := range e.Profiles {
				if !profs[p] {
					return nil, fmt.Errorf("%s: experiment %q: unknown profile %q", where("id", e.ID), e.ID, p)
				}
			}
		}
	}
	for key, id := range map[string]string{"baseline": c.Baseline, "optimized": c.Optimized} {
		if id != "" && !exps[id] {
			return nil, fmt.Errorf("%s: %s experiment %q does not exist", where(key, id), key, id)
		}
	}
	return &c, nil
}

// findLine returns the line of the first mapping entry key: val in n.
func findLine(n *yaml.Node, key, val string) int {
	if n == nil {
		return 0
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == key && v.Kind == yaml.ScalarNode && v.Value == val {
				return k.Line
			}
		}
	}
	for _, c := range n.Content {
		if l := findLine(c, key, val); l > 0 {
			return l
		}
	}
	return 0
}

// EngineOf names the engine a serving command launches (vllm, sglang,
// trtllm, llamacpp, mindie), or "" when it cannot tell.
func EngineOf(command string) string {
	_, rest := splitEnv(command)
	switch {
	case strings.HasPrefix(rest, "vllm serve") || strings.HasPrefix(rest, "vllm\tserve"):
		return "vllm"
	case strings.Contains(rest, "sglang.launch_server"):
		return "sglang"
	case strings.HasPrefix(rest, "trtllm-serve"):
		return "trtllm"
	case strings.HasPrefix(rest, "llama-server"):
		return "llamacpp"
	case strings.HasPrefix(rest, "mindie serve"):
		return "mindie"
	}
	return ""
}

// ModelOf returns the model a serving command serves: the first positional
// argument of `vllm serve` / `trtllm-serve`, or --model-path / --model.
func ModelOf(command string) string {
	_, rest := splitEnv(command)
	f := strings.Fields(strings.ReplaceAll(rest, "\\\n", " "))
	for i := 0; i < len(f); i++ {
		if f[i] == "--model-path" || f[i] == "--model" || (f[0] == "llama-server" && f[i] == "-m") {
			if i+1 < len(f) {
				return f[i+1]
			}
		}
		if v, ok := strings.CutPrefix(f[i], "--model-path="); ok {
			return v
		}
		if v, ok := strings.CutPrefix(f[i], "--model="); ok {
			return v
		}
	}
	skip := 1
	if len(f) > 1 && f[0] == "vllm" && f[1] == "serve" {
		skip = 2
	}
	if len(f) > skip && !strings.HasPrefix(f[skip], "-") && (f[0] == "vllm" || f[0] == "trtllm-serve") {
		return f[skip]
	}
	return ""
}

// splitEnv separates leading VAR=value assignments from a command.
func splitEnv(command string) (map[string]string, string) {
	var env map[string]string
	rest := strings.TrimSpace(command)
	for {
		m := reEnvPrefix.FindStringSubmatch(rest)
		if m == nil {
			return env, rest
		}
		if env == nil {
			env = map[string]string{}
		}
		env[m[1]] = m[2]
		rest = strings.TrimSpace(rest[len(m[0]):])
	}
}

var reEnvPrefix = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=([^ \t\n]*)[ \t]+`)

// normCommand makes two spellings of one command comparable: line
// continuations joined, whitespace collapsed, env prefix removed.
func normCommand(command string) string {
	_, rest := splitEnv(command)
	return strings.Join(strings.Fields(strings.ReplaceAll(rest, "\\\n", " ")), " ")
}
