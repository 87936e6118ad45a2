package collect

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"
)

// A campaign need not hold its secrets: any experiment's command, args,
// env value or base_url may name an environment variable as ${NAME}, which
// collect replaces with the variable's value when it starts the engine
// (HF_TOKEN: ${HF_TOKEN}, --api-key ${VLLM_API_KEY}). Results, the plan
// and the site keep the reference as written; the value is only in the
// engine's process, and is hidden from its log like any other secret.
// Only ${NAME} with NAME a shell variable name is a reference; $NAME and
// other text are left as they are.

// envRef matches a reference.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandRefs replaces the references of s with their values.
func expandRefs(s string, lookup func(string) (string, bool)) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var missing []string
	out := envRef.ReplaceAllStringFunc(s, func(m string) string {
		name := m[2 : len(m)-1]
		v, ok := lookup(name)
		if !ok {
			missing = append(missing, name)
		}
		return v
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("%s is not set in the environment (the campaign takes it from there: export %s=… before perflab collect)", strings.Join(missing, ", "), missing[0])
	}
	return out, nil
}

// CheckEnv reports, as file:line: field: problems, every reference of an
// experiment (command, args, env, base_url) to a variable lookup does not
// know (os.LookupEnv when nil): collect refuses to start rather than
// launch an engine without its token hours into a campaign.
func (f *File) CheckEnv(lookup func(string) (string, bool)) error {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	ps := &problems{f: f}
	check := func(path []any, s string) {
		if _, err := expandRefs(s, lookup); err != nil {
			ps.add(path, "%v", err)
		}
	}
	for si, st := range f.Campaign.Steps {
		for ei, e := range st.Experiments {
			at := func(rest ...any) []any { return append([]any{"steps", si, "experiments", ei}, rest...) }
			check(at("command"), e.Command)
			for i, a := range e.Args {
				check(at("args", i), a)
			}
			keys := make([]string, 0, len(e.Env))
			for k := range e.Env {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				check(at("env", k), e.Env[k])
			}
			check(at("base_url"), e.BaseURL)
		}
	}
	return ps.err()
}
