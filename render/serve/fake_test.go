package serve

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
)

// fakeBuild stands in for render.Build where a test is about the server
// rather than the renderer. It renders content/**/*.md to pretty URLs and
// lists results/**/*.json on the home page, writing into a temporary
// directory swapped in place of site (as render.Build does). Front matter
// is "---" lines of "key: value" with the keys the content format allows;
// anything else fails with "FILE:LINE: …".
func fakeBuild(dir string) func(ctx context.Context, changed []string) error {
	return func(ctx context.Context, changed []string) error {
		content := filepath.Join(dir, "content")
		site := filepath.Join(dir, "site")
		tmp, err := os.MkdirTemp(dir, ".site-*")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		var results []string
		filepath.WalkDir(filepath.Join(dir, "results"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
				rel, _ := filepath.Rel(dir, p)
				results = append(results, rel)
			}
			return nil
		})
		err = filepath.WalkDir(content, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			title, body, err := fakePage(rel, src)
			if err != nil {
				return err
			}
			out, _ := filepath.Rel(content, strings.TrimSuffix(p, ".md"))
			switch {
			case out == "index":
				out = "index.html"
				body += fmt.Sprintf("\n<p class=\"results\">%d results</p>", len(results))
			case filepath.Base(out) == "index":
				out = filepath.Join(filepath.Dir(out), "index.html")
			default:
				out = filepath.Join(out, "index.html")
			}
			out = filepath.Join(tmp, out)
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			page := "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>" + html.EscapeString(title) +
				"</title></head>\n<body><h1>" + html.EscapeString(title) + "</h1>\n" + body + "\n</body></html>\n"
			return os.WriteFile(out, []byte(page), 0o644)
		})
		if err != nil {
			return fmt.Errorf("render: %w", err)
		}
		old := site + ".old"
		os.RemoveAll(old)
		if err := os.Rename(site, old); err != nil && !os.IsNotExist(err) {
			return err
		}
		if err := os.Rename(tmp, site); err != nil {
			return err
		}
		return os.RemoveAll(old)
	}
}

func fakePage(name string, src []byte) (title, body string, err error) {
	sc := bufio.NewScanner(bytes.NewReader(src))
	line := 0
	var paras []string
	inFront := false
	for sc.Scan() {
		line++
		t := sc.Text()
		switch {
		case line == 1 && t == "---":
			inFront = true
		case inFront && t == "---":
			inFront = false
		case inFront:
			k, v, ok := strings.Cut(t, ":")
			if !ok {
				return "", "", fmt.Errorf("%s:%d: front matter: want key: value, got %q", name, line, t)
			}
			switch strings.TrimSpace(k) {
			case "title":
				title = strings.TrimSpace(v)
			case "description", "weight", "draft", "campaign":
			default:
				return "", "", fmt.Errorf("%s:%d: front matter: unknown key %q", name, line, strings.TrimSpace(k))
			}
		case strings.TrimSpace(t) != "":
			paras = append(paras, "<p>"+html.EscapeString(t)+"</p>")
		}
	}
	if inFront {
		return "", "", fmt.Errorf("%s:%d: front matter: no closing ---", name, line)
	}
	return title, strings.Join(paras, "\n"), nil
}
