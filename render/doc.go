// Package render builds the static site from content/ (Markdown narrative,
// campaign.yaml page bundles) and results/ (schema.Result JSON).
//
// The build is a pure function from input files to output files, in
// stages, each a package whose doc.go says what it owns and what it may
// not touch; imports point down only (TestRenderLayers in shape_test.go
// holds the layers, TestRenderSize the sizes: no file over 600 lines, no
// function over 120):
//
//	render/wire        the binary encoding of the build's own files; each
//	                   encoding's version is derived from its types
//	render/inputs      reading inputs through a Reader that records every
//	                   file read, path stat'ed and directory listed, with
//	                   what was seen; the input stat cache; file identities
//	render/buildcache  the build cache's store: byte strings under salted
//	                   keys in one pack file (appended to) and its index;
//	                   knows nothing of pages
//	render/output      the output directory: writing, the temporary
//	                   directory and the swap, the lock, the manifest
//	render/roundload   a report's rounds: listed once, recording what
//	                   the site stamp needs; older rounds known by their
//	                   files' identities and sums (kept in a round cache
//	                   with the memos and prefixes made of them; what
//	                   render/site's Load reads the rounds through)
//	render/nav         the navigation: its tree, each page's view of it,
//	                   the site's links (handed titles and URLs)
//	render/site        the site model: Load reads pages, reports,
//	                   campaigns, results and their rounds into a Site
//	                   (site.go, runs.go, report.go, pagefile.go); the
//	                   metrics and front matter; redaction at the door
//	render/blocks      the blocks: each takes the model and
//	                   render/analysis's numbers and writes its view
//	                   (blocks.go dispatches; comparison.go, step.go,
//	                   setup.go, curves.go, command.go, history.go, ...;
//	                   skeleton.go places them), data.json and data.csv,
//	                   the headline figures; what generated writers call
//	render/layout      the layout: a page's body (page.go), the frame
//	                   around it (layout.go), the navigation's view,
//	                   the home page, the search index's files, the
//	                   assets, the templates and their overlay
//	render             the pipeline wiring the stages (build.go: Build;
//	                   siterender.go: Render; incremental.go: the preview
//	                   server's Builder; pagecache.go, outputs.go,
//	                   sitestamp.go: what render keeps in the cache, the
//	                   manifest and the stamp; roundfiles.go: a report's
//	                   rounds' data files, a manifest unit each)
//	render/analysis, render/markdown, render/charts: the numbers, the
//	                   Markdown converter, the charts' options (leaves)
//
// The cut follows Zola's components (content and front_matter: the model,
// here render/site; rendering with its shortcodes: render/blocks, each
// block a shortcode with numbers instead of a template argument list;
// templates: render/layout; site: render, which loads, renders and
// writes) and Hugo's separation of the content map from the page
// rendering and the output. Each stage's Site embeds the one below
// (render.Site holds a *layout.Site, which holds a *site.Site) and adds
// what its stage keeps; the model's types keep their names above it
// through aliases (type Report = site.Report).
//
// Stages of a build:
//
//	load    Load reads and checks every input (front matter, campaigns,
//	        results) into a Site; bad input fails here with file:line.
//	        Each page reads through its own inputs.Reader.
//	render  each Page becomes its files (HTML, and for a report its
//	        data.json/data.csv); pages are independent, so a preview server
//	        can re-render only the pages whose inputs changed (Builder).
//	        The build cache (.cache/perflab-build beside Out by default)
//	        keeps each page's rendered content under a key made of what
//	        the page was made from (pagecache.go), so an unchanged page is
//	        not rendered again; output is the same with, without or after
//	        deleting it.
//	site    the home page, search index and assets.
//	swap    Build writes into a temporary directory beside Out and swaps it
//	        in with renames, so a failed build leaves Out as it was. A
//	        manifest of Out in the cache (render/output) lets it skip the
//	        files Out already holds, and Out altogether when nothing
//	        would change. With the cache, the site a swap moves out of
//	        Out is kept beside it (.site.prev) and the next build writes
//	        into that, bringing it up to date (output.Stage), rather than
//	        link every file it did not write into a new directory and
//	        remove the old site. Builds writing the same Out take turns
//	        (output.Lock: flock on the directory holding it).
//
// Inputs are tracked by construction. A page reads its files only
// through the inputs.Reader Load gives it, and its blocks only through
// the Reader they are handed (render/blocks' Ctx.In); a page's cache key is the
// hash of what its Readers recorded (inputs.Reader.Key), with a salt of
// perflab's own build, the templates and the options that show in a page
// (wire's encoding of Options, less where the site and the cache go).
// What the blocks read is known only once the page was rendered: the
// cache keeps it under the page's Load key and the next build replays
// it (inputs.Reader.Replay, Shake's dynamic dependencies), so an edited
// file gives another key (TestBlockInputTracked adds a block reading a
// new kind of input, edits it, and sees the page rebuilt through the
// stamp, the manifest, the cache and the Builder, no cache code told of
// it). The site stamp is made of the Readers' records; the preview
// server's Builder matches changed files against them. A page's body
// is an inputs.Deferred: read by Load, or read and checked against its
// sum when the page is rendered, and reachable only through Bytes. The
// build's own files (cache entries, the input stat cache and its page
// memos, the manifest, the stamp) are encoded by render/wire, whose
// versions come from the encoded types: there is no encoder to keep in
// step with a struct and no format constant to bump. A page's layout key
// is its cache key, its URL and the digest of its frame (render/layout, layout.go: the
// links, the options that show in the frame and the navigation, wire's
// encoding): the layout is written by frame's methods, which are not
// handed the Site, so what a page's layout takes from other pages can
// only come in through a field of frame, and every field is in the
// digest.
//
// No rule is left to keep by hand: the Go code that wrote pages as the
// templates do is generated from them now (htmlwriters_gen.go, below).
//
// The input stat cache (render/inputs, stats.go) keeps each input's
// identity (size, modification and change times, inode) with its
// SHA-256 and, for a page, its front matter and first heading, as git's
// index does: a build hashes only the inputs whose identity changed and
// reads an unchanged page only if it has to render it. Change times
// cannot be put back (touch -d, a same-size rewrite, a rename all set
// them), and a file changed in the timestamp tick a build began is not
// recorded (the "racy git" rule), so no edit is missed. Out's files and
// directories are checked the same way (output.FileRecord, DirRecord).
//
// The site stamp (sitestamp.go) goes one step further for a site with
// nothing changed: a build that left Out alone records every path its
// Readers recorded (content/'s directories, pages, static files,
// campaigns, results directories, present or absent, results, and what
// the blocks read; Out's directories and files; the manifest) with its
// identity, and the next build stats them before loading anything: all
// as recorded, it is done. An unchanged rebuild of the 1,000-report site
// went from ~0.36 s (Load's YAML and JSON decoding of 1,000 campaigns and
// 14,000 results) to ~0.05 s whole process; in process
// Rebuild/reports=1000 35 ms, pages=924 5.5 ms. The build that writes
// the stamp (the first after a changing one) records the identities its
// Readers took when they read or knew a file (the round cache's result
// files: one stat each at load) rather than stat each again, and merges
// the paths from one sorted slice rather than maps: BuildRounds
// reports=100/rounds=100/rebuild went from ~1.9 s to ~1.5 s of CPU.
//
// Navigation (render/nav) is a tree (report objectives, models, GPUs; plain
// pages by directory); a page carries its own branch expanded and every
// other section as its title linking to the section's first page, so a
// page's weight does not grow with the site and needs no JavaScript.
// render/nav builds each page's view of the tree (Tree.Write); the
// template nav (templates/nav.html) writes it, through its generated
// writer as every other template.
// Search reads search.js, loaded by a script tag (it works from
// file://) only when the reader focuses the search box.
//
// Where a build's time goes (go test -bench BuildCorpus -cpuprofile,
// the 924-page corpus of render/corpus, 2 cores): before issue 11, chroma
// highlighting fenced code was three quarters of the CPU (the bash lexer's
// regexp2 rules, about 6 ms for a 100-line raw output); writing 330 MB of
// pages, each with the whole navigation, most of the rest. Now each
// distinct block is highlighted once a build (markdown's code memo;
// labs repeat their commands), pages carry one navigation branch, and
// benchmark result blocks tagged bash skip the lexer (markdown's
// plaincode.go; they were most of the remaining chroma time, and 87 % of
// the allocations). What remains of a cold build is mostly system time
// creating and writing the pages, then goldmark parsing and the layout
// template; the cache is one pack file rather than a file per page (render/buildcache).
//
// Where an unchanged rebuild's time goes (go test -bench Rebuild
// -cpuprofile, the same corpus): it was about 60 ms in process, half of
// it reading and SHA-256-hashing 22 MB of Markdown, then walking Out's
// 930 directories for stray files, decoding the 3.7 MB gob manifest
// (every page's search text; gob decodes a [32]byte a byte at a time)
// and hashing the search index. Now an unchanged input is neither hashed
// nor, for a page, read (the input stat cache: one stat per input); Out's
// directories are stat'ed, not read; the manifest is a compact binary
// file with one sum per search entry, the entries in a side file read
// only when the index is written again. That is about 30 ms in process,
// 45 ms whole process; what remains is the home page's template (924
// links through html/template's escapers, about a sixth), the stat calls
// (inputs, Out's files and directories, about a quarter), Load's walk of
// content/, decoding the stat cache and manifest, and GC. Each process
// also spends about 11 ms in chroma's package init (its lexer and style
// registries, parsed from embedded XML): Go runs it at start-up for every
// imported package, so it cannot wait for the first highlighted block
// while goldmark-highlighting imports chroma.
//
// On the 1,000-report synthetic site (bench_test.go's writeSyntheticSite:
// 1,000 campaigns, 14,000 results with raw text; go test -bench
// 'Build/reports=1000' -cpuprofile -memprofile) a cold build took about
// 5.5 s of CPU and allocated 2.4 GB: decoding results 0.85 s (a version
// probe with encoding/json, then a strict decode: four scans of each
// file), reading campaigns 0.3 s (yaml.v3 parsed each twice), chroma's
// bash lexer on each report's serving and benchmark commands 0.45 s,
// block and layout templates about 1.1 s, buffers grown by doubling 0.7 GB
// and gob 0.2 GB of the allocations, with garbage collection about a
// tenth of the CPU, and the kernel creating 4,000 files and 2,000
// directories about 1 s. Now results decode in one pass of json v2
// (schema.Unmarshal; encoding/json still decides and words whatever it
// declines), a campaign's node tree is parsed only when an error needs a
// line, commands are lexed into chroma's tokens by shellcode.go, buffers
// are lent (render/blocks, buffers.go) and cache entries have a plain format
// (now render/wire). Whole process, medians of 5 alternating runs on the
// shared 2-core machine: CPU 6.8 → 4.5 s (user 5.5 → 3.5 s), peak memory
// 302 → 194 MB, allocations 2.2 → 1.1 GiB; an unchanged rebuild 1.9 →
// 0.9 s of CPU. What remains, in order: html/template executing the
// blocks (reflection and an escaper call per action; the runs and step
// tables most), creating the files (system time, about 1 s, more under
// load), yaml.v3 decoding the campaigns, data.json's indented encoding,
// garbage collection (GOGC=200 would save a tenth of the CPU for 280 MB
// of peak memory: not taken).
//
// Then (issue 11, last round; the profile gave html/template 1.0 s of a
// 3.5 s in-process build, data.json 0.2 s, the collector 0.6 s): with the
// embedded templates the runs, step, comparison, cases and summary blocks
// are written by Go code (then written by hand, now generated: see issue
// 17 below; escapeText is html/template's replacement table) that gives
// the same bytes as their templates (TestGeneratedSites builds the fixture, bundled, corpus and synthetic sites
// both ways and compares every file; a templates directory on disk is
// always executed as it is); data.json is encoded by json v2 with
// encoding/json's options, indenting as it goes (TestReportDataJSON);
// perflab build runs with GOGC=300 under a 220 MiB soft memory limit
// unless GOGC or GOMEMLIMIT is set (cmd/perflab/build.go; it restores
// Go's defaults once the live heap passes half the limit, which a site
// of 1,000 synthetic reports, ~60 MB live, does not). Whole process,
// alternating with the previous version, medians: user CPU 3.1–3.6 →
// 1.9–2.2 s (0.61–0.64×), allocations 10.7 → 6.3 M, peak 180–205 →
// 231–244 MB. With the output on tmpfs and a load average of 2.5 the
// cold build took 1.23–1.34 s wall (the previous version 2.1–2.6 s at
// load 3); at a load of 1.2–1.4, 1.39–1.50 s on tmpfs and 1.49–1.98 s on
// the disk (2.14–2.40 s). Over the session it took 1.35–3.0 s on the
// disk: the root file system is ext4 without a journal, where allocating
// an inode skips every free inode of its block group that was freed
// recently (a window set by vm.dirty_expire_centisecs; a 35 s pause did
// not clear it here), looking up each one's inode table block to find out
// (recently_deleted() in fs/ext4/ialloc.c); after a few thousand files
// nearby were deleted (a previous site, other builds' test directories)
// creating the site's 6,000 files and directories costs 2–4 s of system
// time where it otherwise costs 0.6–0.8 s (perf: 42 % of the build's
// samples in find_inode_bit/recently_deleted; `cp -r` of the output alone
// took 2.3–3.1 s of system time then). No build can avoid that cost short
// of creating fewer files.
//
// Then the page layout and the setup block's subsections are written by
// Go code too (hand-written then; the profile of a cold build
// with the cache on gave their templates 0.15 s of about 2.1 s in
// process); the layout's URL values (base, home, data and campaign links,
// the contents' fragments) are written as they are only when they hold
// nothing html/template's URL filter, normaliser or escaper would change
// (letters, digits, "-._~" and "/"), else the page goes through the
// template, as a live-reload page does (TestGeneratedLayout,
// TestGeneratedSetup, and TestGeneratedSites over whole sites). html/template is now only the
// home page's. Benchmark (5 alternating runs, benchstat): allocations
// 6.25 → 5.32 M (−15 %), 976 → 868 MiB (−11 %); wall time was within
// the noise of a machine at load 2.4. Whole process, output and cache on
// tmpfs, 9 alternating pairs at load 2.5: CPU 3.12 → 2.74 s (user 1.96 →
// 1.63 s, system time inflated by the load), wall 1.85 → 1.65 s, each a
// pairwise median ratio of 0.86; peak 237 MB either way. What remains of a build's CPU, in
// process (about 1.9 s): creating and writing the files (system time),
// the blocks' own Go code and their data, decoding 14,000 results (0.19
// s), yaml.v3 decoding the 1,000 campaigns (0.13 s; every campaign of the
// synthetic site differs, so memoising by content would not help), GC
// (0.14 s), SHA-256 of the output for the manifest (0.1 s; now XXH3, see
// below), data.json and data.csv (0.09 s), reading the 16,000 input files. The narrative is
// identical on every synthetic report, but goldmark on it is 0.02 s.
//
// Then Load's own share (about 0.72 s of CPU of a cold 1,000-report
// build): result files are read into a buffer reused between files with
// open, read and close alone (render/inputs, readfile.go: os.ReadFile made ten system
// calls a file on Linux, four of them fcntl and one an epoll_ctl the
// kernel refuses, and allocated a fresh buffer); pages and campaigns are
// opened without those five calls (openFile); a flat results directory is
// listed with one lstat and one os.ReadDir; campaignfile's check for
// fractions truncated into integers skips words that cannot be floats
// before its regexp, and a front matter with neither a float word nor a
// tag is parsed once, not twice. Each is proven equal to what it replaced
// (TestMayHoldFractionSame, TestDecodeStrictSame, TestReadIntoSame,
// TestResultFilesSame, schema's TestUnmarshalKeepsNoBytes). BenchmarkLoad
// (the load phase alone, benchstat of 6 alternating runs at a load of 5
// to 7): CPU 1027 → 856 ms (−17 %), allocations −17 %, bytes −26 %. What
// remains of Load is library work: json v2 decoding the results and
// yaml.v3 decoding the campaigns (about 0.19 s each), the kernel opening
// 16,000 files, and SHA-256 of the inputs.
//
// Then (issue 11, the report body; BenchmarkRenderReports renders a loaded
// 100-report site without cache or files): the blocks write into the
// page's buffer instead of returning a string each that the skeleton
// copied in (block, setup and chart functions take the buffer; a fenced
// block's HTML is copied out once); escapeText is a table lookup per byte
// (raw outputs are kilobytes with nothing to escape); headings, charts,
// cells and sort keys are built with strconv (fmtNum, sortKey,
// Delta.String, held to fmt by tests); data.json and data.csv are written
// into lent buffers and copied out at their size (json v2 grew a fresh one
// by doubling to 100 KB per report); a page's blocks take the report's
// runs in campaign order and its primary metrics once; bash commands are
// written as chroma's formatter writes their tokens (writeShellHTML,
// TestShellTokensMatchChroma and TestWriteShellHTMLMatchesFormatter);
// plainText collapses whitespace in one pass; the navigation answers which
// group holds a page from the tree's numbering (navIndex: every page
// walked all 2,000 nodes of a 1,000-report site's tree, twice); ASCII
// heading ids are slugified over bytes. Nothing in the output changed
// (diff -r of the synthetic, bundled and corpus sites). Against main
// after the load phase round, in process (Build/reports=1000 with TMPDIR
// on tmpfs, 6 alternating runs): CPU 2276 → 1817 ms a build (medians),
// 812 → 548 MiB (−33 %), 5.00 → 3.62 M allocations (−28 %); the corpus
// 417 → 397 MiB. Whole process, output on tmpfs, 7 alternating pairs at
// a load of 1.8: user+sys median 2.00 → 1.74 s (pairwise median 0.88×),
// user 1.45 → 1.22 s, wall 1.11 → 0.99 s; peak 233–242 → 244 MB. json v2 with encoding/json's
// options was tried for the charts' option JSON and took twice as long as
// encoding/json there (an any-typed value; 35 against 16 µs a chart).
//
// The write path (issue 15; profile of 3 cold 1,000-report builds on
// tmpfs): writing the 4,009 files took 0.31 s of CPU a build, of which
// the manifest's SHA-256 of every output 0.07 s; storing the 106 MB of
// cache entries 0.16 s, through one bufio.Writer under the cache's lock
// (the other worker waited on each 1 MB flush); and the main goroutine
// alone ran 0.13 s after the pages (the home page, the search index's
// encoding, the assets, the 1,000 campaign.yaml copies read and written
// one by one) and then removed the old site before writing the manifest.
// Now the manifest sums outputs with XXH3-128 (outSum; 0.01 s); a cache
// entry takes its place in the pack under the lock and is written there
// with pwrite outside it; a file is written with open, write and close
// (render/output, write_linux.go: os.WriteFile also registered each file with the
// poller) and a directory made with one mkdir; a page is laid out into a
// lent buffer and written from it (no 80 kB copy a page: −10 % of the
// allocated bytes); the page workers, after the pages, render the home
// page, write the assets and copy content/'s static files, and encode
// each page's search entry, which the main goroutine only joins
// (searchFilesEncoded: the bytes json.Marshal gives the whole index); an
// old site that shares no file with the new one is removed while the
// manifest is written. What the main goroutine does after the pages fell
// from about 0.2 s to 0.03 s in process. What remains of the write path
// is the kernel copying the site's 123 MB and the pack's 106 MB.
//
// On the disk (ext4 without a journal here) a cold build's system time
// grew with every site deleted in the minutes before it (0.6 s into a
// fresh directory, 1.8 → 4.6 s over four builds each after deleting
// the last): for each file it creates, ext4's inode allocator scans the
// free inodes of the parent's block group and skips, reading its
// inode-table entry, every one deleted in the last 60–360 s
// (recently_deleted in fs/ext4/ialloc.c; perf showed it and
// find_get_block_common as a third of the build's samples), and the new
// site's directories were placed in the group the last site had just
// been deleted from. makeBuildDir marks the build's temporary directory
// as the top of a tree (FS_TOPDIR_FL, render/output, topdir_linux.go): the Orlov
// allocator spreads its subdirectories over the groups as it does the
// root's. Those four builds then took 0.94–1.05 s wall; into a fresh
// directory the flag costs up to 0.1 s of system time.
//
// One source for each piece of HTML (issue 17): templates/*.html. With
// the embedded templates every page is written by Go functions that
// render/tmplgen compiles from html/template's escaped parse trees
// (one generated file per package that owns the views: the blocks' in
// render/blocks, the layout's in render/layout; go generate ./render
// writes both): the hand-kept mirrors of earlier rounds (fastblocks.go,
// fastlayout.go, fastsetup.go) are gone, and each package's
// TestGeneratedWriters fails while its generated file is older than the
// templates (a stale file is not used: the writers record the sum of the
// templates they were made from, and each package marks the templates
// for its own writers only when the sums agree). A writer hands a page back to
// html/template where a value lands in a context it does not escape
// itself (execTemplate). The history block, the home page's list of
// change points and the telemetry block's sentence are templates as well
// (history.html, home.html): Go builds their views, numbers formatted. A
// templates directory (--templates, render/layout's customdir.go)
// is laid over the embedded templates and always executed by
// html/template. Measured (BenchmarkBuild/reports=1000, process CPU per
// cold build, benchstat medians on the shared 2-core machine at load
// 15–25): the hand mirrors 2.57 s, these generated writers 2.58 s (3 %
// fewer allocations: notes, slo, home, raw and command are written too),
// html/template alone 4.14 s and 2.6× the allocations.
//
// Output is deterministic: collections are sorted, ids are derived from
// content, nothing depends on time or map order.
//
// Links: with a base URL (--base-url /perflab/) every link is absolute
// with pretty URLs (/perflab/qwen3-32b/h100/); with the default "/" every
// link is relative to its page and names index.html, so the same site
// works at any path and opened from the disk.
//
// render depends on collect/schema only (a test enforces it): old results
// keep rendering whatever the collector does. It also uses collect/redact,
// a leaf: secrets never reach the site because every input is redacted
// at the door it comes in by (render/site, secrets.go: a report's campaign and results
// through redact's Walk over every string, a page's text before it is
// parsed, a static text file before it is copied); perflab publish looks
// once more for token-shaped strings before it pushes.
package render

