package serve

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestFolderRedirectStaysOnSite: a folder asked for without its slash is
// redirected to its own URL on this site. A request path starting with
// "//" was redirected to "//a/", which a browser reads as the host "a"
// (found by FuzzHandler).
func TestFolderRedirectStaysOnSite(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "site", "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	build := func(context.Context, []string) error { return nil }
	for _, tc := range []struct{ base, path, want string }{
		{"/", "//a", "/a/"},
		{"/", "//a?x=1", "/a/?x=1"},
		{"/", "/a", "/a/"},
		{"/lab/", "/lab//a", "/lab/a/"},
		{"/lab/", "/lab/./a", "/lab/a/"},
	} {
		s := startServer(t, dir, build, func(c *Config) { c.BaseURL = tc.base })
		req, err := http.NewRequest("GET", "http://"+s.ln.Addr().String()+tc.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Location"); resp.StatusCode != http.StatusMovedPermanently || got != tc.want {
			t.Errorf("base %s, GET %s: %d to %q, want 301 to %q", tc.base, tc.path, resp.StatusCode, got, tc.want)
		}
	}
}
