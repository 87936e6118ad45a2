package layout

import (
	"fmt"
	"html/template"
	"io/fs"
	"os"

	"github.com/perflab/perflab/render/blocks"
	"github.com/perflab/perflab/templates"
)

// ParseTemplates parses the HTML templates and returns the assets FS: the
// embedded copies, with dir (when not "") laid over them (customdir.go).
func ParseTemplates(dir string) (*template.Template, fs.FS, error) {
	var fsys fs.FS = templates.FS
	t, err := template.New("").Funcs(blocks.TemplateFuncs()).ParseFS(fsys, "*.html")
	if err != nil {
		return nil, nil, fmt.Errorf("render: templates: %w", err)
	}
	if dir != "" {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, nil, fmt.Errorf("render: templates %s: not a directory", dir)
		}
		top := os.DirFS(dir)
		own, err := fs.Glob(top, "*.html")
		if err != nil {
			return nil, nil, fmt.Errorf("render: templates %s: %w", dir, err)
		}
		if len(own) > 0 {
			if _, err := t.ParseFS(top, "*.html"); err != nil {
				return nil, nil, fmt.Errorf("render: templates %s: %w", dir, err)
			}
		}
		return t, overlayFS{top: top, base: fsys}, nil
	}
	// The generated writers (htmlwriters.go, render/blocks') are used
	// only for the templates they were generated from.
	sum, err := blocks.TemplatesSum(fsys)
	if err != nil {
		return nil, nil, fmt.Errorf("render: templates: %w", err)
	}
	if sum == generatedTemplatesSum {
		if _, err := t.New(builtinMarker).Parse(""); err != nil {
			return nil, nil, fmt.Errorf("render: templates: %w", err)
		}
	}
	if err := blocks.MarkGenerated(t, sum); err != nil {
		return nil, nil, fmt.Errorf("render: templates: %w", err)
	}
	return t, fsys, nil
}
