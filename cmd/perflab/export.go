package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/perflab/perflab/collect/llmd"
	"github.com/perflab/perflab/collect/schema"
)

const exportUsage = `usage: perflab export [flags] RESULT... --out DIR

Writes perflab results as llm-d-benchmark benchmark reports (version 0.2,
the format llm-d's harnesses write and its comparison tools read). RESULT
is a result file (results/<campaign>/<id>.json) or a folder of them
(results/, walked). Each result becomes DIR/<campaign>/<id>.yaml (or .json
with --json), a report that passes llm-d-benchmark's schema checks;
perflab import reads it back with every number. A result without numbers
(a crashed run) is written with its status and no request performance.
Nothing is written when a result cannot be read.

flags:
`

// runExport implements `perflab export`.
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "`DIR` to write the reports into (required)")
	asJSON := fs.Bool("json", false, "write JSON reports instead of YAML")
	fs.Usage = func() { fmt.Fprint(stderr, exportUsage); fs.PrintDefaults() }
	srcs, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return usageError("export: %v", err)
	}
	if len(srcs) == 0 {
		return usageError("export: no result file or folder given")
	}
	if *out == "" {
		return usageError("export: --out DIR is required")
	}
	type file struct {
		path string
		data []byte
	}
	var files []file
	for _, src := range srcs {
		paths, err := resultFiles(src)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		for _, p := range paths {
			if err := ctx.Err(); err != nil {
				return err
			}
			r, err := schema.ReadFile(p)
			if err != nil {
				return fmt.Errorf("export: %w", err)
			}
			rep, err := llmd.Export(r)
			if err != nil {
				fmt.Fprintf(stdout, "%s: skipped: %v\n", p, err)
				continue
			}
			var data []byte
			ext := ".yaml"
			if *asJSON {
				data, err = rep.JSON()
				ext = ".json"
			} else {
				data, err = rep.YAML()
			}
			if err != nil {
				return fmt.Errorf("export: %s: %w", p, err)
			}
			dir := r.Campaign
			if dir == "" {
				dir = "results"
			}
			files = append(files, file{filepath.Join(*out, dir, r.ID+ext), data})
		}
	}
	for _, f := range files {
		if err := schema.WriteAtomic(f.path, f.data); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		fmt.Fprintf(stdout, "wrote %s\n", f.path)
	}
	fmt.Fprintf(stdout, "%d report%s (llm-d benchmark report v%s) under %s\n", len(files), plural(len(files), "", "s"), llmd.Version, *out)
	return nil
}

// resultFiles is src, or the result files below the folder src (its
// src/ copies of pages and hidden entries skipped).
func resultFiles(src string) ([]string, error) {
	st, err := os.Stat(src)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{src}, nil
	}
	var out []string
	err = filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != src && (strings.HasPrefix(d.Name(), ".") || d.Name() == "src") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".json") && !strings.HasPrefix(d.Name(), ".") {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}
