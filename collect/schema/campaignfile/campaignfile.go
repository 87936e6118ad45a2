package campaignfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/perflab/perflab/collect/schema"
)

// File is a campaign read from a file, with the YAML positions of its
// fields so that errors found later can name file:line.
type File struct {
	// Path is the file's name as given (errors start with it).
	Path     string
	Campaign schema.Campaign
	pos      *positions
}

// positions is the file's YAML node tree, parsed the first time an error
// needs a line: a campaign that decodes cleanly is parsed once, not twice
// (the second parse was half of reading 1,000 campaigns in a build).
type positions struct {
	once sync.Once
	data []byte
	root *yaml.Node
}

// node returns the file's top-level node, or nil.
func (f *File) node() *yaml.Node {
	if f.pos == nil {
		return nil
	}
	f.pos.once.Do(func() {
		var root yaml.Node
		if yaml.Unmarshal(f.pos.data, &root) == nil && len(root.Content) > 0 {
			f.pos.root = root.Content[0]
		}
		f.pos.data = nil
	})
	return f.pos.root
}

// Read reads and decodes a campaign file (see Parse). It does not check
// ids: see CheckIDs.
func Read(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("campaign: %w", err)
	}
	return Parse(path, data)
}

// Parse decodes a campaign from data; name prefixes errors. Unknown
// fields, wrong types and malformed YAML are errors naming name:line; an
// empty document is an error too. The File keeps data for its positions
// (Line, Has): data must not change afterwards.
func Parse(name string, data []byte) (*File, error) {
	f := &File{Path: name, pos: &positions{data: data}}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	// A tagged scalar (!!float "1.5") is a float whatever its spelling:
	// like an untagged fraction, only the checked path sees it.
	if decode(dec, &f.Campaign) == nil && bytes.IndexByte(data, '!') < 0 && !mayHoldFraction(data) {
		f.Campaign.DefaultChosen()
		return f, nil
	}
	// An empty document or an error: decide and word it as always, with
	// the node tree at hand.
	f.Campaign = schema.Campaign{}
	var root yaml.Node
	lines := countLines(data)
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, decodeError(name, 0, nil, lines, err, nil, nil)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty campaign file", name)
	}
	f.pos = &positions{root: root.Content[0]}
	f.pos.once.Do(func() {})
	if err := DecodeStrict(data, &f.Campaign); err != nil {
		return nil, decodeError(name, 0, f.pos.root, lines, err, nil, nil)
	}
	f.Campaign.DefaultChosen()
	return f, nil
}

// mayHoldFraction reports whether data has a word that YAML could read as
// a float with a fractional part or an exponent (1.5, .5, 2e-1): only then
// can yaml.v3 have truncated a value into an integer field without an
// error, so only then does Parse need DecodeStrict's check over the node
// tree. Words are split at YAML's flow and blank characters and at every
// byte of a non-ASCII character (a float word is ASCII; yaml.v3 also
// breaks lines at NEL, U+2028 and U+2029, so that "{weight:\u0085 2.5}"
// without the space holds the word 2.5); a false positive (a comment, a
// quoted string, a float field such as request_rate: 0.5, a word after
// an accented letter) only costs the slower path.
func mayHoldFraction(data []byte) bool {
	start, cand, digit, mark := -1, false, false, false
	for i := 0; i <= len(data); i++ {
		if i < len(data) && !wordBreak[data[i]] {
			if start < 0 {
				start, cand, digit, mark = i, true, false, false
			}
			// floatWord matches only words of these bytes (once the
			// underscores are gone) with a digit and a point or an
			// exponent: any other word is skipped without the regexp,
			// which was most of the time Parse spent here.
			c := data[i]
			cand = cand && floatByte[c]
			digit = digit || '0' <= c && c <= '9'
			mark = mark || c == '.' || c == 'e' || c == 'E'
			continue
		}
		if start >= 0 && cand && digit && mark {
			w := data[start:i]
			// yaml.v3 drops underscores before it tries a number (1_0.5 is 10.5)
			if bytes.IndexByte(w, '_') >= 0 {
				w = bytes.ReplaceAll(w, []byte("_"), nil)
			}
			if floatWord.Match(w) {
				return true
			}
		}
		start = -1
	}
	return false
}

