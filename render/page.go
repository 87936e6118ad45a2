package render

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"path"
	"regexp"
	"strings"

	"github.com/perflab/perflab/render/markdown"
	"github.com/yuin/goldmark/ast"
	"gopkg.in/yaml.v3"
)

// renderedPage is a page's content before the layout.
type renderedPage struct {
	Title       string
	Description string
	Body        template.HTML
	Charts      bool
}

// linkFunc rewrites a page's link destinations so that they work from the
// page's pretty URL and under the base URL: relative links are resolved
// against the Markdown file's directory (a.md → a/), site-absolute ones
// get the base prefix. External links, fragments and links leaving
// content/ are kept.
func (s *Site) linkFunc(p *Page) func(string) string {
	base := s.opt.BaseURL
	return func(dest string) string {
		if dest == "" || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "//") || hasScheme(dest) {
			return dest
		}
		if strings.HasPrefix(dest, "/") {
			return base + strings.TrimPrefix(dest, "/")
		}
		pth, frag := dest, ""
		if i := strings.IndexAny(dest, "#?"); i >= 0 {
			pth, frag = dest[:i], dest[i:]
		}
		target := path.Clean(path.Join(path.Dir(p.Rel), pth))
		if target == ".." || strings.HasPrefix(target, "../") {
			return dest
		}
		switch {
		case strings.HasSuffix(target, ".md"):
			target = pageURL(target)
		case target == ".":
			target = ""
		case strings.HasSuffix(pth, "/"):
			target += "/"
		}
		return base + target + frag
	}
}

var schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

func hasScheme(s string) bool { return schemeRE.MatchString(s) }

// renderBody renders a page's Markdown, its perflab blocks and, for a
// report that places no block, the generated skeleton.
func (s *Site) renderBody(p *Page, t *template.Template) (*renderedPage, error) {
	conv := markdown.New(markdown.Options{Unsafe: true})
	ids := markdown.NewIDs()
	doc := conv.Parse(p.body, markdown.ParseOptions{IDs: ids, Link: s.linkFunc(p)})
	ctx := &pageCtx{site: s, page: p, rep: p.Report, t: t, ids: ids}
	out := &renderedPage{Title: p.FrontMatter.Title, Description: p.FrontMatter.Description}

	// The first heading titles the page when nothing else does; a level-1
	// heading is taken out of the body since the layout prints the title.
	var h1Text string
	if h := firstHeading(doc.Root); h != nil {
		h1Text = doc.HeadingText(h)
		if h.Level == 1 {
			h.Parent().RemoveChild(h.Parent(), h)
		}
	}
	if out.Title == "" && p.Report != nil {
		if p.Report.Campaign.Title == "" && h1Text != "" {
			out.Title = h1Text
		} else {
			out.Title = p.Report.Title()
		}
	}
	if out.Title == "" {
		out.Title = h1Text
	}
	if out.Title == "" {
		out.Title = titleFromPath(p.Rel)
	}

	blocks := doc.Blocks()
	for _, b := range blocks {
		line := p.bodyLine + b.Line
		var spec BlockSpec
		if err := decodeStrict(b.Spec, &spec); err != nil {
			if te, ok := err.(*yaml.TypeError); ok {
				return nil, yamlError(p.Src, line, te)
			}
			return nil, yamlError(p.Src, line, err)
		}
		h, err := ctx.renderBlock(spec)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", p.Src, line, err)
		}
		b.HTML = []byte(h)
	}
	var buf bytes.Buffer
	if p.Report != nil && len(blocks) == 0 {
		if err := s.skeleton(&buf, ctx, conv, doc); err != nil {
			return nil, fmt.Errorf("%s: %w", p.Src, err)
		}
	} else if err := conv.Render(&buf, doc, doc.Root); err != nil {
		return nil, fmt.Errorf("%s: render: %w", p.Src, err)
	}
	out.Body = template.HTML(buf.String())
	out.Charts = ctx.charts > 0
	return out, nil
}

