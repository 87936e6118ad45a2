package collect

import (
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/engine"
	"github.com/perflab/perflab/collect/redact"
	"github.com/perflab/perflab/collect/schema"
)

// Launch is how an experiment's engine is started.
type Launch struct {
	Adapter engine.Adapter
	// Argv and Env are what runs (Env on top of the collector's own),
	// references to the environment (${HF_TOKEN}, envref.go) expanded.
	Argv []string
	Env  map[string]string
	// ShownEnv is Env as the campaign writes it, references kept: what
	// results record.
	ShownEnv map[string]string
	// Display is the serve command as the campaign writes it (the
	// experiment's command verbatim, or the default command with args),
	// secrets redacted: what results and the plan show.
	Display string
	// BaseURL is where the engine answers (external: its base_url).
	BaseURL string
	// GPUs is the number of GPUs the experiment uses.
	GPUs int
	// FreePort says the collector picks the port at launch (a command that
	// sets no --port): BaseURL is then a placeholder, and the launch adds
	// --port N (and --host 127.0.0.1 when the command sets no --host).
	FreePort bool
	// MockOnGPUs is set for a mock engine whose experiment names its
	// gpus: the collector samples those GPUs while it runs, as for a real
	// engine (make gpu-check tests the NVML sampler this way, with no
	// engine installed). A mock without gpus: runs anywhere, unsampled.
	MockOnGPUs bool
}

// NewLaunch works out an experiment's launch from the campaign.
func NewLaunch(c *schema.Campaign, e *schema.Experiment) (*Launch, error) {
	a, ok := engine.Lookup(e.Engine)
	if !ok {
		return nil, fmt.Errorf("%s: unknown engine %q", e.ID, e.Engine)
	}
	l := &Launch{Adapter: a, GPUs: e.GPUs, MockOnGPUs: a.Name == "mock" && e.GPUs > 0}
	if l.GPUs == 0 {
		l.GPUs = c.Hardware.Count
	}
	if !a.Launches {
		l.BaseURL = strings.TrimRight(e.BaseURL, "/")
		l.Display = "(external endpoint " + redact.URL(l.BaseURL) + ")"
		if len(e.Env) > 0 {
			l.Env = e.Env // not launched: only OPENAI_API_KEY means something
		}
		return l, l.expand(e.ID)
	}
	env := map[string]string{}
	if e.Command != "" {
		cmd, err := engine.ParseCommand(e.Command)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.ID, err)
		}
		l.Argv = cmd.Argv
		for k, v := range cmd.Env {
			env[k] = v
		}
		l.Display = strings.TrimSpace(e.Command)
	} else {
		l.Argv = a.DefaultArgv(c.Model.ID, e.Args)
		l.Display = engine.Quote(l.Argv)
	}
	// The experiment's env is shown as a prefix of the command, as a page
	// writes it (VLLM_ATTENTION_BACKEND=FLASHINFER vllm serve …).
	var prefix []string
	for _, k := range sortedKeys(e.Env) {
		if v, inline := env[k]; !inline || v != e.Env[k] {
			prefix = append(prefix, k+"="+engine.Quote([]string{e.Env[k]}))
		}
		env[k] = e.Env[k]
	}
	if len(prefix) > 0 {
		l.Display = strings.Join(prefix, " ") + " " + l.Display
	}
	if len(env) > 0 {
		l.Env = env
	}
	l.Display = redact.New(redact.SecretValues(l.Env)...).Command(l.Display)
	u, err := a.Endpoint(l.Argv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.ID, err)
	}
	l.BaseURL = u
	if _, ok := engine.FlagValue(l.Argv, "--port"); !ok {
		// Without --port the collector gives the engine a free port at
		// launch rather than guess where it listens: an engine's default
		// differs between builds (a llama-server listened on 9931, not
		// the 8080 assumed, and collect waited ten silent minutes), and
		// two campaigns, or perflab serve on 8080, would collide.
		l.FreePort = true
		l.BaseURL = strings.TrimSuffix(u, ":"+strconv.Itoa(a.DefaultPort)) + ":<free port>"
	}
	return l, l.expand(e.ID)
}

// expand replaces the references to the environment in what runs; the
// display and ShownEnv keep them.
func (l *Launch) expand(id string) error {
	l.ShownEnv = l.Env
	var err error
	if l.BaseURL, err = expandRefs(l.BaseURL, os.LookupEnv); err != nil {
		return fmt.Errorf("%s: base_url: %w", id, err)
	}
	if len(l.Argv) > 0 {
		argv := make([]string, len(l.Argv))
		for i, a := range l.Argv {
			if argv[i], err = expandRefs(a, os.LookupEnv); err != nil {
				return fmt.Errorf("%s: command: %w", id, err)
			}
		}
		l.Argv = argv
	}
	if len(l.Env) > 0 {
		env := make(map[string]string, len(l.Env))
		for k, v := range l.Env {
			if env[k], err = expandRefs(v, os.LookupEnv); err != nil {
				return fmt.Errorf("%s: env %s: %w", id, k, err)
			}
		}
		l.Env = env
	}
	return nil
}

// PortArgs are the arguments a launch with FreePort adds to the command
// for port: --port, and --host 127.0.0.1 when the command sets no host.
// base is the URL the engine then answers at.
func (l *Launch) PortArgs(port int) (args []string, base string) {
	args = []string{"--port", strconv.Itoa(port)}
	if _, ok := engine.FlagValue(l.Argv, "--host"); !ok {
		args = append([]string{"--host", "127.0.0.1"}, args...)
	}
	base, _ = l.Adapter.Endpoint(append(append([]string(nil), l.Argv...), args...))
	return args, base
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// APIKey is the key requests to the engine must carry as "Authorization:
// Bearer KEY": the command's --api-key, else VLLM_API_KEY or
// OPENAI_API_KEY from the experiment's env, else OPENAI_API_KEY from the
// collector's environment (as vllm bench serve reads it). "" when none.
func (l *Launch) APIKey() string {
	if v, ok := engine.FlagValue(l.Argv, "--api-key", "--api_key"); ok {
		return v
	}
	for _, k := range []string{"VLLM_API_KEY", "OPENAI_API_KEY"} {
		if v := l.Env[k]; v != "" {
			return v
		}
	}
	return os.Getenv("OPENAI_API_KEY")
}

// authTransport adds the engine's API key to every request.
type authTransport struct {
	key  string
	base http.RoundTripper
}

func (a authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+a.key)
	return a.base.RoundTrip(r)
}

// withKey returns base wrapped to carry key ("" leaves base as it is).
func withKey(base http.RoundTripper, key string) http.RoundTripper {
	if key == "" {
		return base
	}
	if base == nil {
		base = http.DefaultTransport
	}
	return authTransport{key: key, base: base}
}
