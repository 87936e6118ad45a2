package ingest

import (
	"path"
	"regexp"
	"strings"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/schema/campaignfile"
)

// ReadCampaign reads a campaign YAML file (unknown fields are errors) and
// checks what import relies on: an id, unique experiment and profile ids,
// and baseline, optimized and chosen ids that exist. Errors name the file
// and, where the field is present, the line (campaignfile.Read and
// File.CheckIDs: the same reader as collect and render).
func ReadCampaign(path string) (*schema.Campaign, error) {
	f, err := campaignfile.Read(path)
	if err != nil {
		return nil, err
	}
	return checkCampaign(f)
}

// ParseCampaign is ReadCampaign on bytes; name prefixes errors.
func ParseCampaign(name string, data []byte) (*schema.Campaign, error) {
	f, err := campaignfile.Parse(name, data)
	if err != nil {
		return nil, err
	}
	return checkCampaign(f)
}

func checkCampaign(f *campaignfile.File) (*schema.Campaign, error) {
	if err := campaignfile.Errors(f.Path, f.CheckIDs()); err != nil {
		return nil, err
	}
	return &f.Campaign, nil
}

// EngineOf names the engine a serving command launches (vllm, sglang,
// trtllm, llamacpp, mindie), or "" when it cannot tell. A container run
// (`docker run … IMAGE …`) launches the engine of its inner command, else
// of its image.
func EngineOf(command string) string {
	_, rest := splitEnv(command)
	if image, inner, ok := dockerInner(rest); ok {
		// A container: its inner command, else its image.
		if inner != "" {
			if e := EngineOf(inner); e != "" {
				return e
			}
		}
		return imageEngine(image)
	}
	switch {
	case strings.HasPrefix(rest, "vllm serve") || strings.HasPrefix(rest, "vllm\tserve") || strings.Contains(rest, "vllm.entrypoints.openai.api_server"):
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
// argument of `vllm serve` / `trtllm-serve`, or --model-path / --model;
// in a container run, its inner command's.
func ModelOf(command string) string {
	_, rest := splitEnv(command)
	if _, inner, ok := dockerInner(rest); ok {
		// A container: the model its inner command names (--model, or the
		// positional after the image of vllm/vllm-openai, whose
		// entrypoint is vllm serve).
		return ModelOf(inner)
	}
	f := strings.Fields(strings.ReplaceAll(rest, "\\\n", " "))
	llama := len(f) > 0 && path.Base(f[0]) == "llama-server"
	if llama {
		// llama-server serves its model under -a/--alias when given (what
		// /v1/models answers and the campaign names), not the file -m
		// names.
		for i := 0; i+1 < len(f); i++ {
			if f[i] == "-a" || f[i] == "--alias" {
				return f[i+1]
			}
		}
	}
	for i := 0; i < len(f); i++ {
		if f[i] == "--model-path" || f[i] == "--model" || (llama && f[i] == "-m") {
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
