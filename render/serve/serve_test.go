package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeFile writes name under dir, making its directories.
func writeFile(t testing.TB, dir, name, data string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// startServer runs a server on 127.0.0.1:0 for dir (content/, results/,
// templates/ watched; site/ served) and stops it at the end of the test.
func startServer(t testing.TB, dir string, build func(context.Context, []string) error, mod func(*Config)) *Server {
	t.Helper()
	cfg := Config{
		Addr:  "127.0.0.1:0",
		Site:  filepath.Join(dir, "site"),
		Watch: []string{filepath.Join(dir, "content"), filepath.Join(dir, "results"), filepath.Join(dir, "templates")},
		Build: build,
		Log:   testLog{t},
	}
	if mod != nil {
		mod(&cfg)
	}
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return s
}

type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// stream is an SSE client of the events endpoint.
type stream struct {
	states chan state
	cancel context.CancelFunc
}

func openStream(t testing.TB, s *Server) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL()+eventsPath, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("events Content-Type = %q", ct)
	}
	st := &stream{states: make(chan state, 64), cancel: cancel}
	go func() {
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = line[len("event: "):]
			case strings.HasPrefix(line, "data: ") && event == "state":
				var v state
				if json.Unmarshal([]byte(line[len("data: "):]), &v) == nil {
					st.states <- v
				}
			}
		}
		close(st.states)
	}()
	t.Cleanup(cancel)
	return st
}

// next returns the next state event, failing after 10s.
func (st *stream) next(t testing.TB) state {
	t.Helper()
	return st.within(t, 10*time.Second)
}

// within returns the next state event, failing after d.
func (st *stream) within(t testing.TB, d time.Duration) state {
	t.Helper()
	select {
	case v, ok := <-st.states:
		if !ok {
			t.Fatal("event stream ended")
		}
		return v
	case <-time.After(d):
		t.Fatalf("no state event in %v", d)
	}
	return state{}
}

// until reads state events until one satisfies ok.
func (st *stream) until(t testing.TB, ok func(state) bool) state {
	t.Helper()
	for {
		if v := st.next(t); ok(v) {
			return v
		}
	}
}

func get(t testing.TB, url string) (int, http.Header, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, string(b)
}

func newSite(t testing.TB) string {
	dir := t.TempDir()
	writeFile(t, dir, "content/index.md", "---\ntitle: Home\n---\nWelcome.\n")
	writeFile(t, dir, "content/about.md", "---\ntitle: About\n---\nFirst text.\n")
	writeFile(t, dir, "results/c1/a--p.json", "{}")
	return dir
}

func TestEditReloadsAndPageIsNew(t *testing.T) {
	dir := newSite(t)
	s := startServer(t, dir, fakeBuild(dir), nil)
	st := openStream(t, s)
	first := st.next(t)
	if first.Gen != 1 || first.Error != nil {
		t.Fatalf("first state = %+v, want gen 1 without error", first)
	}
	code, _, body := get(t, s.URL()+"about/")
	if code != 200 || !strings.Contains(body, "First text.") {
		t.Fatalf("GET about/ = %d %q", code, body)
	}
	if !strings.Contains(body, `"gen":1`) || !strings.Contains(body, scriptPath) {
		t.Errorf("page lacks the reload snippet: %q", body)
	}
	writeFile(t, dir, "content/about.md", "---\ntitle: About\n---\nSecond text.\n")
	st.until(t, func(v state) bool { return v.Gen == 2 })
	_, _, body = get(t, s.URL()+"about/")
	if !strings.Contains(body, "Second text.") || strings.Contains(body, "First text.") {
		t.Fatalf("after the edit: %q", body)
	}
	// A new result changes the home page.
	writeFile(t, dir, "results/c1/b--p.json", "{}")
	st.until(t, func(v state) bool { return v.Gen == 3 })
	if _, _, body = get(t, s.URL()); !strings.Contains(body, "2 results") {
		t.Fatalf("home after a new result: %q", body)
	}
}

