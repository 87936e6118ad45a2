// Package charts maps benchmark numbers to ECharts options: pure data, no
// HTML. Every chart is built from go-echarts' chart and option types
// (github.com/go-echarts/go-echarts/v2 charts and opts), as the design
// card asks; the page embeds the option JSON and draws it with the
// vendored echarts.min.js (no CDN, none of go-echarts' own page
// rendering). A chart's ID is fixed by the caller so that builds are
// reproducible; the JSON is encoding/json's of go-echarts' option map
// (keys sorted, <, > and & escaped for a <script type="application/json">
// element).
//
// go-echarts' option types lack a few keys ECharts has and the charts use:
// a title per panel (go-echarts has one title), an axis' logBase and
// nameTextStyle, a numeric axisLabel interval (go-echarts writes it as a
// string, which ECharts adds to as text), a series' z, a limit line's
// silent, a mark's single symbol (go-echarts writes a list, which ECharts
// reads only for a line's two ends) and the history chart's "history" key
// (its hover text's data, read by the page's script). panelVisitor adds
// them through go-echarts' ConfigurationVisitor, its hook for exactly
// that, wrapping its types rather than replacing them; it also writes a
// single dataset as an object, not a list of one.
//
// Bars draws grouped bars, Lines lines over numeric axes, HistoryChart a
// report's history: lines over rounds read from one dataset (encode), with
// change points pinned and version changes marked on x.
//
// Every chart offers the toolbox readers expect of ECharts (save as
// image, data view); a line chart whose sweep has many points (at least
// zoomPoints on a line) also zooms over x (dataZoom: inside and a
// slider).
//
// A chart starts as a copy of a go-echarts chart made once (proto.go):
// NewBar and NewLine set their struct-tag defaults by a reflective walk
// whose result is the same every time; the copy unshares what the
// prototype holds by reference, and TestProtoReferences fails when a
// go-echarts upgrade adds a reference the copy would share.
package charts
