// Package templates holds the site's HTML templates and assets (CSS, the
// small site script, the vendored echarts.min.js 5.6.0 with its LICENSE and
// NOTICE), embedded in the binary. perflab serve can read the same files
// from disk instead (render.Options.TemplatesDir) so that edits show live.
//
// Templates:
//
//	layout.html  the page frame: header, search, navigation, TOC, footer
//	home.html    the home page's report list
//	blocks.html  the generated blocks (comparison, step, summary, …)
//
// With the embedded copies, render writes the hottest blocks (runs, step,
// comparison, cases and the cell, rawbody and noterefs templates they
// call) with Go code that produces the same bytes (render/fastblocks.go);
// templates read from disk are always executed as they are. A change to
// one of those templates must be made in fastblocks.go too:
// render's TestFastBlocks fails until both agree.
package templates

import "embed"

// FS holds *.html and assets/.
//
//go:embed *.html assets
var FS embed.FS
