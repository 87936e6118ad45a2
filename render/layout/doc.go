// Package layout lays a site's pages out: each page's body (its
// Markdown with its blocks in place, or a report's skeleton: page.go,
// RenderBody, through render/blocks), the frame around it (the header,
// the navigation render/nav builds, the contents, the search box:
// layout.go's Frame), the home page (RenderHome), the search index's
// files and the assets (assets.go), and the templates they are written
// with: the embedded ones, a --templates directory laid over them
// (templates.go, customdir.go), and the generated writers of the
// layout's templates (htmlwriters_gen.go, go generate ./render).
//
// The frame is all a page's layout may know besides the page: its
// methods are not handed the Site, so what a page's layout takes from
// other pages can only come in through a field of Frame, and every field
// is in its Digest (render/wire's encoding), which is part of the page's
// layout key in render.
//
// It may not touch: the build cache, the output directory, the manifest
// or the stamp (render's); it does not load (render/site does) and
// writes no file (it returns them). A page's body reads what it reads
// through the inputs.Reader it is handed (RenderBody's rd). Imports
// point down only: render/blocks, render/site, render/nav,
// render/markdown, render/inputs, render/output (its File), render/wire.
package layout
