package migrate

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
)

// Source is one page to migrate: Path on disk, Rel its path below the
// folder given (the page's path in the new content/ tree).
type Source struct {
	Path, Rel string
}

// Sources expands the arguments: Markdown files as given, folders walked
// for *.md (sorted, hidden entries skipped).
func Sources(args []string) ([]Source, error) {
	var out []Source
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil {
			return nil, fmt.Errorf("migrate: %w", err)
		}
		if !st.IsDir() {
			out = append(out, Source{Path: a, Rel: filepath.Base(a)})
			continue
		}
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if strings.HasPrefix(d.Name(), ".") && p != a {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".md") {
				rel, _ := filepath.Rel(a, p)
				out = append(out, Source{Path: p, Rel: filepath.ToSlash(rel)})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("migrate: %w", err)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Rel < out[j].Rel })
	return out, nil
}

// contentDir is the page's bundle below content/: "a/b.md" → "a/b",
// "a/index.md" → "a".
func contentDir(rel string) string {
	rel = filepath.ToSlash(rel)
	dir, base := filepath.Dir(rel), strings.TrimSuffix(filepath.Base(rel), filepath.Ext(rel))
	if strings.EqualFold(base, "index") || strings.EqualFold(base, "readme") {
		if dir == "." {
			return ""
		}
		return dir
	}
	if dir == "." {
		return base
	}
	return dir + "/" + base
}

// CampaignID is the id a page's campaign gets: its bundle path as a slug.
func CampaignID(rel string) string {
	id := slug(strings.ReplaceAll(contentDir(rel), "/", "-"))
	if id == "" {
		id = "index"
	}
	return id
}

// File is one file of the migrated project.
type File struct {
	Path string // relative to the output folder
	Data []byte
}

// Files lays a migrated page out as project files.
func (pg *Page) Files(rel string) ([]File, error) {
	dir := contentDir(rel)
	if pg.Plain {
		name := filepath.ToSlash(filepath.Join("content", filepath.FromSlash(rel)))
		return []File{{Path: name, Data: pg.Index}}, nil
	}
	c := pg.Campaign
	var out []File
	var buf bytes.Buffer
	buf.WriteString("# Migrated by perflab migrate from " + pg.Source + "; every value was inferred from the page.\n")
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, fmt.Errorf("migrate: %s: campaign: %w", pg.Source, err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	// Check what was written reads back as a valid campaign.
	if _, err := ingest.ParseCampaign(pg.Source+" (migrated campaign)", buf.Bytes()); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	out = append(out,
		File{Path: filepath.ToSlash(filepath.Join("content", dir, "index.md")), Data: pg.Index},
		File{Path: filepath.ToSlash(filepath.Join("content", dir, "campaign.yaml")), Data: buf.Bytes()},
	)
	for _, r := range pg.Results {
		b, err := schema.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("migrate: %s: %w", pg.Source, err)
		}
		out = append(out, File{Path: "results/" + c.ID + "/" + r.ID + ".json", Data: b})
	}
	return out, nil
}

// Report is the outcome of a migration run.
type Report struct {
	Pages []*Page
	// Written are the files written, relative to the output folder.
	Written []string
}

// Ambiguities counts the ambiguities of all pages.
func (r *Report) Ambiguities() int {
	n := 0
	for _, p := range r.Pages {
		n += len(p.Ambiguities)
	}
	return n
}

// Plan migrates the sources in memory: the report and the files a Write
// would write. Nothing is written.
func Plan(ctx context.Context, srcs []Source) (*Report, []File, error) {
	rep := &Report{}
	var files []File
	ids := map[string]string{}
	for _, s := range srcs {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		data, err := os.ReadFile(s.Path)
		if err != nil {
			return nil, nil, fmt.Errorf("migrate: %w", err)
		}
		id := CampaignID(s.Rel)
		if prev, dup := ids[id]; dup {
			return nil, nil, fmt.Errorf("migrate: %s and %s would both become campaign %q (content/%s)", prev, s.Path, id, contentDir(s.Rel))
		}
		ids[id] = s.Path
		srcName := filepath.Base(s.Path)
		srcRef := "results/" + id + "/src/" + srcName
		pg, err := Migrate(s.Path, data, id, srcRef)
		if err != nil {
			return nil, nil, err
		}
		pg.SrcName = srcName
		pg.Content = contentDir(s.Rel)
		fs, err := pg.Files(s.Rel)
		if err != nil {
			return nil, nil, err
		}
		if !pg.Plain {
			fs = append(fs, File{Path: srcRef, Data: data})
		}
		files = append(files, fs...)
		rep.Pages = append(rep.Pages, pg)
	}
	return rep, files, nil
}

// Write writes the planned files below out, each atomically. A campaign's
// results folder keeps only the results of this migration: a result file
// a previous run wrote that this one does not is removed, so that
// re-running converges on the same project.
func Write(out string, rep *Report, files []File) error {
	keep := map[string]bool{}
	for _, f := range files {
		keep[f.Path] = true
	}
	for _, pg := range rep.Pages {
		if pg.Plain {
			continue
		}
		dir := filepath.Join(out, "results", pg.Campaign.ID)
		old, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, o := range old {
			rel := "results/" + pg.Campaign.ID + "/" + filepath.Base(o)
			if !keep[rel] {
				if err := os.Remove(o); err != nil {
					return fmt.Errorf("migrate: %w", err)
				}
			}
		}
	}
	for _, f := range files {
		if err := schema.WriteAtomic(filepath.Join(out, filepath.FromSlash(f.Path)), f.Data); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		rep.Written = append(rep.Written, f.Path)
	}
	return nil
}