// Generated blocks are placed from Markdown with a fenced block whose info
// string is perflab and whose body is YAML (unknown keys are errors):
//
//	```perflab
//	block: comparison        # baseline vs optimized per profile, deltas coloured,
//	```                      #   per GPU when the GPU counts differ (the rule is shown)
//
//	block: chart             # grouped bars baseline vs optimized; metric: (default
//	metric: output_throughput #  the objective's headline), title: optional
//	block: latency-chart     # TTFT, TPOT (and E2E latency when recorded) panels
//	block: command           # an experiment's serving command as a code block
//	experiment: vllm-fp8     #   (default: the optimized one); with title: a
//	                         #   "tip" details block around it
//	block: step              # one step: table of its experiments (deltas against
//	step: engine             #   the configuration carried into it), ranking,
//	                         #   collapsible serving scripts and raw outputs
//	block: summary           # Summary of Optimization Options: incremental and
//	profile: sharegpt        #   cumulative deltas (default: the first profile)
//	block: raw               # collapsible raw output (vLLM layout) of one run
//	experiment: X            #   (the recorded text, or one written from the
//	profile: Y               #   summary, labelled as such); for a sweep
//	point: c8                #   profile the point (default: the highest load)
//	block: setup             # model, hardware + GPU inventory, engines, profiles,
//	                         #   benchmark tool and commands
//	block: runs              # every run in one sortable table with its caveats
//	block: cases             # Other Benchmark Cases: baseline and optimized
//	                         #   scripts and raw outputs per profile
//	block: curve             # sweeps: throughput per GPU vs interactivity
//	profile: chat            #   (1000 / median TPOT), a line per experiment,
//	metric: output_throughput #  the Pareto frontier across them (default:
//	                         #   the first sweep profile, total tokens)
//	block: latency-curve     # sweeps: TTFT and TPOT p50/p99 vs load, the
//	                         #   campaign's SLO limits drawn
//	block: slo               # per experiment the highest load meeting the
//	                         #   campaign's slo, throughput per GPU, cost per
//	                         #   million tokens, tokens per joule; the winner
//	                         #   and whether its lead is real (U test)
//	block: history           # rounds: total throughput per GPU of every
//	                         #   configuration and point over the rounds
//	                         #   (chart over the rounds' dates, engine
//	                         #   version changes marked on the axis; table),
//	                         #   change points pinned and listed; for a
//	                         #   sweep with an slo, its answer in each
//	                         #   round (history.go)
//	block: telemetry         # one run's GPU utilization, memory used, power
//	experiment: X            #   and SM/memory clocks over its time, a line
//	profile: Y               #   per GPU, under a summary line; a run with no
//	point: c8                #   samples gets a sentence (telemetry.go;
//	                         #   default: optimized, first profile, highest
//	                         #   point; the skeleton adds it under the
//	                         #   optimized experiment once a run has samples)
//
// Rounds: a report whose results have rounds (schema.RoundsDir) shows the
// latest round in every block (render/site, rounds.go: schema.ShownOf, the
// newest round holding a finished result; the runs it has no finished
// result for carried from earlier rounds and marked, carried.go), the
// others in the history
// block, which the skeleton adds as a History section from two rounds on;
// the home page lists the changes each report's latest round flagged
// ("Regressions and improvements"; stats.SeriesChange.Latest: over
// single runs a change point lies rounds before the round that found
// it), and first each line whose runs all crashed or failed in the
// latest round after a figure in the round before (blocks'
// historyfail.go: the history carries such runs' statuses, says them in
// the cells and marks them on the chart; they are no value of a
// series); data.json lists every round (its headline figures, engines and
// links; its runs stay the latest round's) and each round's runs are
// files of their own, rounds/<round>.json and .csv (roundfiles.go: an
// output unit per round, an older round's keyed by its round-cache key,
// made once and then taken from Out as it is). Older rounds are history:
// render/roundload knows each by its files as the page's Reader
// recorded them (their identities and sums, its directory's listing and
// its record kept in a round cache: an unchanged round is one stat per
// file, neither read nor hashed; render/site's Load reads the rounds
// through it), and the history keeps what it made of a report's older
// rounds as one entry there (render/blocks' historydigest.go); the site
// stamp holds reports with rounds (roundload.Scan records the round
// directories it lists).
//
// With repeats or sweeps, comparison cells are means ± CV over a point's
// runs and deltas carry the Mann-Whitney verdict ("~" within noise, "too
// few runs to test" below 4 per side, "1 run each"). The numbers of these
// blocks come from render/analysis; a report with sweep points also gets
// curves.csv and, in its skeleton, curve, slo and latency-curve. Results
// whose point or repeat the campaign no longer defines (Report.Stale) are
// left out of every block; the page and BuildStats' Warnings list them.
//
// Metrics (metric:) are total_token_throughput (total_tps),
// output_throughput, request_throughput, mean_ttft, median_ttft, p99_ttft,
// mean_tpot, median_tpot, p99_tpot, mean_itl, mean_e2el. A report page that
// places no block gets the whole GPUStack skeleton; its narrative sections
// go where their headings match (Conclusion, Optimization Objective,
// Experimental Setup, Experiment Results, Summary of Optimization Options,
// Other Benchmark Cases, All Runs), the others after the Conclusion.
