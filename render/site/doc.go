// Package site is the site model: Load reads and checks every input of a
// build (content/'s pages and static files, each page's front matter and
// first heading, a report bundle's campaign.yaml and its results, every
// round of them) into a Site of Pages and Reports; bad input fails here
// with file:line and field. A page reads its files only through the
// inputs.Reader Load gives it (Page.In), and its record is the page's key
// (Page.Inputs). Campaigns, results and text come in redacted
// (secrets.go: redact's Walk at the door).
//
// It owns: Site, Page, Report, Run and what they answer about themselves
// (a report's runs by experiment, profile, point and repeat, its
// engines, titles and labels; a page's title without rendering it), the
// front matter and the perflab block's YAML keys (FrontMatter,
// BlockSpec), the metrics a block may name and how their values are
// read, compared and formatted (metrics.go: Metric, Delta, FmtNum), a
// report's rounds (rounds.go, roundfacts.go: RoundResults; the round
// shown, by collect/schema's rule, and the runs carried into it from
// earlier rounds, carried.go; older
// rounds' results from render/roundload's round cache, which
// Config.StatsDir places beside the input stat cache).
//
// It may not touch: HTML, templates, the navigation, the build cache's
// entries or the output directory; it knows nothing of blocks or the
// layout that render builds on it (render keeps what a build adds to a
// Site in its own Site, which embeds this one). It reads the input stat
// cache (render/inputs) where Config.StatsDir names one, salted with
// perflab's build (render/buildcache's SelfVersion) and the page memo's
// encoding (render/wire).
package site
