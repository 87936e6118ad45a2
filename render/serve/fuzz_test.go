package serve

import (
	"bytes"
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The secret lies beside the site directory; links inside the site point
// at it. No request may read it.
const fuzzSecret = "TOP-SECRET-OUTSIDE-THE-SITE"

var fuzzMethods = []string{"GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PROPFIND"}

// reSnippet is the live-reload snippet writePage injects into pages.
var reSnippet = regexp.MustCompile(`<script data-perflab-livereload>[^<]*</script><script src="[^"]*"></script>`)

// FuzzHandler sends arbitrary requests (path, query, method, Host and
// Range headers) to serve's handler, for a site at / and one at /lab/.
// Nothing outside the site directory is ever answered (links to a file
// and a folder beside it included), nor redirected to off the site; no
// request gets a 5xx; a 200 or 206
// answer is a file of the site (a part of one for a range), the live-reload
// script, or a page with the snippet added.
func FuzzHandler(f *testing.F) {
	dir := f.TempDir()
	site := filepath.Join(dir, "site")
	files := map[string]string{
		"index.html":           "<html><body><p>home</p></body></html>",
		"404.html":             "<html><body>not here</body></html>",
		"a/index.html":         "<html><body>a</body></html>",
		"a/b/data.json":        `{"x": 1}`,
		"style.css":            "body{}",
		"weird name %2e.txt":   "odd",
		"..dots/index.html":    "<body>dots</body>",
		"lab/nested/page.html": "<html><body>nested</body></html>",
	}
	for name, data := range files {
		p := filepath.Join(site, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	outside := filepath.Join(dir, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		f.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "secret.txt"), filepath.Join(outside, "index.html"), filepath.Join(outside, "s.txt")} {
		if err := os.WriteFile(p, []byte(fuzzSecret), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	for link, target := range map[string]string{"leak.txt": "../secret.txt", "leakdir": "../outside", "abs.txt": filepath.Join(dir, "secret.txt"), "a/up.html": "../../secret.txt"} {
		if err := os.Symlink(target, filepath.Join(site, link)); err != nil {
			f.Fatal(err)
		}
	}
	contents := [][]byte{reloadScript}
	_ = filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			b, _ := os.ReadFile(p)
			contents = append(contents, b)
		}
		return nil
	})
	var servers []*Server
	for _, base := range []string{"/", "/lab/"} {
		s, err := Start(context.Background(), Config{Addr: "127.0.0.1:0", Site: site, BaseURL: base, Watch: []string{filepath.Join(dir, "watched")},
			Build: func(context.Context, []string) error { return ErrUnchanged }})
		if err != nil {
			f.Fatal(err)
		}
		f.Cleanup(func() { s.Close() })
		servers = append(servers, s)
	}
	for _, p := range []string{"/", "/index.html", "/a", "/a/", "/a/b/data.json", "/leak.txt", "/leakdir/", "/leakdir/s.txt", "/abs.txt", "/a/up.html", "/../secret.txt", "/a/../../secret.txt", "/lab", "/lab/a/", "/__perflab/livereload.js", "/weird name %2e.txt", "/..dots/", "/a/b/%2e%2e/%2e%2e/", "//etc/passwd", "/a\\..\\..\\secret.txt", "//a", "//evil.example/a"} {
		f.Add(p, "", uint8(0), uint8(0), "")
	}
	f.Add("/style.css", "v=1", uint8(1), uint8(1), "bytes=0-2")
	f.Add("/lab/leak.txt", "", uint8(8), uint8(2), "bytes=-5")
	f.Fuzz(func(t *testing.T, path, query string, method, host uint8, rng string) {
		s := servers[int(method>>3)%len(servers)]
		hosts := []string{s.ln.Addr().String(), "localhost", "[::1]:80", "evil.example", "127.0.0.1.evil.example", ""}
		req := httptest.NewRequest("GET", "http://x/", nil)
		req.Method = fuzzMethods[int(method&7)%len(fuzzMethods)]
		req.URL = &url.URL{Path: path, RawQuery: query} // as the server parses a request line
		req.RequestURI = req.URL.RequestURI()
		req.Host = hosts[int(host)%len(hosts)]
		if rng != "" {
			req.Header.Set("Range", rng)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond) // the event stream ends
		defer cancel()
		req = req.WithContext(ctx)
		rec := httptest.NewRecorder()
		s.http.Handler.ServeHTTP(rec, req)
		body := rec.Body.Bytes()
		if bytes.Contains(body, []byte(fuzzSecret)) {
			t.Fatalf("%s %q answered a file outside the site: %d %s", req.Method, path, rec.Code, body)
		}
		if loc := rec.Header().Get("Location"); loc != "" && (!strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, "/\\")) {
			t.Fatalf("%s %q redirects off the site, to %q", req.Method, path, loc)
		}
		if rec.Code >= 500 {
			t.Fatalf("%s %q: %d %s", req.Method, path, rec.Code, body)
		}
		if (rec.Code == http.StatusOK || rec.Code == http.StatusPartialContent) && req.Method == "GET" && !strings.HasSuffix(path, eventsPath) {
			plain := reSnippet.ReplaceAll(body, nil)
			for _, c := range contents {
				if bytes.Contains(c, plain) {
					return
				}
			}
			t.Fatalf("GET %q: %d answer is no file of the site: %q", path, rec.Code, body)
		}
	})
}
