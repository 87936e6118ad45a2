// Package corpus writes a benchmark corpus of MkDocs-style performance-lab
// pages for measuring site builds: the seed pages' Markdown (GPUStack's
// own pages with their line breaks, kept by the importer in
// results/*/src/seed.md) and pages of
// the same shape generated from them (other models and GPUs, numbers
// shifted), arranged as one lab of 28 pages and copied under as many lab
// directories as asked (33 copies make the 924 pages of issue 11).
//
// The pages have no front matter and no results, so the same content
// directory builds with perflab and with Hugo (render/bench/compare-hugo.sh).
package corpus
