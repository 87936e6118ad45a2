package publish

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestPagesWorkflow checks .github/workflows/pages.yml, the CI alternative
// to Publish: on push to main it builds with perflab for the Pages base
// path and deploys with GitHub's official actions, pinned to major
// versions, with the permissions deploy-pages needs.
func TestPagesWorkflow(t *testing.T) {
	data, err := os.ReadFile("../../.github/workflows/pages.yml")
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On struct {
			Push struct {
				Branches []string `yaml:"branches"`
			} `yaml:"push"`
		} `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Needs       any `yaml:"needs"`
			Environment struct {
				Name string `yaml:"name"`
			} `yaml:"environment"`
			Steps []struct {
				ID   string            `yaml:"id"`
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("pages.yml: %v", err)
	}
	if strings.Join(wf.On.Push.Branches, ",") != "main" {
		t.Errorf("push branches = %q, want [main]", wf.On.Push.Branches)
	}
	for k, v := range map[string]string{"pages": "write", "id-token": "write", "contents": "read"} {
		if wf.Permissions[k] != v {
			t.Errorf("permission %s = %q, want %q", k, wf.Permissions[k], v)
		}
	}
	pinned := regexp.MustCompile(`^actions/[a-z-]+@v\d+$`)
	used := map[string]bool{}
	var build, upload string
	for name, job := range wf.Jobs {
		for _, st := range job.Steps {
			if st.Uses != "" {
				if !pinned.MatchString(st.Uses) {
					t.Errorf("job %s uses %q: want an official action pinned to a major version", name, st.Uses)
				}
				used[strings.Split(st.Uses, "@")[0]] = true
			}
			if strings.Contains(st.Run, "./cmd/perflab build") {
				build = st.Run
			}
			if strings.HasPrefix(st.Uses, "actions/upload-pages-artifact@") {
				upload = st.With["path"]
			}
		}
	}
	for _, a := range []string{"actions/checkout", "actions/setup-go", "actions/configure-pages", "actions/upload-pages-artifact", "actions/deploy-pages"} {
		if !used[a] {
			t.Errorf("%s is not used", a)
		}
	}
	if !strings.Contains(build, "go run ./cmd/perflab build --base-url") || !strings.Contains(build, "steps.pages.outputs.base_path") {
		t.Errorf("build step %q: want go run ./cmd/perflab build --base-url from configure-pages' base_path", build)
	}
	if upload != "site" {
		t.Errorf("uploaded path = %q, want site", upload)
	}
	if d := wf.Jobs["deploy"]; d.Environment.Name != "github-pages" || d.Needs != "build" {
		t.Errorf("deploy job: environment %q, needs %v", d.Environment.Name, d.Needs)
	}
}