// wordBreak marks the bytes mayHoldFraction splits words at: YAML's flow
// and blank characters, the starts of comments and quoted strings, and
// the bytes of non-ASCII characters (among them YAML's other line breaks).
// floatByte marks the bytes a word floatWord matches can hold, with the
// underscores yaml.v3 drops.
var wordBreak, floatByte = nonASCII(byteSet(" \t\r\n,[]{}:#\"'")), byteSet("0123456789+-.eE_")

// nonASCII adds the bytes from 0x80 up to set.
func nonASCII(set [256]bool) [256]bool {
	for c := 0x80; c < 0x100; c++ {
		set[c] = true
	}
	return set
}

func byteSet(s string) (set [256]bool) {
	for i := range len(s) {
		set[s[i]] = true
	}
	return set
}

// floatWord is yaml.v3's float syntax with a fraction or an exponent.
var floatWord = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+\.[0-9]*|[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+)([eE][-+]?[0-9]+)?$`)

// decode is dec.Decode(v) that returns yaml.v3's own panics as errors:
// a merge key (<<) in a mapping that also has a mapping as a key makes
// yaml.v3 hash the unhashable key and panic (found by FuzzParse); a
// campaign or page must get an error, not stop perflab.
func decode(dec *yaml.Decoder, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed YAML the decoder cannot read (%v)", r)
		}
	}()
	return dec.Decode(v)
}

// Unmarshal is yaml.Unmarshal with decode's guard against yaml.v3's
// panics.
func Unmarshal(data []byte, v any) error {
	err := decode(yaml.NewDecoder(bytes.NewReader(data)), v)
	if errors.Is(err, io.EOF) {
		return nil // an empty document, as yaml.Unmarshal
	}
	return err
}

// DecodeStrict decodes YAML into v with unknown fields rejected. An empty
// document leaves v as it is.
func DecodeStrict(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := decode(dec, v); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	// yaml.v3 stores a float in an integer field truncated (ramp_up_start_rps:
	// 1.5 becomes 1, num_prompts: 2.5 becomes 2) without an error: find
	// those values ourselves and report them as the type errors they are.
	// A scalar is a float only if it is spelled as one (mayHoldFraction)
	// or tagged (!!float "1.5"; every tag starts with '!'): without either
	// there is nothing to find, and the second parse is spared (it was
	// half of reading a page's front matter).
	if bytes.IndexByte(data, '!') < 0 && !mayHoldFraction(data) {
		return nil
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 {
		return nil
	}
	var errs []string
	fractionalInts(root.Content[0], reflect.TypeOf(v), &errs, 0)
	if len(errs) > 0 {
		return &yaml.TypeError{Errors: errs}
	}
	return nil
}

// fractionalInts appends, for every scalar under n with a fractional
// value that decodes into an integer of t (a struct field by its yaml
// name, a slice's or a map's element), yaml.v3's type-error message
// with n's line. depth bounds the walk (aliases).
func fractionalInts(n *yaml.Node, t reflect.Type, errs *[]string, depth int) {
	if depth > 64 {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		var f float64
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" && n.Decode(&f) == nil && f != math.Trunc(f) {
			// An anchored value used again (*alias) is one mistake, at its
			// anchor's line: said once.
			if msg := fmt.Sprintf("line %d: cannot unmarshal !!float `%s` into %s (want an integer)", n.Line, n.Value, t); !slices.Contains(*errs, msg) {
				*errs = append(*errs, msg)
			}
		}
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return
		}
		fields := map[string]reflect.Type{}
		yamlFields(t, fields)
		structInts(n, fields, map[string]bool{}, errs, depth)
	case reflect.Slice, reflect.Array:
		if n.Kind == yaml.SequenceNode {
			for _, c := range n.Content {
				fractionalInts(c, t.Elem(), errs, depth+1)
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 1; i < len(n.Content); i += 2 {
				fractionalInts(n.Content[i], t.Elem(), errs, depth+1)
			}
		}
	}
}

// structInts is fractionalInts for the mapping n decoded into a struct
// whose fields are fields, skipping the keys in seen (set by a mapping
// that takes precedence) and adding n's. A merge key (<<: *defaults, or
// a list of them) brings its mappings' keys in where n has none, the
// earlier mapping of a list first, as yaml.v3 decodes them: a fraction
// merged into an integer field is truncated as silently as one written
// there.
func structInts(n *yaml.Node, fields map[string]reflect.Type, seen map[string]bool, errs *[]string, depth int) {
	if depth > 64 {
		return
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind != yaml.MappingNode {
		return
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merges = append(merges, n.Content[i+1])
			continue
		}
		if seen[k.Value] {
			continue
		}
		seen[k.Value] = true
		if ft, ok := fields[k.Value]; ok {
			fractionalInts(n.Content[i+1], ft, errs, depth+1)
		}
	}
	for _, m := range merges {
		if m.Kind == yaml.AliasNode && m.Alias != nil {
			m = m.Alias
		}
		if m.Kind == yaml.SequenceNode {
			for _, c := range m.Content {
				structInts(c, fields, seen, errs, depth+1)
			}
			continue
		}
		structInts(m, fields, seen, errs, depth+1)
	}
}

// yamlFields maps struct t's YAML keys to their types as yaml.v3 names
// them (the tag's name, else the lowercased field name; ",inline" and
// untagged embedded structs merged in; "-" and unexported fields left out).
func yamlFields(t reflect.Type, out map[string]reflect.Type) {
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") || (sf.Anonymous && tag == "") {
			ft := sf.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				yamlFields(ft, out)
			}
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(sf.Name)
		}
		out[name] = sf.Type
	}
}

var (
	yamlLine    = regexp.MustCompile(`(?s)^(?:yaml: )?line (\d+): (.*)$`)
	yamlUnknown = regexp.MustCompile(`^field (\S+) not found in type ([\w.]+)$`)
	yamlType    = regexp.MustCompile("(?s)^cannot unmarshal !!\\w+ `(.*)` into ")
)

// yamlParserErrors are the messages of yaml.v3's parser (not its
// scanner), whose line yaml.v3 reports 0-based, one line too early: "[H100"
// left open on line 22 is reported at line 21.
var yamlParserErrors = []string{
	"did not find expected ',' or ']'", "did not find expected ',' or '}'",
	"did not find expected '-' indicator", "did not find expected <document start>",
	"did not find expected key", "did not find expected node content",
	"found duplicate %TAG directive", "found duplicate %YAML directive",
	"found incompatible YAML document", "found undefined tag handle",
}

// DecodeError turns a yaml.v3 error from decoding data into "name:line:
// what" lines. offset is the number of lines before data in the file
// (front matter, a fenced block); an error without a line is put at
// offset+1, or named without a line when offset is 0. noun names a Go type
// ("schema.Step") as the file's author knows it ("a step"); nil means Noun.
func DecodeError(name string, offset int, data []byte, err error, noun func(typ string) string) error {
	return decodeError(name, offset, nil, countLines(data), err, noun, nil)
}

// DecodeErrorKeys is DecodeError for types of the caller's own: keys gives
// the keys a type takes ("render.BlockSpec"; nil: the campaign types'), so
// that an unknown field gets a "did you mean" (YAMLKeys reads them).
func DecodeErrorKeys(name string, offset int, data []byte, err error, noun func(typ string) string, keys func(typ string) []string) error {
	return decodeError(name, offset, nil, countLines(data), err, noun, keys)
}

// YAMLKeys returns the keys a struct value's type takes in YAML (its yaml
// tags, inline fields included), sorted.
func YAMLKeys(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	fields := map[string]reflect.Type{}
	yamlFields(t, fields)
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Nearest returns the word of words closest to word when it is a likely
// misspelling of it ("comparision" → "comparison"); "" if none.
func Nearest(word string, words []string) string {
	return nearest(word, words)
}

// countLines is the number of lines in data (a last line without "\n"
// counts).
func countLines(data []byte) int {
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// decodeError is DecodeError that also names the field's path
// ("profiles[1].num_prompts: ...") where root (nil: unknown) locates it,
// and keeps lines within the document's lines (0: unknown).
func decodeError(name string, offset int, root *yaml.Node, lines int, err error, noun func(typ string) string, keys func(typ string) []string) error {
	if noun == nil {
		noun = Noun
	}
	if keys == nil {
		keys = knownKeys
	}
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	var out []string
	for _, m := range msgs {
		m = strings.TrimSpace(strings.TrimPrefix(m, "yaml: "))
		sub := yamlLine.FindStringSubmatch(m)
		if sub == nil {
			// yaml.v3 leaves the line out where its marks are on its
			// line 0: the document's first line (a lone `"` ends the
			// stream inside the string it opens there).
			out = append(out, fmt.Sprintf("%s:%d: %s", name, offset+1, strings.ReplaceAll(m, "\n", `\n`)))
			continue
		}
		line, _ := strconv.Atoi(sub[1])
		what := sub[2]
		if slices.Contains(yamlParserErrors, what) {
			line++
		}
		if lines > 0 && line > lines {
			line = lines // an error at the end of the input: its last line
		}
		field := ""
		if u := yamlUnknown.FindStringSubmatch(what); u != nil {
			what = fmt.Sprintf("unknown field %q in %s", u[1], noun(u[2]))
			if near := nearest(u[1], keys(u[2])); near != "" {
				what += fmt.Sprintf(" (did you mean %s?)", near)
			}
			if field = fieldAt(root, line, u[1], true); field == u[1] {
				field = "" // a top-level key: the message already names it
			}
		} else if v := yamlType.FindStringSubmatch(what); v != nil {
			field = fieldAt(root, line, v[1], false)
			// A fraction for an integer already says "(want an integer)".
			if unit := unitOf(field); unit != "" && !strings.Contains(what, "(want ") {
				what += " (want " + unit + ")"
			}
		}
		if field != "" {
			what = field + ": " + what
		}
		// One message a line: a value quoted in it keeps its line
		// breaks escaped.
		what = strings.ReplaceAll(what, "\n", `\n`)
		out = append(out, fmt.Sprintf("%s:%d: %s", name, line+offset, what))
	}
	return errors.New(strings.Join(out, "\n"))
}

