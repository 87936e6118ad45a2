package campaignfile

import (
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

var (
	reErrAt = regexp.MustCompile(`^c\.yaml:([0-9]+): `)
	// a field that is missing from the whole file has no line: the
	// message names the file and the field
	reMissing = regexp.MustCompile(`^c\.yaml: [a-z_]+: missing\b`)
)

// FuzzParse feeds campaign files to Parse and CheckIDs. An accepted
// campaign re-encodes as YAML and parses to the same value; a rejected one
// gets errors that each name the file and a line of it (an empty document
// has no line: it names the file; a missing top-level field names the
// file and the field).
func FuzzParse(f *testing.F) {
	f.Add([]byte(valid))
	for _, p := range []string{
		"../../../content/demo/mock-h100/campaign.yaml",
		"../../../content/demo/mock-sweep/campaign.yaml",
		"../../../content/qwen3-32b/h100/campaign.yaml",
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("id: x\nprofiles:\n  - {id: p, dataset: random, input_len: 1.5, <<: &a {seed: 2}}\n  - *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("c.yaml", data)
		if err == nil {
			err = Errors(file.Path, file.CheckIDs())
		}
		if err != nil {
			checkErrLines(t, err, data)
			return
		}
		out, err := yaml.Marshal(&file.Campaign)
		if err != nil {
			t.Fatalf("accepted campaign does not encode: %v", err)
		}
		back, err := Parse("c.yaml", out)
		if err != nil {
			t.Fatalf("re-encoded campaign does not parse: %v\n%s", err, out)
		}
		if !same(reflect.ValueOf(back.Campaign), reflect.ValueOf(file.Campaign)) {
			t.Fatalf("campaign changes through YAML:\n%#v\n---\n%#v\n%s", file.Campaign, back.Campaign, out)
		}
	})
}

func checkErrLines(t *testing.T, err error, data []byte) {
	t.Helper()
	lines := strings.Count(string(data), "\n") + 1
	for _, msg := range strings.Split(err.Error(), "\n") {
		if msg == "c.yaml: empty campaign file" || reMissing.MatchString(msg) || strings.HasPrefix(msg, "  ") {
			continue
		}
		m := reErrAt.FindStringSubmatch(msg)
		if m == nil {
			t.Fatalf("error does not name c.yaml:line: %q (of %v)", msg, err)
		}
		if n, _ := strconv.Atoi(m[1]); n < 1 || n > lines {
			t.Fatalf("error names line %d of a %d-line file: %v", n, lines, err)
		}
	}
}

// same is reflect.DeepEqual for decoded values, where an empty slice or
// map and a nil one mean the same (YAML writes both as [] or leaves them
// out).
func same(a, b reflect.Value) bool {
	if a.Kind() != b.Kind() {
		return false
	}
	switch a.Kind() {
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !same(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			if v := b.MapIndex(k); !v.IsValid() || !same(a.MapIndex(k), v) {
				return false
			}
		}
		return true
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return same(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if !same(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float() || a.Float() != a.Float() && b.Float() != b.Float()
	default:
		return a.Equal(b)
	}
}
