// Package publish puts a built site on a GitHub Pages branch, the way
// `mkdocs gh-deploy` does: build for the repository's Pages address,
// commit the site as the new tip of gh-pages (its parent the previous tip,
// so history is kept), add .nojekyll and an optional CNAME, and push.
//
// It works with git plumbing only (hash-object, update-index on a
// temporary index file, write-tree, commit-tree, update-ref, push), so the
// working tree, the index and HEAD of the source repository are never
// touched. A failed build publishes nothing.
package publish