// fieldAt returns the path (profiles[1].num_prompts) of the first mapping
// entry on line whose key (byKey) or scalar value is text; "" if none.
func fieldAt(n *yaml.Node, line int, text string, byKey bool) string {
	if n == nil {
		return ""
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if byKey && k.Line == line && k.Value == text ||
				!byKey && v.Kind == yaml.ScalarNode && v.Line == line && v.Value == text {
				return k.Value
			}
			if p := fieldAt(v, line, text, byKey); p != "" {
				if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
					// Merged in (<<: {…} or a list of them): the fields
					// are this mapping's.
					if v.Kind == yaml.SequenceNode {
						if j := strings.IndexByte(p, ']'); j >= 0 {
							p = strings.TrimPrefix(p[j+1:], ".")
						}
					}
					return p
				}
				if strings.HasPrefix(p, "[") {
					return k.Value + p
				}
				return k.Value + "." + p
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if p := fieldAt(c, line, text, byKey); p != "" {
				if strings.HasPrefix(p, "[") {
					return fmt.Sprintf("[%d]%s", i, p)
				}
				return fmt.Sprintf("[%d].%s", i, p)
			}
		}
	}
	return ""
}

// Noun names a campaign type ("schema.Experiment" or "Experiment") as the
// campaign file's author knows it ("an experiment"); other names are
// returned as they are.
func Noun(typ string) string {
	switch strings.TrimPrefix(typ, "schema.") {
	case "Campaign":
		return "the campaign"
	case "CampaignModel":
		return "model"
	case "HardwareSpec":
		return "hardware"
	case "EngineSpec":
		return "an engine"
	case "BenchSpec":
		return "bench"
	case "Profile", "profileFile":
		return "a profile"
	case "Cost":
		return "cost"
	case "Step":
		return "a step"
	case "Experiment":
		return "an experiment"
	}
	return typ
}

