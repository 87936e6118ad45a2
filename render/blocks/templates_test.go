package blocks

import (
	"html/template"
	"io/fs"

	"github.com/perflab/perflab/templates"
)

// loadTemplates parses the embedded templates as render does for a build
// (dir must be ""; templates laid over them are render's), marked for
// the blocks' generated writers when they were generated from them.
func loadTemplates(dir string) (*template.Template, fs.FS, error) {
	if dir != "" {
		panic("blocks tests: no template directory")
	}
	t, err := template.New("").Funcs(templateFuncs).ParseFS(templates.FS, "*.html")
	if err != nil {
		return nil, nil, err
	}
	sum, err := templatesSum(templates.FS)
	if err != nil {
		return nil, nil, err
	}
	if err := MarkGenerated(t, sum); err != nil {
		return nil, nil, err
	}
	return t, templates.FS, nil
}
