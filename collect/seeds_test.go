package collect

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// normCmd makes a command from a page comparable: comment lines dropped,
// backslash continuations joined (also the " \ " left where a page lost
// its line breaks), blanks collapsed.
func normCmd(s string) string {
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			lines = append(lines, t)
		}
	}
	s = strings.Join(lines, " ")
	s = strings.ReplaceAll(s, " \\ ", " ")
	s = strings.TrimSuffix(s, " \\")
	return strings.Join(strings.Fields(s), " ")
}

var (
	serveBlock = regexp.MustCompile("(?s)(?:Serving script|Serving Command|serving script)\"\\s*```bash\\s*(.*?)```")
	paramBlock = regexp.MustCompile("(?s)Backend Parameters:\\s*```bash\\s*(.*?)```")
	vllmBench  = regexp.MustCompile(`vllm bench serve [^\n]*`)
	guideBlock = regexp.MustCompile("(?s)```bash\\s*(guidellm benchmark.*?)```")
	servePlan  = regexp.MustCompile(`(?m)^    serve: (.*(?:\n           .*)*)`)
)

// TestDryRunPrintsTheSeedsCommands: `perflab collect --dry-run` on each
// bundled seed campaign prints exactly the serve and benchmark commands of
// the page it re-creates (results/<id>/src/seed.md, the imported page).
func TestDryRunPrintsTheSeedsCommands(t *testing.T) {
	campaigns, _ := filepath.Glob(filepath.Join("..", "content", "*", "*", "campaign.yaml"))
	seeds := 0
	for _, path := range campaigns {
		f, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		page, err := os.ReadFile(filepath.Join("..", "results", f.Campaign.ID, "src", "seed.md"))
		if err != nil {
			continue // not a seed (the demo campaign)
		}
		seeds++
		t.Run(f.Campaign.ID, func(t *testing.T) {
			var b strings.Builder
			if err := PrintPlan(&b, f, Options{Results: t.TempDir()}); err != nil {
				t.Fatal(err)
			}
			plan := b.String()
			planned := map[string]bool{}
			var all []string
			for _, m := range servePlan.FindAllStringSubmatch(plan, -1) {
				c := normCmd(m[1])
				planned[c] = true
				all = append(all, c)
			}
			text := string(page)
			n := 0
			for _, m := range serveBlock.FindAllStringSubmatch(text, -1) {
				n++
				if c := normCmd(m[1]); !planned[c] {
					t.Errorf("the page's serve command %q is not in the plan:\n%s", c, strings.Join(all, "\n"))
				}
			}
			// Pages that give only backend parameters (GPUStack's generated
			// ones): each parameter set ends one of the plan's commands.
			for _, m := range paramBlock.FindAllStringSubmatch(text, -1) {
				n++
				p := normCmd(m[1])
				found := false
				for c := range planned {
					found = found || strings.HasSuffix(c, " "+p)
				}
				if !found {
					t.Errorf("the page's backend parameters %q end no serve command of the plan", p)
				}
			}
			for _, m := range vllmBench.FindAllString(text, -1) {
				n++
				if !strings.Contains(plan, "\n  "+strings.TrimSpace(m)+"\n") {
					t.Errorf("the page's benchmark command is not in the plan:\n%s", m)
				}
			}
			if tpl := guideBlock.FindAllStringSubmatch(text, -1); len(tpl) > 0 {
				for i := range f.Campaign.Profiles {
					p := &f.Campaign.Profiles[i]
					tmpl := normCmd(tpl[0][1]) // ShareGPT
					if p.Dataset == "random" {
						tmpl = normCmd(tpl[1][1])
					}
					n++
					r := strings.NewReplacer("${request_rate}", ftoa(p.RequestRate), "${total_requests}", strconv.Itoa(p.NumPrompts),
						"${model_path}", f.Campaign.Model.ID, "${dataset_input_tokens}", strconv.Itoa(p.InputLen),
						"${dataset_output_tokens}", strconv.Itoa(p.OutputLen), "${dataset_seed:-42}", strconv.FormatInt(p.Seed, 10))
					if want := r.Replace(tmpl); !strings.Contains(plan, "\n  "+want+"\n") {
						t.Errorf("profile %s: the page's guidellm command\n%s\nis not in the plan:\n%s", p.ID, want, plan)
					}
				}
			}
			if n == 0 {
				t.Fatal("found no command in the page: the extraction is broken")
			}
			t.Logf("%d commands of the page found in the plan", n)
		})
	}
	if seeds < 3 {
		t.Errorf("found %d seed campaigns with an imported page, want 3", seeds)
	}
}
