// Package bytediff says where two byte strings first differ, for tests
// that hold an output to a reference byte for byte (generated writers to
// html/template, data.json to encoding/json, metrics to numpy): the
// offset and what surrounds it on each side, as a message.
package bytediff

import "fmt"

// At returns "" when got equals want, else "at byte N:" and the context
// bytes either side of the first difference in each, quoted.
func At[S ~string | ~[]byte](got, want S, context int) string {
	g, w := string(got), string(want)
	if g == w {
		return ""
	}
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	lo := max(0, i-context)
	return fmt.Sprintf("at byte %d:\n got …%q\nwant …%q", i, g[lo:min(len(g), i+context)], w[lo:min(len(w), i+context)])
}
