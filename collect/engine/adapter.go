package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Adapter is what the collector knows about one kind of engine.
type Adapter struct {
	// Name is the campaign's engine key: vllm, sglang, trtllm, llamacpp,
	// external, mock.
	Name string
	// Display is the engine's name on a page (vLLM, SGLang, …).
	Display string
	// Program is the default launch command before the model
	// (["vllm", "serve"]); ModelFlag the flag that names the model, empty
	// when it is positional.
	Program   []string
	ModelFlag string
	// ModelFlags are all the flags that name the model (ModelFlag, its
	// aliases, and other sources such as llama-server's -hf): when an
	// experiment's args give one, DefaultArgv adds no model of its own.
	ModelFlags []string
	// DefaultPort is the port the engine listens on when the command sets none.
	DefaultPort int
	// Health lists routes that must answer 200 before the engine counts as
	// healthy, in order.
	Health []string
	// VersionRoute is a GET route answering JSON with a "version" (or
	// "build_info") field; VersionArgs are arguments to the program that
	// print the version. Both empty: only the campaign's version is known.
	VersionRoute string
	VersionArgs  []string
	// VersionCommand is a command printing the version on its last line
	// (TensorRT-LLM: the Python package's version), tried last.
	VersionCommand []string
	// TokenizeRoute is the server's tokenizer route ("/tokenize"), empty
	// when the engine has none and a tokenizer.json is needed.
	TokenizeRoute string
	// Launches is false for external endpoints.
	Launches bool
}

var adapters = []Adapter{
	{Name: "vllm", Display: "vLLM", Program: []string{"vllm", "serve"}, DefaultPort: 8000,
		Health: []string{"/health", "/v1/models"}, VersionRoute: "/version", VersionArgs: []string{"--version"},
		TokenizeRoute: "/tokenize", Launches: true},
	{Name: "sglang", Display: "SGLang", Program: []string{"python3", "-m", "sglang.launch_server"}, ModelFlag: "--model-path",
		ModelFlags:  []string{"--model-path", "--model"},
		DefaultPort: 30000, Health: []string{"/health", "/get_model_info"}, VersionRoute: "/get_server_info",
		TokenizeRoute: "/tokenize", Launches: true},
	{Name: "trtllm", Display: "TensorRT-LLM", Program: []string{"trtllm-serve"}, DefaultPort: 8000,
		Health: []string{"/health"}, VersionRoute: "/version",
		VersionCommand: []string{"python3", "-c", "import tensorrt_llm; print(tensorrt_llm.__version__)"}, Launches: true},
	{Name: "llamacpp", Display: "llama.cpp", Program: []string{"llama-server"}, ModelFlag: "-m", DefaultPort: 8080,
		ModelFlags: []string{"-m", "--model", "-hf", "-hfr", "--hf-repo", "-mu", "--model-url"},
		Health:     []string{"/health"}, VersionArgs: []string{"--version"}, TokenizeRoute: "/tokenize", Launches: true},
	{Name: "mock", Display: "perflab mock", Program: []string{"perflab", "mock"}, ModelFlag: "--model", DefaultPort: 8000,
		ModelFlags: []string{"--model"},
		Health:     []string{"/health", "/v1/models"}, VersionRoute: "/version", TokenizeRoute: "/tokenize", Launches: true},
	{Name: "external", Display: "external", Health: []string{"/v1/models"}, TokenizeRoute: "/tokenize"},
}

// Lookup returns the adapter for an engine name.
func Lookup(name string) (Adapter, bool) {
	for _, a := range adapters {
		if a.Name == name {
			return a, true
		}
	}
	return Adapter{}, false
}

// Names lists the known engine names.
func Names() []string {
	out := make([]string, len(adapters))
	for i, a := range adapters {
		out[i] = a.Name
	}
	return out
}

// DefaultArgv is the adapter's launch command for model with extra args
// appended: what an experiment that gives args instead of a command runs.
// When args name the model themselves (llama-server's -m ./model.gguf: its
// model is a file, not the campaign's model id), model is left out rather
// than passed twice.
func (a Adapter) DefaultArgv(model string, args []string) []string {
	argv := append([]string(nil), a.Program...)
	if _, given := FlagValue(args, a.ModelFlags...); !given {
		if a.ModelFlag != "" {
			argv = append(argv, a.ModelFlag)
		}
		argv = append(argv, model)
	}
	return append(argv, args...)
}

