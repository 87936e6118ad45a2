package render

import (
	"reflect"
	"testing"
)

// TestSearchEntriesCodec: the manifest's search file reads back as
// written; a truncated or padded one reads as none.
func TestSearchEntriesCodec(t *testing.T) {
	m := map[string]searchEntry{"a/": {Title: "A", URL: "a/index.html", Tags: "t", Text: "text"}, "b/": {}}
	data := encodeSearchEntries(m)
	if got := decodeSearchEntries(data); !reflect.DeepEqual(got, m) {
		t.Errorf("round trip: %v", got)
	}
	for n := 0; n < len(data); n++ {
		if decodeSearchEntries(data[:n]) != nil {
			t.Errorf("truncated to %d bytes: decoded", n)
		}
	}
	if decodeSearchEntries(append(data, 0)) != nil {
		t.Error("trailing byte: decoded")
	}
}
