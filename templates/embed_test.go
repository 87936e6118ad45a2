package templates

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"regexp"
	"testing"
)

// TestVendoredECharts: the embedded echarts.min.js is the file
// .ci/vendor-echarts.sh pinned (npm echarts@5.6.0), with its licence.
func TestVendoredECharts(t *testing.T) {
	script, err := os.ReadFile("../.ci/vendor-echarts.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^SHA256=([0-9a-f]{64})$`).FindSubmatch(script)
	if m == nil {
		t.Fatal("no SHA256= line in .ci/vendor-echarts.sh")
	}
	js, err := fs.ReadFile(FS, "assets/echarts.min.js")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(js)
	if got := hex.EncodeToString(sum[:]); got != string(m[1]) {
		t.Errorf("assets/echarts.min.js sha256 %s, pinned %s; run .ci/vendor-echarts.sh", got, m[1])
	}
	for _, f := range []string{"assets/echarts.LICENSE", "assets/echarts.NOTICE", "layout.html", "home.html", "blocks.html", "assets/site.css", "assets/site.js"} {
		if _, err := fs.Stat(FS, f); err != nil {
			t.Errorf("embedded %s: %v", f, err)
		}
	}
}
