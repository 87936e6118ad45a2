package render

import (
	"context"

	"github.com/perflab/perflab/render/blocks"
	"github.com/perflab/perflab/render/layout"
	"github.com/perflab/perflab/render/nav"
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

// The layout's types (render/layout) under the names the pipeline uses.
type (
	frame       = layout.Frame
	searchEntry = layout.SearchEntry
	navView     = nav.Tree
)

// ReloadPath is where, below the base URL, a preview server serves its
// reload events when Options.LiveReload is set.
const ReloadPath = layout.ReloadPath

// SiteTitle is the site's name in the header.
const SiteTitle = layout.SiteTitle

// Site is the loaded site (render/site), laid out (render/layout), with
// what a build keeps while it renders it.
type Site struct {
	*layout.Site
	opt Options
	// cache keeps rendered pages between builds; nil renders every page.
	cache *buildCache
	// outputs, when set, skips writing the files the last build left
	// unchanged in the output directory (render/output).
	outputs *output.Tracker
	// stage is the directory that build writes into (output.Stage); nil
	// for a Render of another caller's directory.
	stage *output.Stage
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
	lo := layout.Options{BaseURL: opt.BaseURL, Content: opt.Content, LiveReload: opt.LiveReload}
	return &Site{Site: layout.New(m, lo, opt.Results, opt.blocks), opt: opt}, nil
}

// blockFuncs are block types besides the built-in ones (Options.blocks).
type blockFuncs = map[string]blocks.Func
