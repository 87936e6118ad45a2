package collect

import (
	"fmt"
	"os"

	"github.com/perflab/perflab/collect/schema/campaignfile"
)

// File is a campaign read from disk, with the YAML positions of its
// fields so that validation errors can name file:line (Path, Campaign and
// Line come from campaignfile.File, which reads the file format for
// collect, ingest and render alike).
type File struct {
	campaignfile.File
}

// Load reads and decodes a campaign file. Unknown fields and wrong types
// are errors naming file:line. It does not validate: see Validate.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	return Parse(path, data)
}

// Parse decodes a campaign from data; name prefixes errors.
func Parse(name string, data []byte) (*File, error) {
	cf, err := campaignfile.Parse(name, data)
	if err != nil {
		return nil, err
	}
	return &File{File: *cf}, nil
}

// Problem is one validation error at a position of the file.
type Problem = campaignfile.Problem

// ValidationError lists every problem found, in line order.
type ValidationError = campaignfile.ValidationError

// problems collects validation errors against a File.
type problems struct {
	f    *File
	list []Problem
}

// add records msg for the field at path (its display name is the path
// joined with dots and brackets: steps[0].experiments[1].command).
func (ps *problems) add(path []any, format string, a ...any) {
	ps.list = append(ps.list, ps.f.Problem(path, format, a...))
}

func (ps *problems) err() error { return campaignfile.Errors(ps.f.Path, ps.list) }

func at(path ...any) []any { return path }
