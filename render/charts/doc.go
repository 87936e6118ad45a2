// Package charts maps benchmark numbers to ECharts options: pure data, no
// HTML. A Chart marshals to the option object that echarts' setOption
// takes; its ID is fixed by the caller so that builds are reproducible.
//
// We use plain structs rather than go-echarts' option types: the subset we
// need (grouped bars in one or more stacked panels, tooltips, value labels)
// is small, and plain structs marshal deterministically in declaration
// order.
package charts
