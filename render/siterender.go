package render

import (
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/perflab/perflab/render/inputs"
	"github.com/perflab/perflab/render/layout"
	"github.com/perflab/perflab/render/output"
)

// Render writes every file of the site into dir (which must exist).
// Pages are independent: they are rendered in parallel, and the first
// error is reported in page order so that the message does not depend
// on timing. What does not depend on the pages is done by the same
// workers, after them: the home page (its list of reports needs the
// reports, not their pages), the stylesheet and assets, and the files
// copied from content/ (a report's campaign.yaml). On one goroutine after
// the pages these were a tenth of a cold 1,000-report build's wall time.
// Their errors are reported after the pages', in the order the files
// were written in before.
func (s *Site) Render(ctx context.Context, dir string, t *template.Template, assets fs.FS) (Stats, error) {
	nav := s.Nav()
	f := s.Frame(&nav)
	r := &renderRun{ctx: ctx, s: s, dir: dir, t: t, assets: assets, frame: f, frameKey: f.Digest(),
		results: make([]pageResult, len(s.Pages)), staticErr: make([]error, len(s.Static)), staticWErr: make([]error, len(s.Static))}
	// A file of content/ that is not Markdown (s.Static) is copied over
	// whatever the build makes at its path (content/assets/site.css over
	// the stylesheet, a bundle's data.json over the report's): it was
	// written last. The static files are now written by the workers,
	// beside the pages and before the search index, so what the build
	// makes at such a path is not written at all, nor taken from the last
	// build's site (output.Tracker.Static; TestStaticWins).
	r.isStatic = make(map[string]bool, len(s.Static))
	for _, rel := range s.Static {
		r.isStatic[rel] = true
	}
	if s.outputs != nil {
		s.outputs.Static = r.isStatic
	}
	r.runJobs(ctx)
	return r.finish()
}

// renderRun is one Render.
type renderRun struct {
	// ctx is Render's: a job that makes many files (a report's rounds')
	// stops between them when it is cancelled, not at the job's end.
	ctx      context.Context
	s        *Site
	dir      string
	t        *template.Template
	assets   fs.FS
	frame    *frame // the layout's view of the site (layout.go)
	frameKey string // its digest
	isStatic map[string]bool
	// made holds the directories already created: MkdirAll's stat per
	// file was a tenth of a 924-page build's system time.
	made sync.Map

	results           []pageResult
	home              File
	homeSearch        searchEntry
	homeJSON          []byte
	homeErr, homeWErr error
	extra             []File // chroma.css and the assets
	extraErr          error  // making them
	extraWErr         error  // writing them: the first in order
	staticErr         []error
	staticWErr        []error
}

// pageResult is what rendering one page left.
type pageResult struct {
	files     int
	search    searchEntry
	searchSum [32]byte // with outputs: of search, or the manifest's when reused
	// searchJSON is search encoded for the search index, by the worker
	// (encoding the index after the pages was most of the serial end of
	// a cold build); nil where the index is unlikely to be written again
	// (the entry is the one the manifest has).
	searchJSON []byte
	err        error
	laidOut    bool
}

// writeFile writes f into the build's directory, unless the last build
// left it in Out as it is.
func (r *renderRun) writeFile(f File) error {
	if r.s.outputs != nil && r.s.outputs.Same(f) {
		return nil
	}
	p := filepath.Join(r.dir, filepath.FromSlash(f.Path))
	mkdir, write := output.MakeDir, output.WriteFile
	if st := r.s.stage; st != nil {
		mkdir, write = st.MakeDir, st.WriteFile // a retained tree's files are replaced
	}
	if d := filepath.Dir(p); d != r.dir {
		if _, ok := r.made.Load(d); !ok {
			if err := mkdir(d); err != nil {
				return fmt.Errorf("render: %w", err)
			}
			r.made.Store(d, true)
		}
	}
	if err := write(p, f.Data); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	return nil
}

// write is writeFile for a file the build makes: a static file of
// content/ at its path wins.
func (r *renderRun) write(f File) error {
	if r.isStatic[f.Path] {
		return nil
	}
	return r.writeFile(f)
}

// The jobs: the pages, then the home page, the assets and the static
// files.
func (r *renderRun) jobHome() int   { return len(r.s.Pages) }
func (r *renderRun) jobAssets() int { return len(r.s.Pages) + 1 }
func (r *renderRun) jobStatic() int { return len(r.s.Pages) + 2 }

func (r *renderRun) runJobs(ctx context.Context) {
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := ctx.Err(); err != nil {
					r.fail(i, err)
					continue
				}
				r.do(i)
			}
		}()
	}
	for i := 0; i < r.jobStatic()+len(r.s.Static); i++ {
		work <- i
	}
	close(work)
	wg.Wait()
}

// fail records err for job i, left undone: every job left undone fails
// the build (a site without its assets or a campaign file is not swapped
// in; TestBuildCancelledAnywhere).
func (r *renderRun) fail(i int, err error) {
	switch {
	case i < r.jobHome():
		r.results[i].err = err
	case i == r.jobHome():
		r.homeErr = err
	case i == r.jobAssets():
		r.extraErr = err
	default:
		r.staticErr[i-r.jobStatic()] = err
	}
}

