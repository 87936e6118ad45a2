package serve

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium finds a headless Chromium: $PERFLAB_CHROMIUM, then what
// .ci/install-30-chromium.sh installs, then PATH. The test is skipped,
// loudly, when there is none.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("PERFLAB_CHROMIUM"); p != "" {
		return p
	}
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Join(filepath.Dir(file), "..", "..")
	for _, p := range []string{
		filepath.Join(repo, ".cache", "chromium", "chromium-headless-shell"),
		filepath.Join(repo, ".cache", "chromium", "chromium"),
		// Debian's binaries; /usr/bin/chromium* are shell scripts that run
		// them as children.
		"/usr/lib/chromium/chromium-headless-shell",
		"/usr/lib/chromium/chromium",
		"/usr/bin/chromium-headless-shell",
		"/usr/bin/chromium",
	} {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	for _, n := range []string{"chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	status, _ := os.ReadFile(filepath.Join(repo, ".cache", "deps-status"))
	msg := fmt.Sprintf("SKIP %s: no headless Chromium found (set PERFLAB_CHROMIUM or run `make deps`; .cache/deps-status: %q)",
		t.Name(), strings.TrimSpace(string(status)))
	fmt.Fprintln(os.Stderr, msg) // seen without -v too
	t.Skip(msg)
	return ""
}

// browser starts a fresh headless Chromium for the test.
func browser(t *testing.T) context.Context {
	t.Helper()
	exe := chromium(t)
	// A fresh profile, removed by us rather than t.TempDir: Chromium's
	// helper processes may still write to it for a moment after the
	// browser is gone, which fails t.TempDir's cleanup.
	profile, err := os.MkdirTemp("", "perflab-chromium-*")
	if err != nil {
		t.Fatal(err)
	}
	var cmd *exec.Cmd
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(profile),
		// Its own process group, so that the cleanup ends every process
		// it started, also when the executable is a wrapper script that
		// leaves Chromium orphaned when killed.
		chromedp.ModifyCmdFunc(func(c *exec.Cmd) {
			c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
			cmd = c
		}),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() {
		cancelTimeout()
		cancelCtx()
		cancelAlloc()
		if cmd != nil && cmd.Process != nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the group we made
		}
		for range 50 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	if err := chromedp.Run(ctx); err != nil { // launch now, to fail early
		t.Fatalf("start %s: %v", exe, err)
	}
	return ctx
}

// waitJS evaluates a boolean expression in the page every 50ms until it is
// true, failing after 15s with the page's text.
func waitJS(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		var ok bool
		err := chromedp.Run(ctx, chromedp.Evaluate(expr, &ok))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			var text string
			chromedp.Run(ctx, chromedp.Evaluate(`document.documentElement.innerText`, &text))
			t.Fatalf("%s: not seen in 15s (last error %v); page text: %q", what, err, text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// browserEditLoop is the scenario of the issue: open a page, edit its
// file and see the new text after a reload; break the front matter and
// see the error over the page; fix it and see the page come back.
// file is the content file (relative to dir) behind the page at path;
// edit(text) returns its contents with text as the body, and broken its
// contents with bad front matter whose error names line badLine.
func browserEditLoop(t *testing.T, ctx context.Context, s *Server, dir, file, path string,
	edit func(text string) string, broken string, badLine string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Navigate(s.URL()+path)); err != nil {
		t.Fatal(err)
	}
	has := func(text string) string {
		return `document.body !== null && document.body.innerText.includes(` + jsString(text) + `)`
	}
	waitJS(t, ctx, "first text", has("Original words"))
	// The event stream must be connected before we count on it.
	waitJS(t, ctx, "script loaded", `typeof window.__perflab === "object"`)
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.__perflabTestMark = 1`, nil)); err != nil {
		t.Fatal(err)
	}

	writeFile(t, dir, file, edit("Edited words"))
	waitJS(t, ctx, "edited text after reload", has("Edited words")+` && !document.body.innerText.includes("Original words")`)
	var marked bool
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.__perflabTestMark === 1`, &marked)); err != nil {
		t.Fatal(err)
	}
	if marked {
		t.Error("the text changed without a page reload")
	}

	writeFile(t, dir, file, broken)
	waitJS(t, ctx, "error overlay", `(function(){
		var b = document.getElementById("perflab-build-error");
		return b !== null && b.innerText.includes("Build failed") && b.innerText.includes(`+jsString(file+":"+badLine)+`);
	})()`)
	// The page under the overlay is the last good one.
	waitJS(t, ctx, "last good page under the overlay", has("Edited words"))

	writeFile(t, dir, file, edit("Fixed words"))
	waitJS(t, ctx, "page back after the fix", has("Fixed words")+` && document.getElementById("perflab-build-error") === null`)
}

func jsString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}

func TestBrowserReloadAndErrorOverlayFakeBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	ctx := browser(t)
	dir := t.TempDir()
	writeFile(t, dir, "content/index.md", "---\ntitle: Home\n---\nWelcome.\n")
	page := func(text string) string { return "---\ntitle: About\n---\n" + text + ".\n" }
	writeFile(t, dir, "content/about.md", page("Original words"))
	s := startServer(t, dir, fakeBuild(dir), nil)
	browserEditLoop(t, ctx, s, dir, "content/about.md", "about/", page,
		"---\ntitle: About\nsubtitle: nope\n---\nBroken words.\n", "3")
}

// TestBrowserHiddenTabsReleaseTheirStreams opens more preview tabs than a
// browser opens connections to one host (6 over HTTP/1.1), hiding each
// after it loads as a tab in the background is: every tab must load, and
// a hidden tab that becomes visible after an edit reloads with it.
func TestBrowserHiddenTabsReleaseTheirStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	ctx := browser(t)
	dir := newSite(t)
	s := startServer(t, dir, fakeBuild(dir), nil)
	streams := func() int {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.subs)
	}
	// Headless tabs are all visible: hiding is simulated the way the
	// browser announces it.
	setHidden := func(tab context.Context, hidden bool) {
		t.Helper()
		js := `Object.defineProperty(document, "hidden", {configurable: true, get: function () { return ` +
			strconv.FormatBool(hidden) + `; }}); document.dispatchEvent(new Event("visibilitychange")); true`
		if err := chromedp.Run(tab, chromedp.Evaluate(js, nil)); err != nil {
			t.Fatal(err)
		}
	}
	var tabs []context.Context
	for i := range 8 {
		tab, cancel := chromedp.NewContext(ctx)
		t.Cleanup(cancel)
		if err := chromedp.Run(tab); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- chromedp.Run(tab, chromedp.Navigate(s.URL()+"about/")) }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("tab %d did not load in 10s with %d event streams open", i+1, streams())
		}
		waitJS(t, tab, "page", `document.body !== null && document.body.innerText.includes("First text.")`)
		deadline := time.Now().Add(10 * time.Second)
		for streams() != 1 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if n := streams(); n != 1 {
			t.Fatalf("tab %d: %d event streams open, want 1 (the visible tab's)", i+1, n)
		}
		setHidden(tab, true)
		tabs = append(tabs, tab)
	}
	writeFile(t, dir, "content/about.md", "---\ntitle: About\n---\nSecond text.\n")
	setHidden(tabs[0], false)
	waitJS(t, tabs[0], "the edit, once visible again", `document.body !== null && document.body.innerText.includes("Second text.")`)
}
