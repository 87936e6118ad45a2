package render

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// navProbe runs after site.js on a phone-wide screen: it opens the
// navigation drawer and records whether the navigation shows, which link
// is marked current and whether that link lies on the screen.
const navProbe = `<script>setTimeout(function(){var h=document.documentElement,nav=document.getElementById("nav");` +
	`var t=document.querySelector(".nav-toggle");h.setAttribute("data-probe-closed",getComputedStyle(nav).display);` +
	`if(t&&getComputedStyle(t).display!=="none")t.click();h.setAttribute("data-probe-open",getComputedStyle(nav).display);` +
	`var c=nav.querySelector('a[aria-current="page"]');if(c){var r=c.getBoundingClientRect();h.setAttribute("data-probe-current",c.textContent);` +
	`h.setAttribute("data-probe-onscreen",String(r.width>0&&r.height>0&&r.left>=0&&r.right<=innerWidth&&r.top>=0&&r.bottom<=innerHeight))}` +
	`h.setAttribute("data-probe-links",String(nav.querySelectorAll("a").length));h.setAttribute("data-probe-done","1")},500)</script>`

// TestBrowserNavPhone: on a 390 px screen, relative and under a base URL
// sub-path, the navigation drawer opens on the toggle and shows the
// page's branch with the page marked current and on screen; every link
// in it leads to a page the build wrote (over HTTP under the base URL,
// and as files for the relative site opened from the disk).
func TestBrowserNavPhone(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: -short: headless Chromium test")
	}
	bin := chromium(t)
	dir := t.TempDir()
	for l := 0; l < 20; l++ {
		for _, m := range []string{"alpha", "beta"} {
			for _, g := range []string{"h100", "h200"} {
				writeFile(t, filepath.Join(dir, "content", fmt.Sprintf("lab-%02d", l), m, g+".md"), fmt.Sprintf("# %s on %s in lab %d\n\ntext\n", m, g, l))
			}
		}
	}
	const page = "lab-07/beta/h200/"
	for _, base := range []string{"/", "/perflab/"} {
		t.Run("base "+base, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "site")
			if err := Build(context.Background(), Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: out, BaseURL: base, NoCache: true}); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(out, filepath.FromSlash(page), "index.html")
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			html := string(b)
			nav := html[strings.Index(html, `<nav id="nav"`):strings.Index(html, "</nav>")]
			prefix := strings.TrimSuffix(base, "/")
			srv := httptest.NewServer(http.StripPrefix(prefix, http.FileServer(http.Dir(out))))
			defer srv.Close()
			links := navLinkRE.FindAllStringSubmatch(nav, -1)
			if len(links) > 20+2+4 {
				t.Errorf("%d links in the navigation of a page in a 20-lab site, want the top level and one branch", len(links))
			}
			pageURL, _ := url.Parse(srv.URL + prefix + "/" + page)
			for _, m := range links {
				href := m[1]
				if base == "/" {
					// Relative: a file the build wrote, opened from the disk.
					if _, err := os.Stat(filepath.Join(filepath.Dir(file), filepath.FromSlash(href))); err != nil {
						t.Errorf("link %s (%s): %v", href, m[2], err)
					}
				}
				u, err := pageURL.Parse(href)
				if err != nil {
					t.Fatal(err)
				}
				resp, err := http.Get(u.String())
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 200 || !strings.HasPrefix(u.Path, base) {
					t.Errorf("link %s (%s): %s %s", href, m[2], u.Path, resp.Status)
				}
			}
			if err := os.WriteFile(file, []byte(strings.Replace(html, "</body>", navProbe+"</body>", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			dom, _ := runChrome(t, bin, append(chromeFlags(t.TempDir()), "--window-size=390,844", "--virtual-time-budget=3000", "--dump-dom", pageURL.String())...)
			got := map[string]string{}
			for _, m := range attrRE.FindAllStringSubmatch(string(dom), -1) {
				got[m[1]] = m[2]
			}
			if got["done"] != "1" {
				t.Fatalf("the probe did not run: %v", got)
			}
			if got["closed"] != "none" || got["open"] != "block" {
				t.Errorf("phone navigation: display %q before the toggle, %q after; want none, then block", got["closed"], got["open"])
			}
			if want := "beta on h200 in lab 7"; got["current"] != want || got["onscreen"] != "true" {
				t.Errorf("current link %q (on screen: %s), want %q on screen", got["current"], got["onscreen"], want)
			}
			shot := filepath.Join(repoRoot(t), ".cache", "artifacts", "screenshots", "nav-phone"+strings.ReplaceAll(path.Clean(base), "/", "-")+".png")
			if os.MkdirAll(filepath.Dir(shot), 0o755) == nil {
				runChrome(t, bin, append(chromeFlags(t.TempDir()), "--window-size=390,844", "--virtual-time-budget=3000", "--screenshot="+shot, pageURL.String())...)
			}
		})
	}
}
