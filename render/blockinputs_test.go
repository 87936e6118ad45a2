package render

import (
	"bytes"
	"context"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/render/blocks"
)

// noteBlock is a block type no perflab has: it shows a file named by its
// title, read through the Reader the page hands it. Nothing in the build
// cache, the input stat cache, the site stamp, the output manifest or
// the preview server's Builder knows of it: that the page is rebuilt
// when the file changes follows from the read being recorded.
func noteBlock(c *blocks.Ctx, w *bytes.Buffer, spec BlockSpec) error {
	data, _, err := c.In().ReadFile(spec.Title)
	if err != nil {
		return err
	}
	w.WriteString("<p class=\"note\">")
	w.WriteString(template.HTMLEscapeString(string(data)))
	w.WriteString("</p>\n")
	return nil
}

// TestBlockInputTracked: a block that reads a new kind of input (a file
// outside content/ and results/, named in its spec) gets its page
// rebuilt when that file is edited: through the site stamp, the output
// manifest and the build cache of perflab build, and through the
// preview server's incremental Builder, with no cache code told about
// the file. Each build is compared with one without the cache.
func TestBlockInputTracked(t *testing.T) {
	dir := copyFixture(t)
	note := filepath.Join(t.TempDir(), "note.txt")
	writeFile(t, note, "first note")
	page := filepath.Join(dir, "content", "demo", "h100", "index.md")
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, page, string(src)+"\n```perflab\nblock: note\ntitle: "+note+"\n```\n")
	opt := Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"),
		CacheDir: filepath.Join(dir, "cache"), Out: filepath.Join(dir, "site"),
		blocks: map[string]blocks.Func{"note": noteBlock}}
	out := filepath.Join(opt.Out, "demo", "h100", "index.html")
	build := func(what, want string) Stats {
		t.Helper()
		st, err := BuildStats(context.Background(), opt)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := readFile(t, out); !strings.Contains(got, `<p class="note">`+want+`</p>`) {
			t.Fatalf("%s: the page does not show %q", what, want)
		}
		o := opt
		o.NoCache, o.Out = true, filepath.Join(t.TempDir(), "site")
		if err := Build(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		sameTree(t, what, opt.Out, o.Out)
		return st
	}
	// Changes made now are older than the next build's start (the racy
	// rule of the stat cache and the stamp) once the clock has moved on.
	settle := func() { time.Sleep(30 * time.Millisecond) }
	settle()
	build("cold", "first note")
	settle()
	build("warm", "first note") // writes the stamp
	if st := build("unchanged", "first note"); !st.Unchanged {
		t.Fatal("an unchanged rebuild was not stamped unchanged: the test would prove nothing")
	}

	// Edited: the stamp, the manifest and the cache all record the note.
	writeFile(t, note, "second, longer note")
	settle()
	if st := build("note edited", "second, longer note"); st.Unchanged {
		t.Error("the edited note was missed by the site stamp")
	}
	// The same size, Out deleted: only the build cache could serve the
	// page, and must not.
	os.RemoveAll(opt.Out)
	writeFile(t, note, "second, longer NOTE")
	settle()
	build("note edited, out deleted", "second, longer NOTE")
	// Deleted: the block's error, not the page as it was.
	os.Remove(note)
	if _, err := BuildStats(context.Background(), opt); err == nil || !strings.Contains(err.Error(), "note.txt") {
		t.Errorf("note deleted: %v, want an error naming it", err)
	}

	// The preview server's Builder: an incremental build for the note.
	writeFile(t, note, "served note")
	settle()
	b := NewBuilder(opt)
	if _, err := b.Build(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	writeFile(t, note, "served note, edited")
	inc, err := b.Build(context.Background(), []string{note})
	if err != nil {
		t.Fatal(err)
	}
	if inc.Full || len(inc.Pages) == 0 || inc.Pages[0] != "demo/h100/" {
		t.Errorf("Builder: %+v, want the report rendered again incrementally", inc)
	}
	if got := readFile(t, out); !strings.Contains(got, `<p class="note">served note, edited</p>`) {
		t.Error("Builder: the page does not show the edited note")
	}
}