func TestBuildErrorShownThenRecovers(t *testing.T) {
	dir := newSite(t)
	s := startServer(t, dir, fakeBuild(dir), nil)
	st := openStream(t, s)
	st.next(t)
	writeFile(t, dir, "content/about.md", "---\ntitle: About\nsubtitle: oops\n---\nBroken text.\n")
	bad := st.until(t, func(v state) bool { return v.Error != nil })
	want := BuildError{File: "content/about.md", Line: 3}
	if bad.Error.File != want.File || bad.Error.Line != want.Line || !strings.Contains(bad.Error.Message, `unknown key "subtitle"`) {
		t.Fatalf("error = %+v, want file %s line %d", bad.Error, want.File, want.Line)
	}
	if bad.Gen != 1 {
		t.Errorf("gen after a failed build = %d, want 1 (unchanged)", bad.Gen)
	}
	// The last good page, with the error attached for the overlay.
	_, _, body := get(t, s.URL()+"about/")
	if !strings.Contains(body, "First text.") || !strings.Contains(body, `"file":"content/about.md","line":3`) {
		t.Fatalf("page during the error: %q", body)
	}
	writeFile(t, dir, "content/about.md", "---\ntitle: About\n---\nFixed text.\n")
	good := st.until(t, func(v state) bool { return v.Error == nil })
	if good.Gen != 2 {
		t.Errorf("gen after the fix = %d, want 2", good.Gen)
	}
	_, _, body = get(t, s.URL()+"about/")
	if !strings.Contains(body, "Fixed text.") || strings.Contains(body, `"error":{`) {
		t.Fatalf("page after the fix: %q", body)
	}
}

func TestFirstBuildFailsThenRecovers(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "content/index.md", "---\nbogus: 1\n---\n")
	s := startServer(t, dir, fakeBuild(dir), nil)
	code, _, body := get(t, s.URL())
	if code != http.StatusNotFound || !strings.Contains(body, "has not been built") || !strings.Contains(body, `"line":2`) {
		t.Fatalf("GET / with no site = %d %q", code, body)
	}
	st := openStream(t, s)
	writeFile(t, dir, "content/index.md", "---\ntitle: Home\n---\nHello.\n")
	st.until(t, func(v state) bool { return v.Gen == 1 && v.Error == nil })
	if code, _, body = get(t, s.URL()); code != 200 || !strings.Contains(body, "Hello.") {
		t.Fatalf("GET / after the fix = %d %q", code, body)
	}
}

// TestRequestsWaitForTheBuild holds a build open and checks that a page
// request made meanwhile is answered only after it, with the new page.
func TestRequestsWaitForTheBuild(t *testing.T) {
	dir := newSite(t)
	real := fakeBuild(dir)
	started := make(chan []string, 4)
	release := make(chan struct{})
	firstDone := make(chan struct{})
	var calls sync.Mutex
	n := 0
	build := func(ctx context.Context, changed []string) error {
		calls.Lock()
		n++
		first := n == 1
		calls.Unlock()
		if first {
			defer close(firstDone)
		} else {
			started <- changed
			<-release
		}
		return real(ctx, changed)
	}
	s := startServer(t, dir, build, nil)
	// An edit noted before the loop's first build starts is that build's
	// (no second build comes): edit only once it is done.
	<-firstDone
	writeFile(t, dir, "content/about.md", "---\ntitle: About\n---\nNew text.\n")
	var changed []string
	select {
	case changed = <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("no build after the edit in 30s")
	}
	if !containsPath(changed, filepath.Join(dir, "content/about.md")) {
		t.Errorf("changed = %q, want content/about.md", changed)
	}
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get(s.URL() + "about/")
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(b)
	}()
	select {
	case b := <-got:
		t.Fatalf("answered during the build: %q", b)
	case <-time.After(200 * time.Millisecond):
	}
	close(release)
	if b := <-got; !strings.Contains(b, "New text.") {
		t.Fatalf("after the build: %q", b)
	}
}

