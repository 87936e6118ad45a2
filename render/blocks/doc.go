// Package blocks writes the generated blocks of a page (the perflab
// fenced blocks a page places, and the report skeleton that places them
// for a page that places none): each block takes the site model
// (render/site's Report and its runs) and the numbers render/analysis
// computes from it, builds a view, and writes it through its template
// (templates/blocks.html, history.html) by the generated writer
// (htmlwriters_gen.go, go generate ./render/blocks) or html/template.
// One file per block: comparison.go (comparison, chart, latency-chart),
// step.go (step, summary), setup.go (setup, runs, cases), curves.go
// (curve, latency-curve), slo.go, command.go (command, raw),
// history.go and history_chart.go (historyfail.go: runs that went
// wrong; homechanges.go: the home page's list), telemetry.go; blocks.go dispatches,
// skeleton.go places them in a report without blocks. It also makes a
// report's downloads (reportdata.go: data.json, data.csv; curves.csv;
// roundsdata.go: data.json's list of rounds and each round's own
// data.json and data.csv, which render writes as units of their own)
// and the headline figures the home page and the page header show
// (headline.go: ReportMeta), and holds what every generated writer
// calls (htmlwriters.go: escaping, the fallback to html/template, the
// templates' sum; render's writers for the layout call them too).
//
// A block reads files only through the page's inputs.Reader (Ctx.In),
// which records them into the page's cache key: there is no other way
// in.
//
// It may not touch: the layout (the frame, navigation, home page,
// search), the build cache, the output directory, or any other page;
// it does not load (render/site does) and does not write files (render
// does). Imports point down only: render/site, render/analysis,
// render/charts, render/markdown, render/inputs, render/nav (links).
package blocks
