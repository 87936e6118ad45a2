package layout

import (
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"

	"github.com/perflab/perflab/render/blocks"
	"github.com/perflab/perflab/render/markdown"
	"github.com/perflab/perflab/render/output"
	"github.com/perflab/perflab/render/site"
)

// ReloadPath is where, below the base URL, a preview server serves its
// reload events when Options.LiveReload is set.
const ReloadPath = "_perflab/reload"

// SiteTitle is the site's name in the header.
const SiteTitle = "Inference Performance Lab"

// The site model's types (render/site) under the names the layout uses.
type (
	Page      = site.Page
	Report    = site.Report
	BlockSpec = site.BlockSpec
	// File is one output file.
	File = output.File
)

// Options are what of a build's options shows in the layout.
type Options struct {
	BaseURL    string // "/" (relative links) or the path the site is served under
	Content    string // the content directory (a report's campaign link)
	LiveReload bool   // the pages listen for a preview server's reloads
}

// Site is the loaded site (render/site) with what its pages are laid out
// with: the options that show, the Markdown converter, the blocks'
// environment (render/blocks) and the lent buffers.
type Site struct {
	*site.Site
	opt  Options
	conv *markdown.Converter // narrative Markdown (raw HTML allowed); safe for concurrent use
	env  *blocks.Env
	// Bufs lends the buffers pages are written into.
	Bufs *blocks.Buffers
}

// New lays out site m with opt; the blocks read the results under
// results, and extra are block types besides the built-in ones.
func New(m *site.Site, opt Options, results string, extra map[string]blocks.Func) *Site {
	bufs := &blocks.Buffers{}
	env := &blocks.Env{Chroma: chromahtml.New(chromahtml.WithClasses(true)), Bufs: bufs, Results: results, Extra: extra}
	return &Site{Site: m, opt: opt, conv: markdown.New(markdown.Options{Unsafe: true}), env: env, Bufs: bufs}
}

func (s *Site) markdown() *markdown.Converter { return s.conv }

// Entry is a page's content before its layout: what render's build cache
// keeps of it (encoded by render/wire).
type Entry struct {
	Page   Rendered
	Search SearchEntry
	Files  []File // a report's data.json and data.csv
}
