package schema

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestUnmarshalFastSame holds the one-pass decoder to encoding/json's: on
// every result in the repository (per-request records, sweeps, imports)
// and on documents at the edges of the two decoders' rules, what
// unmarshalFast takes decodes to the same Result as unmarshalChecked, and
// what it declines is left to unmarshalChecked (which accepts or words
// the error as before).
func TestUnmarshalFastSame(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "results", "*", "*.json"))
	if len(files) == 0 {
		t.Skip("no results/ in this checkout")
	}
	docs := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = string(data)
	}
	full, _ := Marshal(sample())
	edges := []struct {
		name, doc string
		fast      bool // unmarshalFast takes it
	}{
		{"sample", string(full), true},
		{"empty lists and nulls", `{"schema_version": 2, "id": "a", "warnings": [], "requests": [], "metadata": {}, "hardware": null, "summary": {"ttft_ms": null}}`, true},
		{"raw extra body keeps its spacing", `{"schema_version": 2, "id": "a", "load": {"extra_body": { "a" : [1, 2],  "b": "x" }}}`, true},
		{"escapes", `{"schema_version": 2, "id": "a\u00e9\n\"b\"", "error": "\ud83d\ude00"}`, true},
		// encoding/json matches names case-insensitively and takes the
		// last of duplicate names and invalid UTF-8: left to it.
		{"name in another case", `{"schema_version": 2, "ID": "a"}`, false},
		{"duplicate name", `{"schema_version": 2, "id": "a", "id": "b"}`, false},
		{"invalid UTF-8", "{\"schema_version\": 2, \"id\": \"a\xff\"}", false},
		{"newer version", `{"schema_version": 99, "id": "a"}`, false},
		{"no version", `{"id": "a"}`, false},
		{"trailing data", `{"schema_version": 2, "id": "a"}}`, false},
		{"unknown field", `{"schema_version": 2, "bogus": 1}`, false},
		{"wrong type", `{"schema_version": 2, "summary": {"completed": "x"}}`, false},
	}
	for _, e := range edges {
		docs[e.name] = e.doc
	}
	taken := 0
	for name, doc := range docs {
		want, werr := unmarshalChecked("x.json", []byte(doc))
		got, ok := unmarshalFast([]byte(doc))
		for _, e := range edges {
			if e.name == name && ok != e.fast {
				t.Errorf("%s: unmarshalFast took it: %v, want %v", name, ok, e.fast)
			}
		}
		if !ok {
			if strings.HasSuffix(name, ".json") {
				t.Errorf("%s: declined by unmarshalFast", name)
			}
			continue
		}
		taken++
		if werr != nil {
			t.Errorf("%s: unmarshalFast took what encoding/json rejects: %v", name, werr)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decoders differ:\nfast    %+v\nchecked %+v", name, got, want)
		}
		// What pages and data.json show is the re-encoding.
		a, _ := Marshal(got)
		b, _ := Marshal(want)
		if string(a) != string(b) {
			t.Errorf("%s: re-encodings differ", name)
		}
	}
	if taken < len(files) {
		t.Errorf("unmarshalFast took %d of %d documents", taken, len(docs))
	}
}

// TestUnmarshalKeepsNoBytes: a decoded Result holds nothing of the bytes
// it was decoded from (strings copied, the raw extra_body copied), on
// either decoder's path, so that a loader may read the next file into the
// same buffer (render's readInto): scribbling over the bytes after the
// decode leaves the Result as decoded from a fresh copy.
func TestUnmarshalKeepsNoBytes(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "results", "*", "*.json"))
	full, _ := Marshal(sample())
	docs := []string{
		string(full),
		`{"schema_version": 2, "id": "a", "load": {"extra_body": { "a" : [1, 2],  "b": "x" }}, "error": "e\n", "raw_output": "r"}`,
		// Declined by unmarshalFast (a name in another case): encoding/json.
		`{"schema_version": 2, "ID": "a", "load": {"extra_body": {"a": "b"}}, "error": "e"}`,
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(data))
	}
	extra := 0
	for i, doc := range docs {
		buf := []byte(doc)
		got, err := Unmarshal("x.json", buf)
		if err != nil {
			t.Fatalf("doc %d: %v", i, err)
		}
		for j := range buf {
			buf[j] = 'X'
		}
		want, err := Unmarshal("x.json", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("doc %d: the decoded Result changed with the bytes it came from:\ngot  %+v\nwant %+v", i, got, want)
		}
		if want.Load.ExtraBody != nil {
			extra++
		}
	}
	if extra < 2 {
		t.Errorf("only %d documents with extra_body", extra)
	}
}
