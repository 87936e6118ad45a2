package render

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"sync/atomic"
	"testing"
)

// countdownCtx is a context that reads as cancelled (Err) from its n+1st
// look on: a Ctrl-C landing at every point of a build in turn.
type countdownCtx struct {
	context.Context
	left atomic.Int64
}

func (c *countdownCtx) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestBuildCancelledAnywhere: a build cancelled (Ctrl-C) at any point
// either fails and leaves no site, or swaps in the whole site, byte for
// byte the one an uncancelled build writes. The home page, the assets
// and the static files are rendered by the pages' workers after the
// pages; a cancellation seen as they were taken used to skip them
// silently, and a site without its stylesheet and campaign files was
// swapped in as if built.
func TestBuildCancelledAnywhere(t *testing.T) {
	opt := Options{Content: fixtureSite + "/content", Results: fixtureSite + "/results", NoCache: true}
	ref := opt
	ref.Out = filepath.Join(t.TempDir(), "site")
	if err := Build(context.Background(), ref); err != nil {
		t.Fatal(err)
	}
	want := treeOf(t, ref.Out)
	succeeded := 0
	for n := int64(0); n < 400 && succeeded < 3; n++ {
		ctx := &countdownCtx{Context: context.Background()}
		ctx.left.Store(n)
		o := opt
		o.Out = filepath.Join(t.TempDir(), "site")
		err := Build(ctx, o)
		if err != nil {
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled after %d looks: %v", n, err)
			}
			if _, serr := os.Stat(o.Out); serr == nil {
				t.Fatalf("cancelled after %d looks: the build failed (%v) but swapped a site in", n, err)
			}
			continue
		}
		succeeded++
		got := treeOf(t, o.Out)
		var missing, differ []string
		for p, b := range want {
			if g, ok := got[p]; !ok {
				missing = append(missing, p)
			} else if !bytes.Equal(g, b) {
				differ = append(differ, p)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 || len(differ) > 0 || len(got) != len(want) {
			t.Fatalf("cancelled after %d looks: the build succeeded with %d files of %d; missing %q, different %q", n, len(got), len(want), missing, differ)
		}
	}
	if succeeded == 0 {
		t.Fatal("no build ran to its end: the countdown never outlasted a build")
	}
}
