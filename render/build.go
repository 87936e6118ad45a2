// Package render builds the static site from content/ and results/.
// (API contract; the implementation is being written.)
package render

import (
	"context"
	"errors"
)

// Options locate the inputs and the output of a build.
type Options struct {
	Content string // default "content"
	Results string // default "results"
	Out     string // default "site"
	// BaseURL is the path prefix every link gets ("/perflab/" for a
	// GitHub project page); default "/".
	BaseURL string
	// TemplatesDir, when set, reads templates from disk (serve mode)
	// instead of the embedded copies.
	TemplatesDir string
	// LiveReload injects the reload script (serve mode only).
	LiveReload bool
}

// Build renders the whole site into a temporary directory and swaps it in
// place of Out; on error Out is left as it was.
func Build(ctx context.Context, opt Options) error {
	return errors.New("render: not implemented")
}