func containsPath(list []string, p string) bool {
	for _, x := range list {
		if x == p {
			return true
		}
	}
	return false
}

// recorder is a build that records what it was given.
type recorder struct {
	mu    sync.Mutex
	calls [][]string
	err   error
}

func (r *recorder) build(ctx context.Context, changed []string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, changed)
	return r.err
}

func (r *recorder) snapshot() [][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]string(nil), r.calls...)
}

func TestBurstsGiveOneBuild(t *testing.T) {
	cases := []struct {
		name  string
		burst func(t *testing.T, dir string)
		want  []string // paths (relative) that must be in the one build's changes
		not   []string // names that must not be
	}{
		{"collector writes 50 results", func(t *testing.T, dir string) {
			for i := range 50 {
				writeFile(t, dir, fmt.Sprintf("results/c1/e%02d--p.json", i), "{}")
			}
		}, []string{"results/c1/e00--p.json", "results/c1/e49--p.json"}, nil},
		// Vim: write test file 4913, rename the original to a backup,
		// write the new file, delete the backup.
		{"save by rename (vim)", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "content/about.md")
			writeFile(t, dir, "content/4913", "")
			os.Remove(filepath.Join(dir, "content/4913"))
			if err := os.Rename(p, p+"~"); err != nil {
				t.Fatal(err)
			}
			writeFile(t, dir, "content/about.md", "new")
			os.Remove(p + "~")
		}, []string{"content/about.md"}, []string{"content/4913", "content/about.md~"}},
		// An atomic writer (schema.WriteAtomic): hidden temp file, renamed.
		{"atomic write", func(t *testing.T, dir string) {
			writeFile(t, dir, "results/c1/.x--p.json.tmp-123", "{}")
			if err := os.Rename(filepath.Join(dir, "results/c1/.x--p.json.tmp-123"), filepath.Join(dir, "results/c1/x--p.json")); err != nil {
				t.Fatal(err)
			}
		}, []string{"results/c1/x--p.json"}, []string{"results/c1/.x--p.json.tmp-123"}},
		// mkdir -p and a file at once: the file lands before the new
		// directories are watched and must still be seen.
		{"new nested directories", func(t *testing.T, dir string) {
			writeFile(t, dir, "content/qwen/h100/deep/index.md", "x")
		}, []string{"content/qwen", "content/qwen/h100/deep/index.md"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := newSite(t)
			var rec recorder
			done := make(chan struct{}, 16)
			build := func(ctx context.Context, changed []string) error {
				err := rec.build(ctx, changed)
				done <- struct{}{}
				return err
			}
			// Quiet is generous so that a slow machine still sees one burst.
			startServer(t, dir, build, func(c *Config) { c.Quiet = 300 * time.Millisecond; c.MaxWait = 10 * time.Second })
			<-done // the first build
			c.burst(t, dir)
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("no rebuild")
			}
			select {
			case <-done:
				t.Fatalf("a second rebuild: %q", rec.snapshot()[2])
			case <-time.After(600 * time.Millisecond):
			}
			calls := rec.snapshot()
			if calls[0] != nil {
				t.Errorf("first build changed = %q, want nil (everything)", calls[0])
			}
			got := calls[1]
			for _, w := range c.want {
				if !containsPath(got, filepath.Join(dir, w)) {
					t.Errorf("changed lacks %s: %q", w, got)
				}
			}
			for _, n := range c.not {
				if containsPath(got, filepath.Join(dir, n)) {
					t.Errorf("changed has %s: %q", n, got)
				}
			}
		})
	}
}

