package site

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/perflab/perflab/render/inputs"
	"github.com/perflab/perflab/render/wire"
)

// pageMeta is what Load takes from a page's file: its front matter and
// the text of its first "# " line (its title in the navigation). The
// input stat cache keeps it as the file's memo (wire-encoded), so that an
// unchanged page is not even read unless it has to be rendered.
type pageMeta struct {
	FM         FrontMatter
	Has        bool // HasFrontMatter
	Lines      int  // bodyLine
	Heading    string
	HasHeading bool
}

// pageMetaVersion salts the input stat cache: a memo written for another
// pageMeta type is not read.
var pageMetaVersion = wire.Version(pageMeta{})

// readPage reads the page p at src through rd (or takes what Load needs
// of it from the input stat cache, leaving the body to be read when it
// is rendered).
func (s *Site) readPage(p *Page, src string, rd *inputs.Reader) (FrontMatter, bool, int, error) {
	if memo, sum, ok := rd.Memo(src); ok {
		var m pageMeta
		if wire.Decode(memo, &m) == nil {
			p.body = inputs.Later(src, sum, func(data []byte) ([]byte, error) {
				_, body, _, _, err := ParseFrontMatter(p.Src, data)
				return body, err
			})
			p.heading, p.hasHeading = m.Heading, m.HasHeading
			return m.FM, m.Has, m.Lines, nil
		}
	}
	data, sum, err := rd.ReadFile(src)
	if os.IsNotExist(err) && filepath.Base(src) == "index.md" {
		data, err = nil, nil // a campaign bundle without narrative
	}
	if err != nil {
		return FrontMatter{}, false, 0, fmt.Errorf("load: %w", err)
	}
	fm, body, lines, has, err := ParseFrontMatter(p.Src, data)
	if err != nil {
		return fm, false, 0, err
	}
	p.body = inputs.Loaded(body)
	p.heading, p.hasHeading = headingLineOf(body)
	if data != nil {
		rd.SetMemo(src, sum, wire.Append(nil, pageMeta{FM: fm, Has: has, Lines: lines, Heading: p.heading, HasHeading: p.hasHeading}))
	}
	return fm, has, lines, nil
}

// MarkdownBody is the page's Markdown after its front matter: the only
// way to it (a page taken from the input stat cache has not read it:
// inputs.Deferred reads it now, and checks it).
func (p *Page) MarkdownBody() ([]byte, error) { return p.body.Bytes() }

// NavTitle is the page's title for navigation without rendering it: front
// matter's title, else the first "# " heading, else the file name. It
// scans the body in place (splitting it into strings was a fifth of an
// unchanged 924-page rebuild).
func (p *Page) NavTitle() string {
	if p.FrontMatter.Title != "" {
		return p.FrontMatter.Title
	}
	if h, ok := p.HeadingLine(); ok {
		return h
	}
	return TitleFromPath(p.Rel)
}

// HeadingLine is the text of the body's first "# " line.
func (p *Page) HeadingLine() (string, bool) { return p.heading, p.hasHeading }

func headingLineOf(body []byte) (string, bool) {
	for b := body; len(b) > 0; {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if t, ok := bytes.CutPrefix(line, []byte("# ")); ok {
			return strings.TrimSpace(string(t)), true
		}
	}
	return "", false
}

func TitleFromPath(rel string) string {
	b := strings.TrimSuffix(path.Base(strings.TrimSuffix(rel, "/index.md")), ".md")
	b = strings.ReplaceAll(b, "-", " ")
	if b == "" {
		return "Untitled"
	}
	return strings.ToUpper(b[:1]) + b[1:]
}

// BodyLoaded reports whether Load read the page's body (not when it took
// the page's front matter and heading from the input stat cache).
func (p *Page) BodyLoaded() bool { return p.body.InMemory() }

// NavTitleReport is a report's title without rendering its page.
func (p *Page) NavTitleReport() string {
	if p.FrontMatter.Title != "" || p.Report == nil {
		return p.NavTitle()
	}
	if p.Report.Campaign.Title != "" {
		return p.Report.Campaign.Title
	}
	if h, ok := p.HeadingLine(); ok {
		return h
	}
	return p.Report.Title()
}
