package blocks

import "github.com/perflab/perflab/render/site"

// The site model's types (render/site) under the names the blocks use.
type (
	Report    = site.Report
	Page      = site.Page
	Run       = site.Run
	BlockSpec = site.BlockSpec
	Metric    = site.Metric
	Delta     = site.Delta
)