// Endpoint returns the base URL a launched engine serves on: the --host
// and --port of argv, or the adapter's defaults. A wildcard host is
// reached through 127.0.0.1.
func (a Adapter) Endpoint(argv []string) (string, error) {
	host, _ := FlagValue(argv, "--host")
	if host == "" || host == "0.0.0.0" || host == "::" || host == "[::]" {
		host = "127.0.0.1"
	}
	port := a.DefaultPort
	if p, ok := FlagValue(argv, "--port"); ok {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 65535 {
			return "", fmt.Errorf("%s: --port %q is not a port number", a.Name, p)
		}
		port = n
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(port)), nil
}

// versionField finds a version string in a JSON object from VersionRoute.
var versionKeys = []string{"version", "build_info", "tensorrt_llm_version"}

// Version asks a running engine for its version: VersionRoute first, then
// the program with VersionArgs (given the engine's environment), "" when
// neither answers. Errors are not fatal to a run: the campaign's version
// stands in.
func (a Adapter) Version(ctx context.Context, client *http.Client, baseURL string, argv []string, env []string) (string, error) {
	var errs []string
	if a.VersionRoute != "" {
		v, err := versionFromRoute(ctx, client, baseURL+a.VersionRoute)
		if err == nil && v != "" {
			return v, nil
		}
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	// Only the engine's own program answers VersionArgs: for a command
	// through a launcher (python3 -m …, uv run …, a wrapper script) the
	// launcher's version would be recorded as the engine's.
	if len(a.VersionArgs) > 0 && len(argv) > 0 && len(a.Program) > 0 && filepath.Base(argv[0]) == a.Program[0] {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, argv[0], a.VersionArgs...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if v := parseVersionOutput(string(out)); v != "" {
			return v, nil
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s %s: %v", argv[0], strings.Join(a.VersionArgs, " "), err))
		}
	}
	if len(a.VersionCommand) > 0 {
		ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, a.VersionCommand[0], a.VersionCommand[1:]...)
		cmd.Env = env
		out, err := cmd.Output()
		if err == nil {
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if v := strings.TrimSpace(lines[len(lines)-1]); v != "" && len(v) < 100 {
				return v, nil
			}
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", strings.Join(a.VersionCommand, " "), err))
		}
	}
	if len(errs) > 0 {
		return "", fmt.Errorf("%s: version: %s", a.Name, strings.Join(errs, "; "))
	}
	return "", nil
}

func versionFromRoute(ctx context.Context, client *http.Client, url string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return "", fmt.Errorf("GET %s: %w", url, err)
	}
	for _, k := range versionKeys {
		if s, ok := m[k].(string); ok && s != "" {
			return s, nil
		}
	}
	return "", nil
}

// llamaVersion matches llama.cpp's "version: 11669 (Debian)".
var llamaVersion = regexp.MustCompile(`(?m)^version:\s*(\S+)(?:\s*\(([^)]*)\))?`)

// parseVersionOutput reads a program's --version output: llama.cpp's
// "version: N (commit)" as "bN (commit)", else the first non-empty line.
func parseVersionOutput(out string) string {
	if m := llamaVersion.FindStringSubmatch(out); m != nil {
		v := m[1]
		if _, err := strconv.Atoi(v); err == nil {
			v = "b" + v
		}
		if m[2] != "" {
			v += " (" + m[2] + ")"
		}
		return v
	}
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" && len(l) < 200 {
			return l
		}
	}
	return ""
}

// ServedModel asks GET /v1/models which model the engine serves (the
// first id), the name a benchmark must request.
func ServedModel(ctx context.Context, client *http.Client, baseURL string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/v1/models", nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("served model: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("served model: GET /v1/models: %s", resp.Status)
	}
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&body); err != nil {
		return "", fmt.Errorf("served model: %w", err)
	}
	if len(body.Data) == 0 || body.Data[0].ID == "" {
		return "", fmt.Errorf("served model: /v1/models lists no model")
	}
	return body.Data[0].ID, nil
}

// Detect names the engine a command launches, from its program (vllm,
// trtllm-serve, llama-server, perflab mock) or module (sglang.launch_server);
// "" when it is none of these.
func Detect(argv []string) string {
	if len(argv) == 0 {
		return ""
	}
	base := filepath.Base(argv[0])
	switch {
	case base == "vllm":
		return "vllm"
	case base == "trtllm-serve":
		return "trtllm"
	case strings.Contains(base, "llama-server"):
		return "llamacpp"
	case base == "perflab" && len(argv) > 1 && argv[1] == "mock":
		return "mock"
	}
	for _, a := range argv {
		if a == "sglang.launch_server" {
			return "sglang"
		}
	}
	return ""
}
