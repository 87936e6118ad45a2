package render

// go generate ./render writes the generated writers of render/blocks
// (the blocks' templates) and render/layout (the layout's), each from
// templates/ (render/tmplgen; each package's TestGeneratedWriters
// fails while its file is out of date).
//
//go:generate go generate ./blocks ./layout
