package render

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// renderLayers places every package of render/ in a layer: a package may
// import only packages of lower layers (arrows point down), so that a
// lower stage never learns of an upper one. Each package's doc.go says
// what it owns and what it may not touch. A new package must be placed
// here (TestRenderLayers fails for one that is not).
var renderLayers = map[string]int{
	// Leaves: encodings, statistics, Markdown, chart options, the corpus,
	// the template-to-Go generator (issue 17 item 3, when merged).
	"render/tmplgen":  0,
	"render/wire":     0,
	"render/analysis": 0,
	"render/markdown": 0,
	"render/charts":   0,
	"render/corpus":   0,
	// Reading inputs (records, the stat cache); the build cache's store.
	"render/inputs":     1,
	"render/buildcache": 1,
	// The navigation (tree, links, its HTML), a part of the layout.
	"render/nav": 0,
	// The output directory: writing, swapping, locking, the manifest.
	"render/output": 2,
	// Older rounds of a report's results: the rounds listed once, their
	// results read and cached for the history (the model loads through it).
	"render/roundload": 2,
	// The site model: Load's pages, reports, campaigns and results.
	"render/site": 3,
	// The blocks: each block's view of the model, the numbers from
	// render/analysis; the generated writers' helpers.
	"render/blocks": 4,
	// The layout: the frame, a page's body and contents, the home page,
	// the search index's files, the templates.
	"render/layout": 5,
	// The pipeline wiring the stages.
	"render": 6,
	// Commands built on a build.
	"render/serve":           7,
	"render/publish":         7,
	"render/bench/gencorpus": 7,
}

const module = "github.com/perflab/perflab/"

// TestRenderLayers: every import between packages of render/ points to
// a lower layer (renderLayers), read from go list.
func TestRenderLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"render/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		layer, ok := renderLayers[pkg]
		if !ok {
			t.Errorf("%s is in no layer: place it in renderLayers (shape_test.go) and give it a doc.go", pkg)
			continue
		}
		seen++
		for _, imp := range fields[1:] {
			dep, ok := strings.CutPrefix(imp, module)
			if !ok || !strings.HasPrefix(dep, "render") {
				continue
			}
			if l, ok := renderLayers[dep]; ok && l >= layer {
				t.Errorf("%s (layer %d) imports %s (layer %d): arrows point down only", pkg, layer, dep, l)
			}
		}
	}
	if seen < 5 {
		t.Errorf("go list found %d packages of render/: the test reads nothing", seen)
	}
}

// The limits of TestRenderSize: beyond them a file or a function no
// longer reads in one sitting.
const (
	maxFileLines = 600
	maxFuncLines = 120
)

// TestRenderSize: no Go file of render/ (tests and generated files aside:
// "// Code generated ... DO NOT EDIT.", which nobody reads to change) is
// longer than maxFileLines, and no function longer than maxFuncLines.
func TestRenderSize(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, p, src, parser.SkipObjectResolution|parser.ParseComments)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		files++
		if n := bytes.Count(src, []byte("\n")); n > maxFileLines {
			t.Errorf("render/%s: %d lines (at most %d): split it by concern", p, n, maxFileLines)
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1
			if n > maxFuncLines {
				t.Errorf("render/%s: %s is %d lines (at most %d)", p, fd.Name.Name, n, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 40 {
		t.Errorf("only %d files read", files)
	}
}
