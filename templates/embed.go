// Package templates holds the site's HTML templates and assets (CSS, the
// small site script, the vendored echarts.min.js 5.6.0 with its LICENSE and
// NOTICE), embedded in the binary.
//
// Templates:
//
//	layout.html  the page frame: header, search, navigation, TOC, footer
//	home.html    the home page's report list
//	blocks.html  the generated blocks (comparison, step, summary, …)
//	history.html the history block of a report with rounds, the telemetry
//	             block's sentence
//	nav.html     the navigation as one page shows it
//
// These files are the only source of the site's HTML. With the embedded
// copies, render writes each page through Go functions generated from
// them (render/blocks/htmlwriters_gen.go for the blocks',
// render/layout/htmlwriters_gen.go for the layout's, by render/tmplgen:
// run go generate ./render after editing a template; each package's
// TestGeneratedWriters fails until then, and until then the build executes the templates with
// html/template, which gives the same bytes, more slowly). A lab changes
// the look with perflab build --templates DIR (MkDocs' custom_dir): DIR's
// *.html are parsed after these, so a {{define}} there replaces the
// template of that name, and DIR/assets/ files replace or add assets.
package templates

import "embed"

// FS holds *.html and assets/.
//
//go:embed *.html assets
var FS embed.FS
