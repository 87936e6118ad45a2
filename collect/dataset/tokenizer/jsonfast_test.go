package tokenizer

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

// TestVocabJSONMatchesEncodingJSON decodes tricky keys with our reader and
// with encoding/json.
func TestVocabJSONMatchesEncodingJSON(t *testing.T) {
	keys := []string{
		`"plain"`, `"Ġthe"`, `"\u0120the"`, `"quote\"d"`, `"back\\slash"`, `"\/"`, `"\b\f\n\r\t"`,
		`"\ud83d\ude00"`, // surrogate pair: 😀
		`"\ud83d"`,       // lone high surrogate: U+FFFD
		`"\ude00x"`,      // lone low surrogate
		`"\ud83dA"`,      // high surrogate then a letter
		`"\ud83d\u0041"`, // high surrogate then an escaped non-surrogate
		`"你好"`, "\"bad\xffbyte\"", `"mixed\u00e9é"`,
	}
	doc := "{"
	for i, k := range keys {
		if i > 0 {
			doc += ",\n "
		}
		doc += k + ": " + string(rune('0'+i%10))
	}
	doc += "}"
	var want map[string]int32
	if err := json.Unmarshal([]byte(doc), &want); err != nil {
		t.Fatal(err)
	}
	var got vocabJSON
	if err := json.Unmarshal([]byte(doc), &got); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got.entries, want) {
		t.Errorf("got  %q\nwant %q", got.entries, want)
	}
}

func TestMergesJSONBothForms(t *testing.T) {
	var a, b mergesJSON
	if err := json.Unmarshal([]byte(`["a b", "\u0120 t", "x  y"]`), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`[["a", "b"], ["Ġ", "t"], ["x", " y"]]`), &b); err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"a", "b"}, {"Ġ", "t"}, {"x", " y"}}
	if !slices.Equal(a.pairs, want) || !slices.Equal(b.pairs, want) {
		t.Errorf("strings %q, pairs %q, want %q", a.pairs, b.pairs, want)
	}
	var c mergesJSON
	if err := json.Unmarshal([]byte(`[["a"]]`), &c); err == nil {
		t.Error("one-token pair accepted")
	}
}
