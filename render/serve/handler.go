package serve

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"strings"
	"time"
)

//go:embed livereload.js
var reloadScript []byte

func (s *Server) handler() http.Handler {
	loopback := isLoopbackAddr(s.ln.Addr())
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		if loopback && !loopbackHost(r.Host) {
			// A page elsewhere that points a name it controls at 127.0.0.1
			// (DNS rebinding) must not read the preview.
			http.Error(w, "perflab serve: host not allowed", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		base := s.cfg.BaseURL
		p := r.URL.Path
		if !strings.HasPrefix(p, base) {
			if p+"/" == base || p == "/" {
				http.Redirect(w, r, base, http.StatusFound)
				return
			}
			http.NotFound(w, r)
			return
		}
		rel := p[len(base):]
		switch rel {
		case eventsPath:
			s.events(w, r)
			return
		case scriptPath:
			h.Set("Content-Type", "text/javascript; charset=utf-8")
			http.ServeContent(w, r, "livereload.js", time.Time{}, bytes.NewReader(reloadScript))
			return
		}
		s.file(w, r, rel)
	})
}

// file serves site/rel once every change seen so far is built.
func (s *Server) file(w http.ResponseWriter, r *http.Request, rel string) {
	name, ok := siteName(rel)
	if !ok {
		http.Error(w, "bad path", http.StatusBadRequest)
		return
	}
	st, ok := s.settled(r.Context())
	if !ok {
		return
	}
	// The root is opened per request: a build swaps the whole directory.
	// os.Root refuses any path, "..", or symbolic link leading outside it.
	root, err := os.OpenRoot(s.cfg.Site)
	if err != nil {
		s.missing(w, r, nil, st)
		return
	}
	defer root.Close()
	fi, err := root.Stat(name)
	if err == nil && fi.IsDir() {
		if !strings.HasSuffix(r.URL.Path, "/") {
			// The folder's own URL, built from the cleaned name: the
			// request's path could start with "//", which a browser
			// reads as another host's address (//evil.example/).
			u := url.URL{Path: s.cfg.BaseURL + strings.TrimPrefix(name+"/", "./"), RawQuery: r.URL.RawQuery}
			http.Redirect(w, r, u.String(), http.StatusMovedPermanently)
			return
		}
		name = path.Join(name, "index.html")
		fi, err = root.Stat(name)
	}
	if err != nil || !fi.Mode().IsRegular() {
		s.missing(w, r, root, st)
		return
	}
	f, err := root.Open(name)
	if err != nil {
		s.missing(w, r, root, st)
		return
	}
	defer f.Close()
	if !strings.HasSuffix(name, ".html") {
		http.ServeContent(w, r, name, fi.ModTime(), f)
		return
	}
	page, err := io.ReadAll(f)
	if err != nil {
		http.Error(w, "read error", http.StatusInternalServerError)
		return
	}
	s.writePage(w, r, http.StatusOK, page, st)
}

// missing answers 404 with the site's 404.html when it has one. The page
// gets the reload script too, so it turns into the real page when that is
// built.
func (s *Server) missing(w http.ResponseWriter, r *http.Request, root *os.Root, st state) {
	var page []byte
	if root != nil {
		page, _ = root.ReadFile("404.html")
	}
	if page == nil {
		msg := "404 page not found"
		if st.Error != nil {
			msg = "the site has not been built"
		}
		page = []byte("<!doctype html><html><head><meta charset=\"utf-8\"><title>" + msg +
			"</title></head><body><p>" + html.EscapeString(msg) + "</p></body></html>")
	}
	s.writePage(w, r, http.StatusNotFound, page, st)
}

func (s *Server) writePage(w http.ResponseWriter, r *http.Request, code int, page []byte, st state) {
	out := inject(page, s.snippet(st))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", fmt.Sprint(len(out)))
	w.WriteHeader(code)
	if r.Method != http.MethodHead {
		w.Write(out)
	}
}

// snippet is what a page gets: the state it was served at and the script.
func (s *Server) snippet(st state) []byte {
	cfg := struct {
		state
		Events string `json:"events"`
	}{st, s.cfg.BaseURL + eventsPath}
	js, _ := json.Marshal(cfg) // escapes <, > and &: safe inside <script>
	return []byte(`<script data-perflab-livereload>window.__perflab=` + string(js) +
		`;</script><script src="` + html.EscapeString(s.cfg.BaseURL+scriptPath) + `"></script>`)
}

// inject puts snip before the last </body>, or at the end.
func inject(page, snip []byte) []byte {
	i := bytes.LastIndex(bytes.ToLower(page), []byte("</body>"))
	if i < 0 {
		i = len(page)
	}
	out := make([]byte, 0, len(page)+len(snip))
	out = append(out, page[:i]...)
	out = append(out, snip...)
	return append(out, page[i:]...)
}

// siteName turns a URL path below the base into a name inside the site
// ("" and "x/" name index.html files). It refuses "..", NUL and
// backslashes outright, though os.Root would also keep them inside.
func siteName(rel string) (string, bool) {
	if strings.ContainsAny(rel, "\x00\\") {
		return "", false
	}
	for _, part := range strings.Split(rel, "/") {
		if part == ".." {
			return "", false
		}
	}
	name := strings.TrimPrefix(path.Clean("/"+rel), "/")
	if name == "" {
		name = "."
	}
	return name, fs.ValidPath(name)
}

// events streams the build state as Server-Sent Events: one "state" event
// once no build is due, and one after every build.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	s.subs[ch] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.subs, ch)
		s.mu.Unlock()
	}()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	send := func() error {
		js, err := json.Marshal(s.current())
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "event: state\ndata: %s\n\n", js)
		fl.Flush()
		return err
	}
	// retry: reconnect quickly after a restart of the server.
	if _, err := io.WriteString(w, "retry: 500\n\n"); err != nil {
		return
	}
	fl.Flush()
	// The first state is a settled one: a page that connects while a
	// build is due learns the outcome, not the state before it.
	if _, ok := s.settled(r.Context()); !ok {
		return
	}
	if send() != nil {
		return
	}
	keep := time.NewTicker(15 * time.Second)
	defer keep.Stop()
	for {
		select {
		case <-ch:
			if send() != nil {
				return
			}
		case <-keep.C:
			if _, err := io.WriteString(w, ": keep-alive\n\n"); err != nil {
				return
			}
			fl.Flush()
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		}
	}
}

func isLoopbackAddr(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// loopbackHost reports whether a Host header names this machine's loopback.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// cleanBase checks a base URL path and gives it one leading and one
// trailing slash.
func cleanBase(b string) (string, error) {
	if b == "" {
		return "/", nil
	}
	if strings.Contains(b, "://") || strings.ContainsAny(b, "?#\\") {
		return "", errors.New("base URL must be a path such as /perflab/: " + b)
	}
	b = path.Clean("/" + b)
	if b != "/" {
		b += "/"
	}
	return b, nil
}
