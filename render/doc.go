// Package render builds the static site from content/ (Markdown narrative,
// campaign.yaml page bundles) and results/ (schema.Result JSON).
//
// The build is a pure function from input files to output files, in named
// stages:
//
//	load    Load reads and checks every input (front matter, campaigns,
//	        results) into a Site; bad input fails here with file:line.
//	render  each Page becomes its files (HTML, and for a report its
//	        data.json/data.csv); pages are independent, so a preview server
//	        can re-render only the pages whose Deps changed (Site.PageFiles
//	        with LoadTemplates).
//	site    the home page, search index and assets.
//	swap    Build writes into a temporary directory beside Out and swaps it
//	        in with renames, so a failed build leaves Out as it was.
//
// Output is deterministic: collections are sorted, ids are derived from
// content, nothing depends on time or map order.
//
// render depends on collect/schema only (a test enforces it): old results
// keep rendering whatever the collector does.
package render