// Has reports whether the file spells the mapping key at path (map keys
// and sequence indexes, as Line takes them).
func (f *File) Has(path ...any) bool {
	n := f.node()
	for _, p := range path {
		if n == nil {
			return false
		}
		var next *yaml.Node
		switch k := p.(type) {
		case string:
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == k {
						next = n.Content[i+1]
						break
					}
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && k < len(n.Content) {
				next = n.Content[k]
			}
		}
		n = next
	}
	return n != nil
}

// Line returns the line of the node at path (map keys and sequence
// indexes: "steps", 0, "experiments", 2, "command"), falling back to the
// nearest ancestor that exists; 0 when the file has no positions or a
// top-level key is missing.
func (f *File) Line(path ...any) int {
	root := f.node()
	n := root
	if n == nil {
		return 0
	}
	line := n.Line
	for _, p := range path {
		var next *yaml.Node
		switch k := p.(type) {
		case string:
			if n.Kind == yaml.MappingNode {
				for i := 0; i+1 < len(n.Content); i += 2 {
					if n.Content[i].Value == k {
						line = n.Content[i].Line
						next = n.Content[i+1]
						break
					}
				}
			}
		case int:
			if n.Kind == yaml.SequenceNode && k < len(n.Content) {
				next = n.Content[k]
				line = next.Line
			}
		}
		if next == nil {
			if n == root {
				return 0 // a missing top-level key: no line to point at
			}
			return line
		}
		n = next
	}
	return line
}

