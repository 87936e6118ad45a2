// Package markdown turns perflab's Markdown into HTML with goldmark.
//
// New is the one place that knows the extension list: GFM (tables with
// inline HTML, strikethrough, autolinks, task lists), MkDocs-Material
// admonitions (admonition.go: `!!! type "title"`, collapsible `??? type`
// and open `???+ type`, nested, titled or not), content tabs (tabbed.go:
// `=== "H100"`, each tab a titled block), fenced code highlighted by
// chroma with CSS classes and a copy button, heading ids that are
// deterministic slugs with a permalink, and the `perflab` fenced block
// (block.go), which a transformer swaps for a Block node so that the page
// builder can fill in the generated HTML before rendering (the pattern of
// goldmark-mermaid, with Hugo's render-hook idea: the caller renders the
// block, usually from a template).
//
// A Converter highlights each distinct fenced block (info string and
// text) once and replays its HTML for the repeats (memo.go): labs repeat
// their serving commands page after page, and chroma's lexers were most
// of a large site's build time.
//
// Parsing and rendering are separate steps (Parse, then Render) so that the
// caller can walk the document in between: resolve perflab blocks, read the
// headings, split the page into sections.
package markdown
