package nav

import "testing"

// TestBuildNumbers: Build numbers the tree for Holds, and a URL on two
// nodes, which the numbering cannot answer, is answered by walking.
func TestBuildNumbers(t *testing.T) {
	v := Build(Links{BaseURL: "/"}, []Report{{Objective: "throughput", Model: "m", Label: "H100", URL: "m/h100/"}},
		[]Page{{Title: "About", URL: "about/"}, {Title: "Deep", URL: "guide/deep/"}}, func(seg string) string { return seg })
	var walk func(ns []*Node)
	walk = func(ns []*Node) {
		for _, n := range ns {
			if n.idx == nil || n.idx.dup {
				t.Fatalf("node %q not numbered", n.Title)
			}
			walk(n.Children)
		}
	}
	walk(v.Groups)
	if !v.Groups[0].Holds("m/h100/") || v.Groups[0].Holds("about/") || !v.Groups[1].Holds("guide/deep/") {
		t.Error("Holds answers wrongly from the numbering")
	}
	a, b := &Node{Title: "a", URL: "x/"}, &Node{Title: "b", URL: "x/"}
	dup := Tree{Groups: []*Node{{Title: "g", Children: []*Node{a}}, {Title: "h", Children: []*Node{b}}}}
	dup.numberNodes()
	if !dup.Groups[0].Holds("x/") || !dup.Groups[1].Holds("x/") {
		t.Error("with a URL on two nodes, each group should hold it")
	}
}
