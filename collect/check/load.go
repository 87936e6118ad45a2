package check

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/schema/campaignfile"
)

var reFrontCampaign = regexp.MustCompile(`(?m)^campaign:[ \t]*["']?([^"'\n]+?)["']?[ \t]*$`)

// Load reads a page and, for a perflab report page, its campaign and
// results, as perflab build finds them: the front matter's campaign key or
// a campaign.yaml beside an index.md, and the results under
// resultsRoot/<campaign results dir or id>.
func Load(path, resultsRoot string) (Page, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is the page's, named by PageError
		}
		return Page{}, &PageError{Page: filepath.ToSlash(path), Err: fmt.Errorf("cannot read: %w", err)}
	}
	p := Page{Name: filepath.ToSlash(path), Text: data}
	camp := ""
	if filepath.Base(path) == "campaign.yaml" {
		// A report bundle without Markdown: its page is all generated,
		// and what is left to check is its results against its campaign.
		p.Text, camp = nil, path
	} else if fm := frontMatter(data); fm != "" {
		if m := reFrontCampaign.FindStringSubmatch(fm); m != nil {
			camp = filepath.Join(filepath.Dir(path), filepath.FromSlash(m[1]))
		}
	}
	if camp == "" && filepath.Base(path) == "index.md" {
		if _, err := os.Stat(filepath.Join(filepath.Dir(path), "campaign.yaml")); err == nil {
			camp = filepath.Join(filepath.Dir(path), "campaign.yaml")
		}
	}
	if camp == "" {
		return p, nil
	}
	c, err := ingest.ReadCampaign(camp)
	if err != nil {
		return Page{}, &PageError{Page: p.Name, Of: "campaign", Err: err}
	}
	if f, err := campaignfile.Read(camp); err == nil {
		p.campaignLine = f.Line
	}
	p.Campaign, p.CampaignFile = c, filepath.ToSlash(camp)
	dir := c.Results
	if dir == "" {
		dir = c.ID
	}
	rdir := filepath.Join(resultsRoot, filepath.FromSlash(dir))
	if _, err := os.Stat(rdir); err != nil {
		return p, nil // not collected yet: only the page's own arithmetic is checked
	}
	res, err := schema.ReadPageResults(rdir, c) // what the page shows: its round (schema.Shown) and the runs carried into it
	if err != nil {
		return Page{}, &PageError{Page: p.Name, Of: "results", Err: err}
	}
	p.Results = res
	return p, nil
}

// PageError is a page that could not be checked: the page itself, its
// campaign or its results could not be read.
type PageError struct {
	Page string // the page, as given
	Of   string // "" for the page itself, "campaign" or "results"
	Err  error
}

func (e *PageError) Error() string {
	if e.Of == "" {
		return fmt.Sprintf("check: %s: %v", e.Page, e.Err)
	}
	return fmt.Sprintf("check: %s: %s: %v", e.Page, e.Of, e.Err)
}

func (e *PageError) Unwrap() error { return e.Err }

// Lines reports the error one line each, as FILE:LINE: what (FILE: what
// where no line applies), FILE being the file at fault: the page, or its
// campaign file or result file, followed by the page it serves.
func (e *PageError) Lines() []string {
	if e.Of == "" {
		return []string{e.Page + ": " + e.Err.Error()}
	}
	var out []string
	for l := range strings.SplitSeq(e.Err.Error(), "\n") {
		if l = strings.TrimPrefix(l, "schema: "); l != "" {
			out = append(out, fmt.Sprintf("%s (the %s of %s)", l, e.Of, e.Page))
		}
	}
	return out
}

func frontMatter(data []byte) string {
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	if !strings.HasPrefix(s, "---\n") {
		return ""
	}
	if i := strings.Index(s[4:], "\n---"); i >= 0 {
		return s[4 : 4+i]
	}
	return ""
}

// Files lists the Markdown pages under the given paths (a file is taken
// as it is, whatever its name), sorted and without duplicates. A folder's
// campaign.yaml with no index.md beside it stands for its report's page,
// which perflab build generates whole.
func Files(paths []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, root := range paths {
		st, err := os.Stat(root)
		if err != nil {
			return nil, fmt.Errorf("check: %w", err)
		}
		if !st.IsDir() {
			if !seen[root] {
				seen[root] = true
				out = append(out, root)
			}
			continue
		}
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if !d.IsDir() && (strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".markdown")) && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
			if !d.IsDir() && d.Name() == "campaign.yaml" && !seen[p] {
				if _, err := os.Stat(filepath.Join(filepath.Dir(p), "index.md")); errors.Is(err, fs.ErrNotExist) {
					seen[p] = true
					out = append(out, p)
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("check: %w", err)
		}
	}
	sort.Strings(out)
	return out, nil
}