func (r *renderRun) do(i int) {
	switch {
	case i < r.jobHome():
		r.page(i)
	case i == r.jobHome():
		if r.home, r.homeSearch, r.homeErr = r.s.RenderHome(r.t, r.frame); r.homeErr == nil {
			r.homeWErr = r.write(r.home)
			r.homeJSON, _ = json.Marshal(r.homeSearch) // an error: encoded again below
		}
	case i == r.jobAssets():
		if r.extra, r.extraErr = layout.Assets(r.assets); r.extraErr == nil {
			for _, f := range r.extra {
				if err := r.write(f); err != nil {
					r.extraWErr = err
					break
				}
			}
		}
	default:
		k := i - r.jobStatic()
		// Read into a lent buffer (render/inputs), written from there.
		bp := inputs.GetBuf()
		data, err := inputs.ReadInto(filepath.Join(r.s.opt.Content, filepath.FromSlash(r.s.Static[k])), (*bp)[:0])
		if err != nil {
			r.staticErr[k] = fmt.Errorf("render: %w", err)
		} else {
			r.staticWErr[k] = r.writeFile(File{Path: r.s.Static[k], Data: r.s.StaticData(r.s.Static[k], data)})
		}
		*bp = data
		inputs.PutBuf(bp)
	}
}

// page renders and writes page i, or takes it as the last build left
// it in Out (its layout key and files unchanged).
func (r *renderRun) page(i int) {
	s, p := r.s, r.s.Pages[i]
	res := &r.results[i]
	var lk [32]byte
	if o := s.outputs; o != nil && s.cache != nil {
		key, rd := s.cache.pageKey(p, s.InputStats)
		lk = layoutKey(key, r.frameKey+p.URL)
		if s.cache.has(key) {
			if mp, ok := o.Reuse(p.URL, lk); ok {
				s.cache.touch(key)
				p.Rendered, p.Key = rd, key
				*res = pageResult{files: len(mp.Paths), searchSum: mp.Extra}
				n, err := r.roundFiles(p, key) // roundfiles.go
				res.files += n
				res.err = err
				return
			}
		}
	}
	buf := s.Bufs.Get()
	defer s.Bufs.Put(buf)
	files, se, err := s.renderPageInto(buf, p, r.t, r.frame)
	if err == nil && s.outputs != nil && s.cache != nil {
		// Under the key the page was rendered with: what its blocks read
		// is known now.
		lk = layoutKey(p.Key, r.frameKey+p.URL)
		s.outputPage(p.URL, lk, se, files)
	}
	if err == nil {
		for _, f := range files {
			if err = r.write(f); err != nil {
				break
			}
		}
	}
	nr := 0
	if err == nil {
		nr, err = r.roundFiles(p, p.Key) // roundfiles.go
	}
	*res = pageResult{files: len(files) + nr, search: se, err: err, laidOut: true}
	if o := s.outputs; o != nil {
		res.searchSum = searchEntrySum(se)
		if prev := o.Prev(); prev != nil && prev.Units[p.URL].Extra == res.searchSum {
			return
		}
	}
	if err == nil {
		res.searchJSON, _ = json.Marshal(se) // an error: encoded again, and reported, below
	}
}

// finish reports the jobs' errors in order, writes the search index and
// counts the files.
func (r *renderRun) finish() (Stats, error) {
	var st Stats
	for i, res := range r.results {
		if res.err != nil {
			return st, res.err
		}
		st.Files += res.files
		st.Pages++
		if res.laidOut {
			st.LaidOut++
		}
		if r.s.Pages[i].Report != nil {
			st.Reports++
		}
	}
	if r.homeErr != nil {
		return st, r.homeErr
	}
	if r.homeWErr != nil {
		return st, r.homeWErr
	}
	st.Pages++
	st.Files++
	search, reused, err := r.searchIndex()
	if err != nil {
		return st, err
	}
	if reused {
		st.Files += 2
	}
	if r.extraErr != nil {
		return st, r.extraErr
	}
	for _, err := range r.staticErr {
		if err != nil {
			return st, err
		}
	}
	for _, f := range search {
		if err := r.write(f); err != nil {
			return st, err
		}
		st.Files++
	}
	if r.extraWErr != nil {
		return st, r.extraWErr
	}
	st.Files += len(r.extra)
	for _, err := range r.staticWErr {
		if err != nil {
			return st, err
		}
		st.Files++
	}
	return st, nil
}

// searchIndex returns the search index's files, or reused when Out
// holds them as they would be written. The index is rewritten only when
// an entry changed: encoding and hashing its megabytes was a tenth of an
// unchanged rebuild. Its digest is made of each entry's sum, which the
// manifest keeps for the pages taken as they are.
func (r *renderRun) searchIndex() (files []File, reused bool, err error) {
	s, o := r.s, r.s.outputs
	var sd [32]byte
	if o != nil {
		sums := make([][32]byte, 0, len(r.results)+1)
		sums = append(sums, searchEntrySum(r.homeSearch))
		for _, res := range r.results {
			sums = append(sums, res.searchSum)
		}
		sd = searchDigest(sums)
		o.Extra = sd
		if o.Prev() != nil && o.Prev().Extra == sd && o.ReuseFiles("search.json", "search.js") {
			return nil, true, nil
		}
	}
	index := []searchEntry{r.homeSearch}
	encoded := [][]byte{r.homeJSON}
	for i, res := range r.results {
		p := s.Pages[i]
		if !res.laidOut { // taken as it is: its entry is in the manifest's search file
			se, ok := s.prevSearch()[p.URL]
			if !ok || searchEntrySum(se) != res.searchSum {
				if _, se, err = s.renderPage(p, r.t, r.frame); err != nil {
					return nil, false, err
				}
			}
			res.search = se
		}
		index = append(index, res.search)
		encoded = append(encoded, res.searchJSON)
	}
	if o != nil {
		entries := make(map[string]searchEntry, len(index))
		for i, p := range s.Pages {
			entries[p.URL] = index[i+1]
		}
		o.Side = func() []byte { return encodeSearchEntries(entries) }
	}
	files, err = layout.SearchFilesEncoded(index, encoded)
	return files, false, err
}