func TestWatchesRootCreatedLaterAndIgnoresSite(t *testing.T) {
	dir := newSite(t) // no templates/ yet
	var rec recorder
	done := make(chan struct{}, 16)
	build := func(ctx context.Context, changed []string) error {
		rec.build(ctx, changed)
		done <- struct{}{}
		return nil
	}
	startServer(t, dir, build, nil)
	<-done
	// Writing into site/ (the output) must not trigger a build.
	writeFile(t, dir, "site/x.html", "x")
	writeFile(t, dir, "templates/base.html", "x")
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("no rebuild after templates/ appeared")
	}
	// Now templates/ is watched recursively.
	writeFile(t, dir, "templates/partials/x.html", "x")
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("no rebuild for templates/partials/x.html")
	}
	for _, c := range rec.snapshot()[1:] {
		for _, p := range c {
			if strings.Contains(p, string(filepath.Separator)+"site"+string(filepath.Separator)) {
				t.Errorf("site/ change reported: %s", p)
			}
		}
	}
	all := strings.Join(append(rec.snapshot()[1], rec.snapshot()[2]...), " ")
	if !strings.Contains(all, filepath.Join(dir, "templates/partials/x.html")) {
		t.Errorf("changes = %s", all)
	}
}

func TestPathsOutsideSiteCannotBeRead(t *testing.T) {
	dir := t.TempDir()
	const secret = "TOP-SECRET-42"
	writeFile(t, dir, "secret.txt", secret)
	writeFile(t, dir, "site/index.html", "<html><body>home</body></html>")
	writeFile(t, dir, "site/a/index.html", "<html><body>a</body></html>")
	if err := os.Symlink(filepath.Join(dir, "secret.txt"), filepath.Join(dir, "site/link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(dir, "site/up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../secret.txt", filepath.Join(dir, "site/a/rel.txt")); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, dir, func(context.Context, []string) error { return nil }, nil)
	addr := strings.TrimPrefix(strings.TrimSuffix(s.URL(), "/"), "http://")
	// Raw request lines, so no client cleans them first.
	for _, target := range []string{
		"/../secret.txt",
		"/a/../../secret.txt",
		"/%2e%2e/secret.txt",
		"/%2E%2E%2Fsecret.txt",
		"/a/%2e%2e%2f%2e%2e%2fsecret.txt",
		"/..%5csecret.txt",
		"/.%2e/secret.txt",
		"/%252e%252e/secret.txt", // double encoded: a literal "%2e%2e" name
		"/link.txt",              // symlink to a file outside
		"/up/secret.txt",         // symlink to a directory outside
		"/a/rel.txt",             // relative symlink leading out
		"//secret.txt",
		"/a/%00/../../secret.txt",
	} {
		t.Run(target, func(t *testing.T) {
			code, body := rawGet(t, addr, target, "127.0.0.1")
			if strings.Contains(body, secret) {
				t.Fatalf("GET %s leaked the secret (%d)", target, code)
			}
			if code == 200 {
				t.Fatalf("GET %s = 200: %q", target, body)
			}
		})
	}
	// A symlink inside the site that stays inside works.
	if err := os.Symlink("index.html", filepath.Join(dir, "site/a/alias.html")); err != nil {
		t.Fatal(err)
	}
	if code, _, body := get(t, s.URL()+"a/alias.html"); code != 200 || !strings.Contains(body, ">a<") {
		t.Errorf("inside symlink = %d %q", code, body)
	}
}

// rawGet sends one HTTP/1.1 request line as written.
func rawGet(t testing.TB, addr, target, host string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, host)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestHeadersHostsAndRedirects(t *testing.T) {
	dir := newSite(t)
	writeFile(t, dir, "content/style.css", "") // not .md: fake build ignores it
	s := startServer(t, dir, fakeBuild(dir), nil)
	get(t, s.URL())                             // after the first build, which replaces site/
	writeFile(t, dir, "site/app.css", "body{}") // served as is (site/ is not watched)
	addr := strings.TrimPrefix(strings.TrimSuffix(s.URL(), "/"), "http://")
	cases := []struct {
		target, host string
		code         int
		ctype        string
	}{
		{"/", addr, 200, "text/html; charset=utf-8"},
		{"/about/", addr, 200, "text/html; charset=utf-8"},
		{"/about", addr, 301, ""}, // directory without slash
		{"/app.css", addr, 200, "text/css; charset=utf-8"},
		{"/nope/", addr, 404, "text/html; charset=utf-8"},
		{"/" + scriptPath, addr, 200, "text/javascript; charset=utf-8"},
		{"/", "localhost:8080", 200, ""},
		{"/", "[::1]:8080", 200, ""},
		{"/", "preview.localhost", 200, ""},
		// DNS rebinding: a foreign name pointing at 127.0.0.1.
		{"/", "attacker.example:8080", 403, ""},
		{"/", "10.0.0.1", 403, ""},
	}
	for _, c := range cases {
		t.Run(c.target+" "+c.host, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", c.target, c.host)
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.code {
				t.Errorf("status = %d, want %d", resp.StatusCode, c.code)
			}
			if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", cc)
			}
			if c.ctype != "" && resp.Header.Get("Content-Type") != c.ctype {
				t.Errorf("Content-Type = %q, want %q", resp.Header.Get("Content-Type"), c.ctype)
			}
		})
	}
	resp, err := http.Post(s.URL(), "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST = %d, want 405", resp.StatusCode)
	}
}

