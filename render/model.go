package render

import (
	"context"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/perflab/perflab/render/blocks"
	"github.com/perflab/perflab/render/markdown"
	"github.com/perflab/perflab/render/output"
	"github.com/perflab/perflab/render/site"
)

// The site model is render/site's (Load: pages, reports, campaigns,
// results); these are its types under the names the stages use, and
// render's public API.
type (
	Report      = site.Report
	Page        = site.Page
	Run         = site.Run
	StaleRun    = site.StaleRun
	FrontMatter = site.FrontMatter
	BlockSpec   = site.BlockSpec
	Metric      = site.Metric
	Delta       = site.Delta
)

// Site is the loaded site (render/site) with what a build keeps while
// it renders it.
type Site struct {
	*site.Site
	opt    Options
	conv   *markdown.Converter // narrative Markdown (raw HTML allowed); safe for concurrent use
	chroma *chromahtml.Formatter
	// cache keeps rendered pages between builds; nil renders every page.
	cache *buildCache
	// outputs, when set, skips writing the files the last build left
	// unchanged in the output directory (render/output).
	outputs *output.Tracker
	bufs    *blocks.Buffers
	// env is what the blocks share (render/blocks).
	env *blocks.Env
	// untouched is the outputs of a build that found out as it should
	// be and left it alone (renderInto): only such a build stamps the
	// site.
	untouched *output.Tracker
	// prevSearch reads the last build's search entries once (set with
	// outputs; outputs.go).
	prevSearch func() map[string]searchEntry
}

// Load reads and checks content and results (render/site).
func Load(ctx context.Context, opt Options) (*Site, error) { return load(ctx, opt, false) }

// loadForBuild is Load for a build that saves the input stat cache
// (render/inputs) when it succeeds (InputStats.Save; Abandon otherwise):
// unchanged inputs are neither hashed nor, for pages, read.
func loadForBuild(ctx context.Context, opt Options) (*Site, error) {
	return load(ctx, opt, !opt.NoCache)
}

func load(ctx context.Context, opt Options, stats bool) (*Site, error) {
	opt = opt.withDefaults()
	cfg := site.Config{Content: opt.Content, Results: opt.Results}
	if stats {
		cfg.StatsDir = opt.cacheDir()
	}
	m, err := site.Load(ctx, cfg)
	if err != nil {
		return nil, err
	}
	s := &Site{Site: m, opt: opt, conv: markdown.New(markdown.Options{Unsafe: true}), chroma: chromahtml.New(chromahtml.WithClasses(true)), bufs: &blocks.Buffers{}}
	s.env = &blocks.Env{Chroma: s.chroma, Bufs: s.bufs, Results: opt.Results, Extra: opt.blocks}
	return s, nil
}

func (s *Site) markdown() *markdown.Converter { return s.conv }
