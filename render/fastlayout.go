package render

import (
	"bytes"
	"strconv"
)

// The page layout (templates/layout.html) written by Go code, as
// fastblocks.go writes the report blocks: html/template's reflective
// escapers on every page's layout were the largest template cost left in
// a 1,000-report build. writeLayout gives the bytes the "layout" template
// gives (TestFastBlocks builds whole sites both ways; TestFastLayout
// compares hostile views), and is used only with the embedded templates.
//
// Text, the title and quoted attribute values are escaped by escapeText
// (html/template's table for a string in those contexts; the meta
// description's content attribute gets the same). URLs are not escaped
// here: html/template filters a URL's scheme and normalises or
// percent-encodes its characters by where in the URL a value falls, and
// fastLayoutOK sends every page whose URL values hold anything but
// characters all of those leave as they are to the template instead, as
// it does a live-reload page (its script escapes a JavaScript value).

// urlInert reports whether every escaper html/template applies to a URL
// value (filter, normaliser, and with frag the query/fragment escaper)
// leaves s as it is: ASCII letters, digits, "-._~", and "/" outside a
// fragment. With no ":" no scheme can be named.
func urlInert(s string, frag bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '-', c == '.', c == '_', c == '~':
		case c == '/' && !frag:
		default:
			return false
		}
	}
	return true
}

// fastLayoutOK reports whether writeLayout gives v's page exactly.
func fastLayoutOK(v *layoutView) bool {
	if v.LiveReload || !urlInert(v.Base, false) || !urlInert(v.HomeHref, false) {
		return false
	}
	if r := v.Report; r != nil && (!urlInert(r.DataJSON, false) || !urlInert(r.DataCSV, false) || !urlInert(r.Campaign, false)) {
		return false
	}
	for _, e := range v.TOC {
		if !urlInert(e.ID, true) {
			return false
		}
	}
	return true
}

const layoutHead = `<!DOCTYPE html>
<html lang="en" data-theme="light">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>`

const layoutMeta = `<meta name="generator" content="perflab">
<script>(function(){try{var t=localStorage.getItem("perflab-theme");if(!t){t=window.matchMedia&&matchMedia("(prefers-color-scheme: dark)").matches?"dark":"light"}document.documentElement.setAttribute("data-theme",t)}catch(e){}})();</script>
<link rel="stylesheet" href="`

const layoutSearch = `</a>
  <div class="search">
    <input id="search" type="search" placeholder="Search reports" aria-label="Search" autocomplete="off">
    <ol id="search-results" class="search-results" hidden></ol>
  </div>
  <button class="theme-toggle" type="button" aria-label="Switch light/dark theme" title="Switch light/dark theme">◐</button>
</header>
<div class="frame">
`

// writeLayout is the "layout" template for a view fastLayoutOK accepts.
func writeLayout(b *bytes.Buffer, v *layoutView) {
	b.WriteString(layoutHead)
	escapeText(b, v.Title)
	if !v.Home {
		b.WriteString(" · ")
		escapeText(b, v.SiteTitle)
	}
	b.WriteString("</title>\n")
	if v.Description != "" {
		b.WriteString(`<meta name="description" content="`)
		escapeText(b, v.Description)
		b.WriteString("\">\n")
	}
	b.WriteString(layoutMeta)
	b.WriteString(v.Base)
	b.WriteString("assets/site.css\">\n<link rel=\"stylesheet\" href=\"")
	b.WriteString(v.Base)
	b.WriteString("assets/chroma.css\">\n<noscript><style>@media (max-width: 800px) { .nav { display: block; position: static; width: auto; box-shadow: none; border: 0; padding: 0.5rem 0; } .nav-toggle { display: none; } }</style></noscript>\n</head>\n<body data-base=\"")
	b.WriteString(v.Base)
	b.WriteString("\">\n<header class=\"top\">\n  <button class=\"nav-toggle\" type=\"button\" aria-label=\"Navigation\" aria-controls=\"nav\" aria-expanded=\"false\">☰</button>\n  <a class=\"brand\" href=\"")
	b.WriteString(v.Base)
	b.WriteString(v.HomeHref)
	b.WriteString(`">`)
	escapeText(b, v.SiteTitle)
	b.WriteString(layoutSearch)
	b.WriteString(string(v.NavHTML))
	b.WriteString("\n<main class=\"content\">\n<article>\n<h1>")
	escapeText(b, v.Title)
	b.WriteString("</h1>")
	if r := v.Report; r != nil {
		b.WriteString("\n<p class=\"report-meta\"><span>")
		escapeText(b, r.Model)
		b.WriteString("</span> · <span>")
		escapeText(b, r.Hardware)
		b.WriteString("</span> · <span>")
		escapeText(b, r.Engine)
		b.WriteString("</span> · <span>")
		escapeText(b, r.Objective)
		b.WriteString("</span>\n · Data: <a href=\"")
		b.WriteString(v.Base)
		b.WriteString(r.DataJSON)
		b.WriteString("\" download>JSON</a> · <a href=\"")
		b.WriteString(v.Base)
		b.WriteString(r.DataCSV)
		b.WriteString("\" download>CSV</a>")
		if r.Campaign != "" {
			b.WriteString(" · <a href=\"")
			b.WriteString(v.Base)
			b.WriteString(r.Campaign)
			b.WriteString("\">campaign.yaml</a>")
		}
		b.WriteString("</p>")
	}
	b.WriteString("\n")
	b.WriteString(string(v.Body))
	b.WriteString("\n</article>\n</main>")
	if len(v.TOC) > 0 {
		b.WriteString("\n<aside class=\"toc\" aria-label=\"On this page\">\n<p class=\"toc-title\">On this page</p>\n<ul>")
		for _, e := range v.TOC {
			b.WriteString(`<li class="toc-h`)
			b.WriteString(strconv.Itoa(e.Level))
			b.WriteString(`"><a href="#`)
			b.WriteString(e.ID)
			b.WriteString(`">`)
			escapeText(b, e.Text)
			b.WriteString("</a></li>")
		}
		b.WriteString("</ul>\n</aside>")
	}
	b.WriteString("\n</div>\n<footer class=\"foot\">Generated by perflab from recorded benchmark results. Every number on this page is computed from the data.</footer>")
	if v.Charts {
		b.WriteString("\n<script src=\"")
		b.WriteString(v.Base)
		b.WriteString("assets/echarts.min.js\"></script>")
	}
	b.WriteString("\n<script src=\"")
	b.WriteString(v.Base)
	b.WriteString("assets/site.js\"></script>\n</body>\n</html>\n")
}