func TestBaseURL(t *testing.T) {
	dir := newSite(t)
	s := startServer(t, dir, fakeBuild(dir), func(c *Config) { c.BaseURL = "lab" })
	if !strings.HasSuffix(s.URL(), "/lab/") {
		t.Fatalf("URL = %s", s.URL())
	}
	root := strings.TrimSuffix(s.URL(), "lab/")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Get(root)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/lab/" {
		t.Errorf("GET / = %d → %q, want 302 → /lab/", resp.StatusCode, resp.Header.Get("Location"))
	}
	if code, _, body := get(t, s.URL()+"about/"); code != 200 || !strings.Contains(body, `"events":"/lab/__perflab/events"`) {
		t.Errorf("GET /lab/about/ = %d %q", code, body)
	}
	if code, _, _ := get(t, root+"about/"); code != 404 {
		t.Errorf("GET /about/ outside the base = %d, want 404", code)
	}
}

func TestCloseEndsStreamsAndWaitingRequests(t *testing.T) {
	dir := newSite(t)
	block := make(chan struct{})
	n := 0
	build := func(ctx context.Context, changed []string) error {
		n++
		if n > 1 {
			select { // a build that only ends when cancelled
			case <-block:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Start(ctx, Config{Addr: "127.0.0.1:0", Site: filepath.Join(dir, "site"),
		Watch: []string{filepath.Join(dir, "content")}, Build: build})
	if err != nil {
		t.Fatal(err)
	}
	st := openStream(t, s)
	st.next(t)
	writeFile(t, dir, "content/about.md", "x")
	waiting := make(chan error, 1)
	time.Sleep(100 * time.Millisecond) // let the change be noted
	go func() {
		resp, err := http.Get(s.URL())
		if err == nil {
			resp.Body.Close()
		}
		waiting <- err
	}()
	cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- s.Wait() }()
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("Wait = %v", err)
		}
	case <-time.After(4 * time.Second):
		t.Fatal("shutdown took more than 4s")
	}
	<-waiting
	for range st.states { // the stream ends
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(s.URL(), "/"), "http://")); err == nil {
		t.Error("still listening after Close")
	}
}

