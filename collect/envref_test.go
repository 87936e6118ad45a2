package collect

import (
	"slices"
	"strings"
	"testing"
)

const refCampaign = `id: refs
model:
  id: m/m
hardware: {gpu: H100, count: 1}
profiles:
  - {id: p, name: P, dataset: random, input_len: 16, output_len: 4, num_prompts: 3}
steps:
  - id: s
    title: S
    experiments:
      - id: e
        name: E
        engine: vllm
        command: vllm serve m/m --port 8123 --api-key ${PERFLAB_TEST_KEY}
        env:
          HF_TOKEN: ${PERFLAB_TEST_TOKEN}
          PLAIN: "x-${PERFLAB_TEST_TOKEN}-y"
baseline: e
optimized: e
`

// TestCheckEnvNamesFileLineField: an unset variable stops collect before
// anything runs, with the file, line and field of the reference.
func TestCheckEnvNamesFileLineField(t *testing.T) {
	f, err := Parse("refs.yaml", []byte(refCampaign))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"PERFLAB_TEST_KEY": "k"}
	err = f.CheckEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err == nil {
		t.Fatal("no error for an unset variable")
	}
	for _, want := range []string{
		"refs.yaml:16: steps[0].experiments[0].env.HF_TOKEN: PERFLAB_TEST_TOKEN is not set in the environment",
		"refs.yaml:17: steps[0].experiments[0].env.PLAIN: PERFLAB_TEST_TOKEN is not set",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "command") {
		t.Errorf("the set variable is reported:\n%v", err)
	}
	env["PERFLAB_TEST_TOKEN"] = ""
	if err := f.CheckEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }); err != nil {
		t.Errorf("set (if empty) variables: %v", err)
	}
}

// TestLaunchExpandsRefs: the engine gets the values; the display and the
// recorded env keep the references.
func TestLaunchExpandsRefs(t *testing.T) {
	t.Setenv("PERFLAB_TEST_KEY", "key-value-1234")
	t.Setenv("PERFLAB_TEST_TOKEN", "hf_abcdefghijklmnopqrstuvwxyz")
	f, err := Parse("refs.yaml", []byte(refCampaign))
	if err != nil {
		t.Fatal(err)
	}
	c := &f.Campaign
	l, err := NewLaunch(c, &c.Steps[0].Experiments[0])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(l.Argv, "key-value-1234") || l.Env["HF_TOKEN"] != "hf_abcdefghijklmnopqrstuvwxyz" || l.Env["PLAIN"] != "x-hf_abcdefghijklmnopqrstuvwxyz-y" {
		t.Errorf("not expanded: argv %q env %q", l.Argv, l.Env)
	}
	if l.ShownEnv["HF_TOKEN"] != "${PERFLAB_TEST_TOKEN}" {
		t.Errorf("ShownEnv = %q", l.ShownEnv)
	}
	if !strings.Contains(l.Display, "--api-key ${PERFLAB_TEST_KEY}") || !strings.Contains(l.Display, "${PERFLAB_TEST_TOKEN}") || strings.Contains(l.Display, "hf_") || strings.Contains(l.Display, "key-value") {
		t.Errorf("Display = %q", l.Display)
	}
	t.Setenv("PERFLAB_TEST_KEY", "")
	if _, err := expandRefs("a ${NOPE_PERFLAB_X} b", func(string) (string, bool) { return "", false }); err == nil || !strings.Contains(err.Error(), "NOPE_PERFLAB_X is not set") {
		t.Errorf("expandRefs: %v", err)
	}
}
