package blocks

import "testing"

// TestBreakableFileName: a result file's name wraps after "/" and "--"
// only; the browser broke "small-batch" at its hyphen.
func TestBreakableFileName(t *testing.T) {
	got := string(breakable("demo-mock-sweep/small-batch--chat--c32--r2.json"))
	want := `<span class="nw">demo-mock-sweep/</span><wbr><span class="nw">small-batch--</span><wbr><span class="nw">chat--</span><wbr><span class="nw">c32--</span><wbr><span class="nw">r2.json</span>`
	if got != want {
		t.Errorf("breakable:\n got %s\nwant %s", got, want)
	}
	if got := string(breakable("a<b>--c")); got != `<span class="nw">a&lt;b&gt;--</span><wbr><span class="nw">c</span>` {
		t.Errorf("breakable escapes: %s", got)
	}
}