// campaignKeys maps each campaign type yaml.v3 may name in an unknown
// field's error ("schema.Step") to the keys it takes, read from the
// types' yaml tags (a profile's load fields are decoded by hand:
// schema.profileFile).
var campaignKeys = func() map[string][]string {
	out := map[string][]string{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || out[t.String()] != nil {
			return
		}
		fields := map[string]reflect.Type{}
		yamlFields(t, fields)
		keys := make([]string, 0, len(fields))
		out[t.String()] = keys // marks t as seen
		for k, ft := range fields {
			keys = append(keys, k)
			walk(ft)
		}
		slices.Sort(keys)
		out[t.String()] = keys
	}
	walk(reflect.TypeOf(schema.Campaign{}))
	out["schema.profileFile"] = append(slices.Clone(out["schema.Profile"]), "request_rate", "max_concurrency", "concurrency")
	return out
}()

// knownKeys returns the keys of the campaign type typ names ("schema.Step").
func knownKeys(typ string) []string {
	return campaignKeys[typ]
}

// nearest returns the key of keys closest to word when it is a likely
// misspelling of it (at most a third of its letters differ, at most 3);
// "" if none.
func nearest(word string, keys []string) string {
	best, bestD := "", min(3, (len(word)+2)/3)+1
	for _, k := range keys {
		if d := editDistance(word, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// unitOf says what a numeric field holds, for a type error at path
// (slo.ttft_p99: 500ms): "" when the path says nothing.
func unitOf(path string) string {
	key := path
	if i := strings.LastIndexAny(path, ".]"); i >= 0 {
		key = path[i+1:]
	}
	switch {
	case strings.HasPrefix(path, "slo."):
		return "a number of milliseconds, as slo: {ttft_p99: 500}"
	case key == "gpu_hour_usd":
		return "a number of US dollars per GPU-hour, as gpu_hour_usd: 2.5"
	case strings.HasSuffix(key, "_ms"):
		return "a number of milliseconds"
	case strings.HasSuffix(key, "_rps") || key == "request_rate":
		return "a number of requests per second"
	case strings.HasSuffix(key, "_len"):
		return "a number of tokens"
	case key == "num_prompts" || key == "repeats" || key == "gpus" || key == "count" || key == "max_concurrency" || key == "concurrency":
		return "a whole number"
	}
	return ""
}
