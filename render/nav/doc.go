// Package nav is the site's navigation: the tree of report groups
// (objective, model, GPU) and plain pages by directory, built from what
// render hands it (Build), each page's view of it with its own branch
// expanded (Tree.Write hands it to templates/nav.html), and the site's link
// arithmetic (Links: relative to each page, or absolute under a base
// URL).
//
// It owns: the tree, each page's view of it and the links (no HTML). It may not touch: pages,
// reports, templates, inputs or files (it is handed titles and URLs). It
// imports nothing of this module; its Tree is encodable by render/wire
// (its index fields are tagged wire:"-"), which render's layout key
// relies on.
package nav
