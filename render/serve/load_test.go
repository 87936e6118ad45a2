package serve

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestServeUnderLoad serves the bundled site with the real renderer while
// a stream of edits runs (a report's narrative and one of its results,
// several changes a second, each file first replaced half-written, then
// completed, in place or by rename) and browser-like clients reload the
// report page, its assets and its data.json, some on every reload event.
// It checks that no page comes from a half-read input (a narrative's
// opening and closing markers always from one version, data.json's
// throughput always a value a complete result held), that nothing
// crashes or answers 5xx, that the site ends up as the last edits left
// it, and, in the long run, that memory stays flat.
//
// Short by default (a few seconds); PERFLAB_SERVE_SOAK=10m (make
// serve-soak) runs it for that long and logs heap, RSS and goroutines
// over time.
func TestServeUnderLoad(t *testing.T) {
	d := 4 * time.Second
	soak := os.Getenv("PERFLAB_SERVE_SOAK")
	if soak != "" {
		var err error
		if d, err = time.ParseDuration(soak); err != nil {
			t.Fatalf("PERFLAB_SERVE_SOAK: %v", err)
		}
	} else if testing.Short() {
		d = 2 * time.Second
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("PERFLAB_SERVE_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (PERFLAB_SERVE_SEED=%d repeats this run's edits), %v", seed, seed, d)
	rng := rand.New(rand.NewPCG(seed, 1))

	dir := bundledSite(t)
	const (
		narr   = "content/demo/mock-h100/index.md"
		result = "results/demo-mock-h100/vllm--short.json"
		page   = "demo/mock-h100/"
	)
	origNarr, err := os.ReadFile(filepath.Join(dir, narr))
	if err != nil {
		t.Skipf("SKIP: the bundled site has no %s", narr)
	}
	origRes, err := os.ReadFile(filepath.Join(dir, result))
	if err != nil {
		t.Fatal(err)
	}
	m := throughputRE.FindSubmatch(origRes)
	if m == nil {
		t.Fatalf("%s has no total throughput", result)
	}
	base, _ := strconv.ParseFloat(string(m[1]), 64)
	// Version n of each file: the narrative opens and closes with
	// markers of n; the result's total throughput is base+n.
	narrative := func(n int) []byte {
		return fmt.Appendf(nil, "%s\n\nEdit-open-%d here.\n\n%s\n\nEdit-close-%d here.\n", strings.TrimRight(string(origNarr[:frontEnd(origNarr)]), "\n"), n, origNarr[frontEnd(origNarr):], n)
	}
	res := func(n int) []byte {
		return []byte(strings.Replace(string(origRes), string(m[0]), fmt.Sprintf(`"total_token_throughput_tok_per_s": %g`, base+float64(n)), 1))
	}
	valid := map[string]bool{strconv.FormatFloat(base, 'f', -1, 64): true}
	var validMu sync.Mutex
	s := startServer(t, dir, realBuild(dir), func(c *Config) { c.Log = io.Discard })

	// Wait for the first build; the other runs' throughputs are valid
	// too.
	if code, _, _ := get(t, s.URL()+page); code != http.StatusOK {
		t.Fatalf("report page: %d", code)
	}
	_, _, data := get(t, s.URL()+page+"data.json")
	for _, v := range throughputRE.FindAllStringSubmatch(data, -1) {
		f, _ := strconv.ParseFloat(v[1], 64)
		valid[strconv.FormatFloat(f, 'f', -1, 64)] = true
	}
	if len(valid) < 2 {
		t.Fatalf("data.json holds no throughput:\n%.300s", data)
	}

	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var (
		edits, halves, requests, pages, overlays atomic.Int64
		problems                                 = make(chan string, 100)
		wg                                       sync.WaitGroup
	)
	fail := func(format string, a ...any) {
		select {
		case problems <- fmt.Sprintf(format, a...):
		default:
		}
	}
	last := 0
	// The editor: a change every 100 ms on average (600 a minute), half
	// of it first, the rest 5–60 ms later.
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 1; ctx.Err() == nil; n++ {
			file, data := narr, narrative(n)
			if n%2 == 0 {
				file, data = result, res(n)
				validMu.Lock()
				valid[strconv.FormatFloat(base+float64(n), 'f', -1, 64)] = true
				validMu.Unlock()
			}
			p := filepath.Join(dir, file)
			if err := os.WriteFile(p, data[:len(data)/2], 0o644); err != nil {
				fail("write: %v", err)
				return
			}
			halves.Add(1)
			time.Sleep(time.Duration(5+rng.IntN(55)) * time.Millisecond)
			if n%3 == 0 { // an editor's atomic save
				tmp := filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".swp")
				if err := os.WriteFile(tmp, data, 0o644); err == nil {
					err = os.Rename(tmp, p)
				}
				if err != nil {
					fail("save: %v", err)
					return
				}
			} else if err := os.WriteFile(p, data, 0o644); err != nil {
				fail("write: %v", err)
				return
			}
			edits.Add(1)
			last = n
			time.Sleep(time.Duration(20+rng.IntN(60)) * time.Millisecond)
		}
	}()

	openRE := regexp.MustCompile(`Edit-open-(\d+)`)
	closeRE := regexp.MustCompile(`Edit-close-(\d+)`)
	assetRE := regexp.MustCompile(`(?:href|src)="([^"]+\.(?:css|js))"`)
	client := &http.Client{Timeout: 30 * time.Second}
	pageURL, err := url.Parse(s.URL() + page)
	if err != nil {
		t.Fatal(err)
	}
	fetch := func(url string) (int, string, bool) {
		resp, err := client.Get(url)
		if err != nil {
			if ctx.Err() == nil {
				fail("GET %s: %v", url, err)
			}
			return 0, "", false
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		requests.Add(1)
		if err != nil {
			fail("GET %s: body: %v", url, err)
			return 0, "", false
		}
		if resp.StatusCode >= 500 {
			fail("GET %s: %d", url, resp.StatusCode)
		}
		return resp.StatusCode, string(b), true
	}
	// check looks at one report page and its data.json.
	check := func() {
		code, body, ok := fetch(s.URL() + page)
		if !ok {
			return
		}
		if code != http.StatusOK {
			fail("report page: %d", code)
			return
		}
		pages.Add(1)
		if !strings.Contains(body, `"error":null`) {
			overlays.Add(1) // a half-written result failed the build: shown, not served stale silently
		}
		o, c := openRE.FindAllStringSubmatch(body, -1), closeRE.FindAllStringSubmatch(body, -1)
		if len(o) > 0 && len(c) > 0 && o[0][1] != c[len(c)-1][1] {
			fail("page from a half-read narrative: opens with version %s, closes with %s", o[0][1], c[len(c)-1][1])
		}
		for _, a := range assetRE.FindAllStringSubmatch(body, -1) {
			ref, err := url.Parse(a[1])
			if err != nil {
				fail("asset %q: %v", a[1], err)
				continue
			}
			if code, _, _ := fetch(pageURL.ResolveReference(ref).String()); code != http.StatusOK && code != 0 {
				fail("asset %s: %d", a[1], code)
			}
		}
		code, data, ok := fetch(s.URL() + page + "data.json")
		if !ok || code != http.StatusOK {
			if ok {
				fail("data.json: %d", code)
			}
			return
		}
		validMu.Lock()
		defer validMu.Unlock()
		for _, v := range throughputRE.FindAllStringSubmatch(data, -1) {
			f, _ := strconv.ParseFloat(v[1], 64)
			if !valid[strconv.FormatFloat(f, 'f', -1, 64)] {
				fail("data.json holds throughput %s, which no complete result held", v[1])
			}
		}
	}
	// Browsers reloading as fast as they can, with a pause.
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				check()
				time.Sleep(50 * time.Millisecond)
			}
		}()
	}
	// A browser that reloads on every event, as the reload script does.
	wg.Add(1)
	go func() {
		defer wg.Done()
		st := openStream(t, s)
		for ctx.Err() == nil {
			select {
			case _, ok := <-st.states:
				if !ok {
					fail("event stream ended")
					return
				}
				check()
			case <-ctx.Done():
			}
		}
		st.cancel()
	}()

	// Memory, sampled after a collection.
	type sample struct {
		at         time.Duration
		heap, rss  uint64
		goroutines int
	}
	var samples []sample
	every := d / 20
	start := time.Now()
	take := func() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		smp := sample{time.Since(start).Round(time.Second), ms.HeapAlloc, rss(), runtime.NumGoroutine()}
		samples = append(samples, smp)
		t.Logf("t=%v heap %.1f MiB, RSS %.1f MiB, %d goroutines; %d edits, %d requests, %d pages (%d with the error overlay)",
			smp.at, float64(smp.heap)/(1<<20), float64(smp.rss)/(1<<20), smp.goroutines, edits.Load(), requests.Load(), pages.Load(), overlays.Load())
	}
	take()
	tick := time.NewTicker(every)
	for ctx.Err() == nil {
		select {
		case <-tick.C:
			take()
		case <-ctx.Done():
		}
	}
	tick.Stop()
	wg.Wait()
	close(problems)
	n := 0
	for p := range problems {
		t.Error(p)
		if n++; n > 20 {
			break
		}
	}

	// The stream has stopped: the site ends up as the last complete
	// edits left it, the overlay gone.
	final := last
	wantOpen, wantThroughput := final, final
	if final%2 == 0 {
		wantOpen = final - 1
	} else {
		wantThroughput = final - 1
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, _, body := get(t, s.URL()+page)
		_, _, data := get(t, s.URL()+page+"data.json")
		okPage := strings.Contains(body, fmt.Sprintf("Edit-open-%d ", wantOpen)) && strings.Contains(body, fmt.Sprintf("Edit-close-%d ", wantOpen)) && strings.Contains(body, `"error":null`)
		okData := wantThroughput < 2 || strings.Contains(data, strconv.FormatFloat(base+float64(wantThroughput), 'f', -1, 64))
		if okPage && okData {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the last edit (%d) the page does not show narrative %d and throughput %d (page ok %v, data ok %v)", final, wantOpen, wantThroughput, okPage, okData)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if edits.Load() < 10 || pages.Load() < 10 {
		t.Errorf("too little load to judge: %d edits, %d pages", edits.Load(), pages.Load())
	}
	t.Logf("%d edits (%d half-written first) in %v, %d requests, %d report pages checked, %d with the error overlay", edits.Load(), halves.Load(), d, requests.Load(), pages.Load(), overlays.Load())

	// Flat memory: the long run's last samples against its first minute
	// (the cache, buffers and page memos grown by then).
	if soak != "" && len(samples) >= 6 {
		take()
		warm := samples[1]
		end := samples[len(samples)-1]
		if end.heap > warm.heap*3/2+16<<20 {
			t.Errorf("heap grew from %.1f MiB at %v to %.1f MiB at %v", float64(warm.heap)/(1<<20), warm.at, float64(end.heap)/(1<<20), end.at)
		}
		if end.goroutines > warm.goroutines+20 {
			t.Errorf("goroutines grew from %d to %d", warm.goroutines, end.goroutines)
		}
	}
}

// frontEnd is the length of data's front matter (0 without one).
func frontEnd(data []byte) int {
	s := string(data)
	if !strings.HasPrefix(s, "---\n") {
		return 0
	}
	i := strings.Index(s[4:], "\n---\n")
	if i < 0 {
		return 0
	}
	return 4 + i + 5
}

// rss is this process's resident set size (0 where /proc is missing).
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
