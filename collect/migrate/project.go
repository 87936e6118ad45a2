package migrate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
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
// for *.md (sorted, hidden entries skipped). Folders named in skip (the
// migration's own --out, when it lies inside a source folder) are not
// walked: a re-run would otherwise migrate the project it wrote before.
func Sources(args []string, skip ...string) ([]Source, error) {
	var skipAbs []string
	for _, s := range skip {
		if abs, err := filepath.Abs(s); err == nil && s != "" {
			skipAbs = append(skipAbs, abs)
		}
	}
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
		if abs, err := filepath.Abs(a); err == nil && slices.Contains(skipAbs, abs) {
			return nil, fmt.Errorf("migrate: %s is both a source folder and the --out folder: write the project to another folder", a)
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
			if d.IsDir() && len(skipAbs) > 0 {
				if abs, err := filepath.Abs(p); err == nil && slices.Contains(skipAbs, abs) {
					return filepath.SkipDir
				}
			}
			if !d.IsDir() && (strings.EqualFold(filepath.Ext(p), ".md") || pageLike(p)) {
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

// pageLike: a .txt or .markdown file that is a Markdown page saved under
// another name (a lab's pages as received: its first line a "# " heading
// or front matter). Other text files of a folder (logs, raw outputs) are
// not pages.
func pageLike(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".txt" && ext != ".markdown" {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := f.Read(buf)
	head := strings.TrimLeft(strings.TrimPrefix(string(buf[:n]), "\ufeff"), " \t\r\n")
	return strings.HasPrefix(head, "# ") || strings.HasPrefix(head, "---\n") || strings.HasPrefix(head, "---\r\n")
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
	dir := contentDir(rel)
	id := idSlug(strings.ReplaceAll(dir, "/", "-"))
	switch {
	case dir == "":
		id = "index"
	case id == "":
		// A path with no ASCII letter or digit ("性能/基线.md"): an id
		// from its hash, so that two such pages do not collide.
		sum := sha256.Sum256([]byte(dir))
		id = "page-" + hex.EncodeToString(sum[:4])
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
		if !strings.EqualFold(path.Ext(name), ".md") {
			name = strings.TrimSuffix(name, path.Ext(name)) + ".md" // a page saved as .txt
		}
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
	index := pg.Index
	if base := strings.TrimSuffix(path.Base(filepath.ToSlash(rel)), path.Ext(rel)); !strings.EqualFold(base, "index") && !strings.EqualFold(base, "readme") {
		// a/b.md becomes a/b/index.md: its relative links go one folder up.
		index = deeperLinks(index)
	}
	out = append(out,
		File{Path: filepath.ToSlash(filepath.Join("content", dir, "index.md")), Data: index},
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
// would write. Nothing is written. A page that cannot be migrated (not
// text, code fences that do not pair up, front matter that is not YAML)
// stops nothing: it is reported as not migrated (an ambiguity of kind
// "page") and the other pages go on. Only a source that cannot be read
// or a cancelled context ends the plan.
func Plan(ctx context.Context, srcs []Source) (*Report, []File, error) {
	rep := &Report{}
	var files []File
	ids := map[string]string{}
	copied := map[string]bool{}
	for _, s := range srcs {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		data, err := os.ReadFile(s.Path)
		if err != nil {
			return nil, nil, fmt.Errorf("migrate: %w", err)
		}
		id := CampaignID(s.Rel)
		dupNote := ""
		if prev, dup := ids[id]; dup {
			// Two pages whose paths slug alike ("a b.md", "a-b.md"): the
			// later one's campaign gets a suffix.
			base := id
			id = uniqueID(base, func(x string) bool { _, ok := ids[x]; return ok })
			dupNote = fmt.Sprintf("%s: campaign %s, since %s already has campaign %s", s.Path, id, prev, base)
		}
		ids[id] = s.Path
		srcName := filepath.Base(s.Path)
		srcRef := "results/" + id + "/src/" + srcName
		pg, fs, err := planPage(s, data, id, srcRef)
		if err != nil {
			// "migrate: FILE:LINE: why" → FILE:LINE and why.
			loc, msg := s.Path, strings.TrimPrefix(err.Error(), "migrate: ")
			if rest, ok := strings.CutPrefix(msg, s.Path+":"); ok {
				if n, why, ok := strings.Cut(rest, ":"); ok && n != "" && strings.Trim(n, "0123456789") == "" {
					loc, msg = s.Path+":"+n, strings.TrimSpace(why)
				} else {
					msg = strings.TrimSpace(rest)
				}
			}
			rep.Pages = append(rep.Pages, &Page{Source: s.Path, Skipped: true, Content: contentDir(s.Rel),
				Ambiguities: []Ambiguity{{Loc: loc, Kind: "page", Msg: "not migrated: " + msg}}})
			continue
		}
		if dupNote != "" {
			pg.Notes = append(pg.Notes, dupNote)
		}
		files = append(files, fs...)
		files = append(files, pg.assets(s, data, copied)...)
		rep.Pages = append(rep.Pages, pg)
	}
	return rep, files, nil
}

// planPage migrates one page and lays it out as files.
func planPage(s Source, data []byte, id, srcRef string) (pg *Page, fs []File, err error) {
	if err := guardPage(s.Path, func() (err error) {
		pg, err = Migrate(s.Path, data, id, srcRef)
		return err
	}); err != nil {
		return nil, nil, err
	}
	pg.SrcName = filepath.Base(s.Path)
	pg.Content = contentDir(s.Rel)
	fs, err = pg.Files(s.Rel)
	if err != nil {
		return nil, nil, err
	}
	if !pg.Plain {
		fs = append(fs, File{Path: srcRef, Data: data})
	}
	return pg, fs, nil
}

// assets are the files other than pages that the migrated page still links
// to (images that are no chart, downloads), copied to the same place below
// content/ so that its links keep working. A file outside the folder
// migrated has no place there: the page's link to it is reported. copied
// lists the assets already copied for another page.
func (pg *Page) assets(s Source, data []byte, copied map[string]bool) []File {
	root := filepath.Dir(s.Path)
	for range strings.Split(filepath.ToSlash(s.Rel), "/")[1:] {
		root = filepath.Dir(root)
	}
	dests := localLinks(pg.Index)
	var out []File
	for _, d := range dests {
		file := d
		if u, err := url.PathUnescape(d); err == nil {
			file = u // "my%20chart.png" names "my chart.png"
		}
		target := filepath.Join(filepath.Dir(s.Path), filepath.FromSlash(file))
		st, err := os.Stat(target)
		if err != nil || !st.Mode().IsRegular() {
			continue // a link that was broken already
		}
		rel, err := filepath.Rel(root, target)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			pg.Ambiguities = append(pg.Ambiguities, Ambiguity{
				Loc: pg.lineOf(data, d), Kind: "link",
				Msg: fmt.Sprintf("the page links to %s, outside the folder migrated: not copied, the link will not work (migrate the folder that holds it)", d)})
			continue
		}
		p := "content/" + filepath.ToSlash(rel)
		if copied[p] {
			continue
		}
		b, err := os.ReadFile(target)
		if err != nil {
			pg.Ambiguities = append(pg.Ambiguities, Ambiguity{Loc: pg.lineOf(data, d), Kind: "link", Msg: fmt.Sprintf("the page links to %s, which cannot be read: %v", d, err)})
			continue
		}
		copied[p] = true
		pg.Notes = append(pg.Notes, fmt.Sprintf("%s: %s copied to %s (the page links to it)", pg.lineOf(data, d), d, p))
		out = append(out, File{Path: p, Data: b})
	}
	return out
}

// lineOf names the first source line that holds dest (FILE:LINE), FILE
// alone when none does.
func (pg *Page) lineOf(data []byte, dest string) string {
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, dest) {
			return fmt.Sprintf("%s:%d", pg.Source, i+1)
		}
	}
	return pg.Source
}

// Write writes the planned files below out, all or nothing: the project
// is assembled in a folder beside out (out's present files linked in, so
// that files this migration does not write are kept), then swapped in by
// renames, as perflab build swaps its site. A failure before the swap
// (a file that cannot be written) leaves out as it was. A campaign's
// results folder keeps only the results of this migration: a result file
// a previous run wrote that this one does not is left out, so that
// re-running converges on the same project.
func Write(out string, rep *Report, files []File) (err error) {
	abs, err := filepath.Abs(out)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real // swap the folder a link names, not the link
	}
	parent := filepath.Dir(abs)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(abs)+".migrate-")
	if err != nil {
		return fmt.Errorf("migrate: write aside: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	keep := map[string]bool{}
	for _, f := range files {
		keep[f.Path] = true
	}
	stale := map[string]bool{} // results/<id> folders this run owns
	for _, pg := range rep.Pages {
		if !pg.Plain && !pg.Skipped && pg.Campaign != nil {
			stale["results/"+pg.Campaign.ID] = true
		}
	}
	st, statErr := os.Stat(abs)
	exists := statErr == nil
	if exists && !st.IsDir() {
		return fmt.Errorf("migrate: --out %s is not a folder", out)
	}
	if exists {
		if err := linkTree(abs, tmp, func(rel string) bool {
			dir := path.Dir(rel)
			return strings.HasSuffix(rel, ".json") && stale[dir] && !keep[rel]
		}); err != nil {
			return fmt.Errorf("migrate: write aside: %w", err)
		}
	}
	var written []string
	for _, f := range files {
		if err := schema.WriteAtomic(filepath.Join(tmp, filepath.FromSlash(f.Path)), f.Data); err != nil {
			return fmt.Errorf("migrate: %s: %w", f.Path, err)
		}
		written = append(written, f.Path)
	}
	if !exists {
		if err := os.Rename(tmp, abs); err != nil {
			return fmt.Errorf("migrate: swap: %w", err)
		}
	} else {
		old := tmp + ".old"
		if err := os.Rename(abs, old); err != nil {
			return fmt.Errorf("migrate: swap: %w", err)
		}
		if err := os.Rename(tmp, abs); err != nil {
			_ = os.Rename(old, abs)
			return fmt.Errorf("migrate: swap: %w", err)
		}
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("migrate: swap: remove the previous project: %w", err)
		}
	}
	rep.Written = written
	return nil
}

// linkTree recreates src's tree below dst, its files hard-linked (copied
// where links are refused), symlinks as symlinks; files skip names (paths
// relative to src, slash-separated) are left out.
func linkTree(src, dst string, skip func(rel string) bool) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil || rel == "." {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(target, info.Mode().Perm()|0o700)
		case info.Mode()&fs.ModeSymlink != 0:
			l, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(l, target)
		case !info.Mode().IsRegular():
			return nil // a socket or device has no place in a project
		case skip(filepath.ToSlash(rel)):
			return nil
		}
		if os.Link(p, target) == nil {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}

// guardPage runs the migration of the page at path. A page is input
// perflab does not control, and a bug its reading meets must cost that
// page, not the lab's migration: a panic becomes the page's error, so the
// page is reported as not migrated (with what to report) and the others go on.
func guardPage(path string, migrate func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("migrate: %s: perflab failed on this page (a bug: please report it with the page): %v", path, r)
		}
	}()
	return migrate()
}
