package charts

import (
	"slices"
	"sync"

	echarts "github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
	"github.com/go-echarts/go-echarts/v2/render"
)

// go-echarts' NewBar and NewLine walk the whole option struct by
// reflection to set its struct-tag defaults (util.SetDefaultValue), the
// same walk with the same result for every chart: a tenth of a second
// of CPU in a 1,000-report build. newBar and newLine copy a chart made
// once instead.
//
// The copy is a value copy, so what the prototype holds by reference
// would be shared between charts. NewBar and NewLine leave only these
// references set (TestProtoReferences walks the prototypes to hold it),
// and unshare gives each copy its own:
//   - Colors, XAxisList and YAxisList: cloned (Validate writes the
//     category axis' data into XAxisList[0]);
//   - Assets: its ordered sets hold maps and slices that Validate
//     rewrites; made anew (InitAssets, as NewBar does);
//   - Renderer: it renders the chart it was made for; made anew for the
//     copy (as NewBar does).
var (
	protoBar  = sync.OnceValue(echarts.NewBar)
	protoLine = sync.OnceValue(echarts.NewLine)
)

// newBar is echarts.NewBar without its reflective walk.
func newBar() *echarts.Bar {
	c := new(echarts.Bar)
	*c = *protoBar()
	unshare(&c.BaseConfiguration)
	c.Renderer = render.NewChartRender(c, c.Validate)
	return c
}

// newLine is echarts.NewLine without its reflective walk.
func newLine() *echarts.Line {
	c := new(echarts.Line)
	*c = *protoLine()
	unshare(&c.BaseConfiguration)
	c.Renderer = render.NewChartRender(c, c.Validate)
	return c
}

// unshare gives a copied chart its own copy of each reference the
// prototype holds (the list above).
func unshare(bc *echarts.BaseConfiguration) {
	bc.Colors = slices.Clone(bc.Colors)
	bc.XAxisList = slices.Clone(bc.XAxisList)
	bc.YAxisList = slices.Clone(bc.YAxisList)
	bc.Assets = opts.Assets{} // InitAssets appends to the sets' values
	bc.InitAssets()
}
