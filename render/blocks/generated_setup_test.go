package blocks

import (
	"fmt"
	"html/template"
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// TestGeneratedSetup: the generated writers of the setup-* templates give
// what html/template gives, for hostile text and with every optional part
// present and absent.
func TestGeneratedSetup(t *testing.T) {
	tm, _, err := loadTemplates("")
	if err != nil {
		t.Fatal(err)
	}
	hostile := []string{"", "plain", `a<b>&"c'+d`, "nul\x00x", "ünïcødé — µs", "bad\xffutf8", "javascript:alert(1)", "{{.Tool}}"}
	var views []setupView
	for i, s := range hostile {
		h := hostile[(i+1)%len(hostile)]
		v := setupView{ModelID: s, Hardware: h, Tool: s, Rerun: i%2 == 1, Objective: h}
		if i%2 == 0 {
			v.Variants = []string{s, h}
			v.GPUs = []string{s, "8 × H100, 81559 MiB each"}
			v.Engines = []schema.EngineSpec{{Name: s, Version: h}, {Name: "vLLM"}}
			v.Profiles = []profileRow{{s, h, "1000 / 100", "500 (× 3 runs)", "inf", s, "—"}, {h, s, h, s, h, s, h}}
			v.Commands = []commandLine{{s, template.HTML("<pre>x &amp; y</pre>")}, {h, ""}}
		}
		views = append(views, v)
	}
	for i, v := range views {
		for _, sec := range setupSections {
			compareGenerated(t, tm, sec.tmpl, &v, fmt.Sprintf("view %d", i))
		}
	}
}