func TestStartErrors(t *testing.T) {
	if _, err := Start(context.Background(), Config{}); err == nil || !strings.Contains(err.Error(), "no build function") {
		t.Errorf("no build: %v", err)
	}
	nop := func(context.Context, []string) error { return nil }
	if _, err := Start(context.Background(), Config{Build: nop, BaseURL: "https://x.github.io/r/"}); err == nil {
		t.Error("a full URL as base was accepted")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = Start(context.Background(), Config{Build: nop, Addr: ln.Addr().String(), Watch: []string{}})
	if err == nil || !strings.Contains(err.Error(), "listen") {
		t.Errorf("address in use: %v", err)
	}
}

func TestBuildErrorLocation(t *testing.T) {
	cases := []struct {
		err  string
		file string
		line int
		msg  string
	}{
		{"render: content/a/index.md:14: unknown block type \"chartz\"", "content/a/index.md", 14, "unknown block type \"chartz\""},
		{"content/a/campaign.yaml:3:5: field foo not found", "content/a/campaign.yaml", 3, "field foo not found"},
		{"render: results/c/x--y.json:2: bad json", "results/c/x--y.json", 2, "bad json"},
		// No location: the whole text is the message.
		{"render: templates: parse failed", "", 0, "render: templates: parse failed"},
		// A port number is not a line.
		{"dial tcp 127.0.0.1:80: refused", "", 0, "dial tcp 127.0.0.1:80: refused"},
	}
	for _, c := range cases {
		e := newBuildError(errors.New(c.err))
		if e.File != c.file || e.Line != c.line || e.Message != c.msg || e.Text != c.err {
			t.Errorf("%q → %+v, want %s:%d %q", c.err, e, c.file, c.line, c.msg)
		}
	}
}

func TestSiteName(t *testing.T) {
	cases := []struct {
		rel, name string
		ok        bool
	}{
		{"", ".", true},
		{"a/", "a", true},
		{"a/b.html", "a/b.html", true},
		{"a//b", "a/b", true},
		{"./a", "a", true},
		{"..", "", false},
		{"a/../../x", "", false},
		{"a/..", "", false}, // ".." refused even when it stays inside
		{"a\\..\\x", "", false},
		{"a\x00b", "", false},
	}
	for _, c := range cases {
		name, ok := siteName(c.rel)
		if ok != c.ok || (ok && name != c.name) {
			t.Errorf("siteName(%q) = %q, %v; want %q, %v", c.rel, name, ok, c.name, c.ok)
		}
	}
}

func TestInject(t *testing.T) {
	cases := []struct{ page, want string }{
		{"<html><body>x</body></html>", "<html><body>x<S></body></html>"},
		{"<HTML><BODY>x</BODY></HTML>", "<HTML><BODY>x<S></BODY></HTML>"},
		// The last </body> wins (one may sit inside a code sample).
		{"<body><pre>&lt;/body&gt;</body>", "<body><pre>&lt;/body&gt;<S></body>"},
		{"<code></body></code></body>", "<code></body></code><S></body>"},
		{"no body", "no body<S>"},
	}
	for _, c := range cases {
		if got := string(inject([]byte(c.page), []byte("<S>"))); got != c.want {
			t.Errorf("inject(%q) = %q, want %q", c.page, got, c.want)
		}
	}
}

// TestRequestsNotHeldByAStreamOfChanges appends to a log under results/
// every few milliseconds (an engine's log while perflab collect runs) and
// checks that a page request is still answered, with an edit made before
// it: a request waits for the changes seen before it, not for the stream
// to stop, and a waiting request ends the settling of the burst.
func TestRequestsNotHeldByAStreamOfChanges(t *testing.T) {
	dir := newSite(t)
	fake := fakeBuild(dir)
	// A build slower than the interval between writes, as the real one
	// is: a write always lands during it.
	build := func(ctx context.Context, changed []string) error {
		time.Sleep(30 * time.Millisecond)
		return fake(ctx, changed)
	}
	// MaxWait far beyond the writer's time limit: the request must be
	// answered because it waits, not because MaxWait ran out. A Quiet
	// longer than any pause a loaded machine puts between the writes.
	s := startServer(t, dir, build, func(c *Config) {
		c.Log = io.Discard
		c.Quiet = 500 * time.Millisecond
		c.MaxWait = time.Minute
	})
	st := openStream(t, s)
	st.next(t)

	stop := make(chan struct{})
	writerDone := make(chan bool) // true: it ran out of time, the request never came back
	go func() {
		f, err := os.OpenFile(filepath.Join(dir, "results/c1/engine.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Error(err)
			writerDone <- false
			return
		}
		defer f.Close()
		limit := time.After(8 * time.Second)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				writerDone <- false
				return
			case <-limit:
				writerDone <- true
				return
			case <-tick.C:
				fmt.Fprintln(f, "INFO decode batch")
			}
		}
	}()
	time.Sleep(100 * time.Millisecond) // the stream of changes is under way
	writeFile(t, dir, "content/about.md", "---\ntitle: About\n---\nEdited during the stream.\n")
	_, _, body := get(t, s.URL()+"about/")
	close(stop)
	if <-writerDone {
		t.Fatal("the page request was held until the stream of changes stopped")
	}
	if !strings.Contains(body, "Edited during the stream.") {
		t.Fatalf("page after an edit made before the request: %q", body)
	}
}