func firstHeading(root ast.Node) *ast.Heading {
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			return h
		}
	}
	return nil
}

func titleFromPath(rel string) string {
	b := strings.TrimSuffix(path.Base(strings.TrimSuffix(rel, "/index.md")), ".md")
	b = strings.ReplaceAll(b, "-", " ")
	if b == "" {
		return "Untitled"
	}
	return strings.ToUpper(b[:1]) + b[1:]
}

// section is a run of top-level narrative nodes under one level-2 heading.
type section struct {
	title   string
	heading *ast.Heading
	nodes   []ast.Node
}

func splitSections(doc *markdown.Document) (pre []ast.Node, secs []*section) {
	var cur *section
	for n := doc.Root.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && h.Level == 2 {
			cur = &section{title: doc.HeadingText(h), heading: h}
			secs = append(secs, cur)
			continue
		}
		if cur == nil {
			pre = append(pre, n)
		} else {
			cur.nodes = append(cur.nodes, n)
		}
	}
	return pre, secs
}

// skeleton writes GPUStack's report skeleton (reference/gpustack-perflab.md
// §2) from the data, placing narrative sections whose heading matches a
// skeleton section in it and the others after the Conclusion.
func (s *Site) skeleton(w *bytes.Buffer, c *pageCtx, conv *markdown.Converter, doc *markdown.Document) error {
	r := c.rep
	pre, secs := splitSections(doc)
	byTitle := map[string]*section{}
	for _, sec := range secs {
		key := strings.ToLower(sec.title)
		if _, dup := byTitle[key]; !dup {
			byTitle[key] = sec
		}
	}
	used := map[*section]bool{}
	renderNodes := func(nodes []ast.Node) error {
		for _, n := range nodes {
			if err := conv.Render(w, doc, n); err != nil {
				return fmt.Errorf("render: %w", err)
			}
		}
		return nil
	}
	// open writes a skeleton section's heading (the narrative's own when it
	// has the section) and returns the narrative nodes to place in it.
	open := func(title string) ([]ast.Node, error) {
		sec := byTitle[strings.ToLower(title)]
		if sec == nil {
			w.WriteString(string(c.heading(2, title)))
			return nil, nil
		}
		used[sec] = true
		if err := conv.Render(w, doc, sec.heading); err != nil {
			return nil, err
		}
		return sec.nodes, nil
	}
	write := func(h template.HTML, err error) error {
		if err != nil {
			return err
		}
		w.WriteString(string(h))
		return nil
	}
	if err := renderNodes(pre); err != nil {
		return err
	}
	hasRuns := len(r.runs) > 0
	if !hasRuns {
		fmt.Fprintf(w, `<div class="admonition warning"><p class="admonition-title">No results yet</p><p>No results were found for campaign <code>%s</code> in <code>%s/</code>. Run <code>perflab collect %s</code> or <code>perflab import</code>, then build again.</p></div>`+"\n",
			template.HTMLEscapeString(r.Campaign.ID), template.HTMLEscapeString(r.ResultsDir), template.HTMLEscapeString(r.CampaignFile))
	}

	// Conclusion.
	nodes, err := open("Conclusion")
	if err != nil {
		return err
	}
	if hasRuns {
		m, _ := r.primaryMetrics()
		if err := write(c.chart(m, "")); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "<p>Recommended configuration for optimizing %s of %s on %s:</p>\n",
		template.HTMLEscapeString(r.Objective()), template.HTMLEscapeString(r.ModelName()), template.HTMLEscapeString(r.HardwareLabel()))
	if err := write(c.command(r.Optimized(), "")); err != nil {
		return err
	}
	if hasRuns {
		w.WriteString("<p>Comparison of benchmark results before and after optimization:</p>\n")
		if err := write(c.comparison()); err != nil {
			return err
		}
	}
	if err := renderNodes(nodes); err != nil {
		return err
	}
	// Narrative sections the skeleton has no place for.
	skeletonTitles := map[string]bool{"conclusion": true, "optimization objective": true, "experimental setup": true,
		"experiment results": true, "summary of optimization options": true, "other benchmark cases": true, "all runs": true}
	for _, sec := range secs {
		if skeletonTitles[strings.ToLower(sec.title)] || used[sec] {
			continue
		}
		used[sec] = true
		if err := conv.Render(w, doc, sec.heading); err != nil {
			return err
		}
		if err := renderNodes(sec.nodes); err != nil {
			return err
		}
	}
	// Optimization Objective (when stated).
	if r.Campaign.ObjectiveStatement != "" || byTitle["optimization objective"] != nil {
		nodes, err := open("Optimization Objective")
		if err != nil {
			return err
		}
		if r.Campaign.ObjectiveStatement != "" && len(nodes) == 0 {
			fmt.Fprintf(w, "<p>%s</p>\n", template.HTMLEscapeString(r.Campaign.ObjectiveStatement))
		}
		if err := renderNodes(nodes); err != nil {
			return err
		}
	}
	// Experimental Setup.
	if nodes, err = open("Experimental Setup"); err != nil {
		return err
	}
	if err := write(c.setup()); err != nil {
		return err
	}
	if err := renderNodes(nodes); err != nil {
		return err
	}
	// Experiment Results: narrative preamble first, then one section per step.
	if nodes, err = open("Experiment Results"); err != nil {
		return err
	}
	if err := renderNodes(nodes); err != nil {
		return err
	}
	for i := range r.Campaign.Steps {
		if err := write(c.step(i, true)); err != nil {
			return err
		}
	}
	if nodes, err = open("Summary of Optimization Options"); err != nil {
		return err
	}
	if err := write(c.summary("")); err != nil {
		return err
	}
	if err := renderNodes(nodes); err != nil {
		return err
	}
	if nodes, err = open("Other Benchmark Cases"); err != nil {
		return err
	}
	w.WriteString("<p>The baseline and the optimized configuration on every benchmark case, to show how the optimization generalizes across workloads.</p>\n")
	if err := write(c.cases()); err != nil {
		return err
	}
	if err := renderNodes(nodes); err != nil {
		return err
	}
	if nodes, err = open("All Runs"); err != nil {
		return err
	}
	if err := write(c.runs()); err != nil {
		return err
	}
	return renderNodes(nodes)
}

