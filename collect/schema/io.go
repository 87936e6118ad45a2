package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
)

// Marshal encodes r deterministically: two-space indentation, fields in
// declaration order, map keys sorted, a trailing newline. It sets
// SchemaVersion to Version when it is zero.
func Marshal(r *Result) ([]byte, error) {
	if r.SchemaVersion == 0 {
		r.SchemaVersion = Version
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("schema: encode %s: %w", r.ID, err)
	}
	return buf.Bytes(), nil
}

// DeclaresVersion reports whether data is a JSON object with a top-level
// schema_version member, read token by token up to the first damage: a
// perflab result (however damaged after that member), as opposed to
// another tool's benchmark output (vLLM's JSON, guidellm's), which has
// none. perflab writes the member first.
func DeclaresVersion(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for {
		k, err := dec.Token()
		if err != nil {
			return false
		}
		if k == "schema_version" {
			return true
		}
		if _, ok := k.(string); !ok { // the object's end
			return false
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
}

// Unmarshal decodes a result. name (a file name) prefixes every error, with
// the line and column and, for a wrong type, the field. Unknown fields and
// schema versions newer than Version are rejected.
func Unmarshal(name string, data []byte) (*Result, error) {
	if r, ok := unmarshalFast(data); ok {
		return r, nil
	}
	return unmarshalChecked(name, data)
}

// unmarshalFast decodes a well-formed result in one pass with json v2
// (github.com/go-json-experiment/json, the prototype of Go's
// encoding/json/v2): about six times faster than the version probe and
// the strict encoding/json decode below, which were half of loading a
// site of 14,000 results. It is stricter than encoding/json (names match
// case-sensitively; duplicate names and invalid UTF-8 are errors) and
// takes only a version this perflab reads, so anything it declines goes
// to unmarshalChecked, which decides as before and words the error; what
// it takes decodes to the same Result (TestUnmarshalFastSame).
func unmarshalFast(data []byte) (*Result, bool) {
	var r Result
	if jsonv2.Unmarshal(data, &r, jsonv2.RejectUnknownMembers(true)) != nil {
		return nil, false
	}
	if r.SchemaVersion < 1 || r.SchemaVersion > Version {
		return nil, false
	}
	return &r, true
}

// unmarshalChecked is Unmarshal with encoding/json: the schema version
// first (a newer file may hold fields this perflab does not know), then
// the strict decode; errors name the line, column and field.
func unmarshalChecked(name string, data []byte) (*Result, error) {
	var probe struct {
		SchemaVersion *int `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, jsonError(name, data, err)
	}
	switch {
	case probe.SchemaVersion == nil:
		return nil, fmt.Errorf("%s: missing field schema_version: not a perflab result", name)
	case *probe.SchemaVersion < 1:
		return nil, fmt.Errorf("%s: field schema_version: invalid version %d", name, *probe.SchemaVersion)
	case *probe.SchemaVersion > Version:
		return nil, fmt.Errorf("%s: field schema_version: version %d is newer than this perflab reads (up to %d); upgrade perflab", name, *probe.SchemaVersion, Version)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Result
	if err := dec.Decode(&r); err != nil {
		return nil, jsonError(name, data, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s:%d: trailing data after the result", name, lineOf(data, dec.InputOffset()))
	}
	return &r, nil
}

// jsonError turns an encoding/json error into "file:line:col: …".
func jsonError(name string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		l, c := lineCol(data, syn.Offset)
		return fmt.Errorf("%s:%d:%d: malformed JSON: %w", name, l, c, err)
	case errors.As(err, &typ):
		l, c := lineCol(data, typ.Offset)
		return fmt.Errorf("%s:%d:%d: field %s: cannot use JSON %s as %s", name, l, c, typ.Field, typ.Value, typ.Type)
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
		return fmt.Errorf("%s: truncated JSON: %w", name, err)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.TrimPrefix(err.Error(), "json: unknown field ")
		unq := strings.Trim(field, `"`)
		line := 0
		if i := bytes.Index(data, []byte(`"`+unq+`"`)); i >= 0 {
			line, _ = lineCol(data, int64(i))
		}
		if line > 0 {
			return fmt.Errorf("%s:%d: unknown field %s", name, line, field)
		}
		return fmt.Errorf("%s: unknown field %s", name, field)
	}
	return fmt.Errorf("%s: %w", name, err)
}

func lineOf(data []byte, off int64) int { l, _ := lineCol(data, off); return l }

// lineCol converts a byte offset to a 1-based line and column.
func lineCol(data []byte, off int64) (int, int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// ReadFile reads one result file.
func ReadFile(path string) (*Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return Unmarshal(path, data)
}

// WriteFile writes r to path atomically: a temporary file in the same
// directory, synced, then renamed over path. Readers never see a
// half-written result.
func WriteFile(path string, r *Result) error {
	data, err := Marshal(r)
	if err != nil {
		return err
	}
	return WriteAtomic(path, data)
}

// WriteAtomic writes data to path through a temporary file and a rename.
func WriteAtomic(path string, data []byte) error { return WriteAtomicTo(nil, path, data) }

// TempFile is the temporary file WriteAtomicTo writes before renaming it
// into place; *os.File is one.
type TempFile interface {
	io.Writer
	Sync() error
	Close() error
	Name() string
}

// Storage creates WriteAtomicTo's temporary files, as os.CreateTemp. A
// nil Storage is the operating system's; tests inject the faults of a
// full or failing disk (ENOSPC, EIO) through one.
type Storage func(dir, pattern string) (TempFile, error)

// TempPattern is the name pattern of the temporary file that
// WriteAtomic writes for path (os.CreateTemp's "*" is a random number):
// hidden, so that readers skip it.
func TempPattern(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// WriteFileTo is WriteFile through st.
func WriteFileTo(st Storage, path string, r *Result) error {
	data, err := Marshal(r)
	if err != nil {
		return err
	}
	return WriteAtomicTo(st, path, data)
}

// WriteAtomicTo is WriteAtomic with the temporary file from st (nil: the
// operating system). Whatever fails, path keeps its old content (or stays
// absent) and the temporary file is removed.
func WriteAtomicTo(st Storage, path string, data []byte) error {
	if st == nil {
		st = func(dir, pattern string) (TempFile, error) { return os.CreateTemp(dir, pattern) }
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	f, err := st(dir, TempPattern(path))
	if err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("schema: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("schema: sync %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("schema: close %s: %w", path, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	return nil
}

// ReadDir reads every *.json result below dir (recursively), sorted by
// path. Files whose name starts with "." (temporaries) are skipped; a JSON
// file without schema_version is an error, so stray files are noticed.
func ReadDir(dir string) ([]*Result, error) {
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != dir && strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !IsResultFile(name) {
			return nil
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	sort.Strings(paths)
	return readFiles(paths)
}

// ReadShown reads the results of the round of the campaign results
// directory dir that the pages show (Shown): round 1's files leave out
// rounds/, so one round's results never mix with another's. A dir with
// no round holding a finished result gives none.
func ReadShown(dir string) ([]*Result, error) {
	rd, ok, err := Shown(dir)
	if err != nil || !ok {
		return nil, err
	}
	return ReadRoundResults(rd)
}

// ReadRoundResults reads every result of one round.
func ReadRoundResults(rd RoundDir) ([]*Result, error) {
	paths, err := RoundFiles(rd)
	if err != nil {
		return nil, err
	}
	return readFiles(paths)
}

func readFiles(paths []string) ([]*Result, error) {
	out := make([]*Result, 0, len(paths))
	for _, p := range paths {
		r, err := ReadFile(p)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
