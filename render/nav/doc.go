// Package nav is the site's navigation: the tree of report groups
// (objective, model, GPU) and plain pages by directory, built from what
// render hands it (Build), each page's view of it with its own branch
// expanded (Tree.HTML), its digest (the wire encoding of the tree: what
// a page's layout key holds of other pages), and the site's link
// arithmetic (Links: relative to each page, or absolute under a base
// URL).
//
// It owns: the tree, its HTML and the links. It may not touch: pages,
// reports, templates, inputs or files (it is handed titles and URLs). It
// imports render/wire only, of this module.
package nav