// TestUnchangedBuildDoesNotReload checks that a build returning
// ErrUnchanged keeps the generation (open pages do not reload) and clears
// an earlier error.
func TestUnchangedBuildDoesNotReload(t *testing.T) {
	dir := newSite(t)
	fake := fakeBuild(dir)
	var mu sync.Mutex
	var next error // what the next build returns after rendering
	build := func(ctx context.Context, changed []string) error {
		if err := fake(ctx, changed); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		return next
	}
	set := func(err error) { mu.Lock(); next = err; mu.Unlock() }
	s := startServer(t, dir, build, nil)
	st := openStream(t, s)
	if first := st.next(t); first.Gen != 1 {
		t.Fatalf("first state %+v", first)
	}
	set(ErrUnchanged)
	writeFile(t, dir, "results/c1/engine.log", "INFO one line\n")
	if v := st.next(t); v.Gen != 1 || v.Error != nil {
		t.Fatalf("after an unchanged build: %+v, want gen 1 without error", v)
	}
	set(errors.New("content/about.md:2: broken"))
	writeFile(t, dir, "results/c1/engine.log", "INFO two lines\n")
	if v := st.next(t); v.Gen != 1 || v.Error == nil {
		t.Fatalf("after a failed build: %+v, want gen 1 with the error", v)
	}
	set(ErrUnchanged)
	writeFile(t, dir, "results/c1/engine.log", "INFO three lines\n")
	if v := st.next(t); v.Gen != 1 || v.Error != nil {
		t.Fatalf("after an unchanged build that follows a failure: %+v, want gen 1 without error", v)
	}
	set(nil)
	writeFile(t, dir, "content/about.md", "---\ntitle: About\n---\nNew.\n")
	if v := st.next(t); v.Gen != 2 {
		t.Fatalf("after a build that changed the site: %+v, want gen 2", v)
	}
}

func TestBrowserHost(t *testing.T) {
	cases := []struct {
		addr net.Addr
		want string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, "127.0.0.1:8080"},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, "[::1]:8080"},
		{&net.TCPAddr{IP: net.IPv4(10, 1, 2, 3), Port: 80}, "10.1.2.3:80"},
		// --addr 0.0.0.0:8080 and :8080 listen on [::]: "http://[::]:8080/"
		// opens nothing in most browsers.
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}, "127.0.0.1:8080"},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 8080}, "127.0.0.1:8080"},
	}
	for _, c := range cases {
		if got := browserHost(c.addr); got != c.want {
			t.Errorf("browserHost(%v) = %q, want %q", c.addr, got, c.want)
		}
	}
}

// TestCloseWithAnUnusedConnection opens a connection and sends nothing on
// it, as browsers do to have one ready: Close must still end cleanly (it
// waited 5s for it, then failed with "context deadline exceeded", so
// Ctrl-C with a browser open made perflab serve exit 1).
func TestCloseWithAnUnusedConnection(t *testing.T) {
	dir := newSite(t)
	s, err := Start(context.Background(), Config{
		Addr: "127.0.0.1:0", Site: filepath.Join(dir, "site"), Build: fakeBuild(dir),
		Watch: []string{filepath.Join(dir, "content")},
	})
	if err != nil {
		t.Fatal(err)
	}
	st := openStream(t, s)
	st.next(t)
	c, err := net.Dial("tcp", s.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	time.Sleep(50 * time.Millisecond) // accepted by the server
	if err := s.Close(); err != nil {
		t.Fatalf("close with an unused connection open: %v", err)
	}
}