// tocEntry is one line of the table of contents.
type tocEntry struct {
	Level int
	ID    string
	Text  string
}

var headingRE = regexp.MustCompile(`<h([23]) id="([^"]+)">(.*?)<a class="headerlink"`)
var tagRE = regexp.MustCompile(`<[^>]*>`)

// tableOfContents lists the h2 and h3 headings of a rendered body.
func tableOfContents(body string) []tocEntry {
	var out []tocEntry
	for _, m := range headingRE.FindAllStringSubmatch(body, -1) {
		text := html.UnescapeString(tagRE.ReplaceAllString(m[3], ""))
		out = append(out, tocEntry{Level: int(m[1][0] - '0'), ID: m[2], Text: strings.TrimSpace(text)})
	}
	return out
}

// plainText extracts searchable text from a body: no tags, no <pre>.
var preRE = regexp.MustCompile(`(?s)<pre.*?</pre>|<script.*?</script>`)
var spaceRE = regexp.MustCompile(`\s+`)

func plainText(body string, limit int) string {
	t := preRE.ReplaceAllString(body, " ")
	t = tagRE.ReplaceAllString(t, " ")
	t = html.UnescapeString(t)
	t = strings.ReplaceAll(t, "¶", "")
	t = strings.TrimSpace(spaceRE.ReplaceAllString(t, " "))
	if len(t) > limit {
		t = t[:limit]
		for !utf8Start(t) {
			t = t[:len(t)-1]
		}
	}
	return t
}

func utf8Start(s string) bool {
	if s == "" {
		return true
	}
	c := s[len(s)-1]
	return c < 0x80
}
