package collect

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/perflab/perflab/collect/schema"
)

// File is a campaign read from disk, with the YAML positions of its
// fields so that validation errors can name file:line.
type File struct {
	// Path is the file's name as given (errors start with it).
	Path     string
	Campaign schema.Campaign
	root     *yaml.Node
}

// Load reads and decodes a campaign file. Unknown fields and wrong types
// are errors naming file:line. It does not validate: see Validate.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("collect: %w", err)
	}
	return Parse(path, data)
}

// Parse decodes a campaign from data; name prefixes errors.
func Parse(name string, data []byte) (*File, error) {
	f := &File{Path: name}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlError(name, nil, err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty campaign file", name)
	}
	f.root = root.Content[0]
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f.Campaign); err != nil {
		return nil, yamlError(name, f.root, err)
	}
	return f, nil
}

var (
	yamlLine    = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	yamlUnknown = regexp.MustCompile(`^field (\S+) not found in type schema\.(\w+)$`)
	yamlType    = regexp.MustCompile("^cannot unmarshal !!\\w+ `(.*)` into ")
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

// yamlError turns yaml.v3's messages into "file:line: what", with the
// field's path ("profiles[1].num_prompts: ...") where root (nil before
// the file parsed) locates it.
func yamlError(name string, root *yaml.Node, err error) error {
	var te *yaml.TypeError
	var msgs []string
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	var out []string
	for _, m := range msgs {
		sub := yamlLine.FindStringSubmatch(strings.TrimSpace(m))
		if sub == nil {
			out = append(out, fmt.Sprintf("%s: %s", name, strings.TrimPrefix(m, "yaml: ")))
			continue
		}
		line, _ := strconv.Atoi(sub[1])
		what := sub[2]
		if slices.Contains(yamlParserErrors, what) {
			line++
		}
		field := ""
		if u := yamlUnknown.FindStringSubmatch(what); u != nil {
			what = fmt.Sprintf("unknown field %q in %s", u[1], typeNoun(u[2]))
			if field = fieldAt(root, line, u[1], true); field == u[1] {
				field = "" // a top-level key: the message already names it
			}
		} else if v := yamlType.FindStringSubmatch(what); v != nil {
			field = fieldAt(root, line, v[1], false)
		}
		if field != "" {
			what = field + ": " + what
		}
		out = append(out, fmt.Sprintf("%s:%d: %s", name, line, what))
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

// typeNoun names a schema type as the campaign file's reader knows it.
func typeNoun(t string) string {
	switch t {
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
	case "Profile":
		return "a profile"
	case "Step":
		return "a step"
	case "Experiment":
		return "an experiment"
	}
	return t
}

// Line returns the line of the node at path (map keys and sequence
// indexes: "steps", 0, "experiments", 2, "command"), falling back to the
// nearest ancestor that exists; 0 when the file has no positions.
func (f *File) Line(path ...any) int {
	n := f.root
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
			if n == f.root {
				return 0 // a missing top-level key: no line to point at
			}
			return line
		}
		n = next
	}
	return line
}

// Problem is one validation error at a position of the file.
type Problem struct {
	Line  int
	Field string
	Msg   string
}

// ValidationError lists every problem found, in line order.
type ValidationError struct {
	Path     string
	Problems []Problem
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		loc := e.Path
		if p.Line > 0 {
			loc += ":" + strconv.Itoa(p.Line)
		}
		fmt.Fprintf(&b, "%s: %s: %s", loc, p.Field, p.Msg)
	}
	return b.String()
}

// problems collects validation errors against a File.
type problems struct {
	f    *File
	list []Problem
}

// add records msg for the field at path (its display name is the path
// joined with dots and brackets: steps[0].experiments[1].command).
func (ps *problems) add(path []any, format string, a ...any) {
	ps.list = append(ps.list, Problem{Line: ps.f.Line(path...), Field: fieldName(path), Msg: fmt.Sprintf(format, a...)})
}

func (ps *problems) err() error {
	if len(ps.list) == 0 {
		return nil
	}
	// In line order; problems without a line (missing keys) last.
	key := func(p Problem) int {
		if p.Line == 0 {
			return int(^uint(0) >> 1)
		}
		return p.Line
	}
	sort.SliceStable(ps.list, func(i, j int) bool { return key(ps.list[i]) < key(ps.list[j]) })
	return &ValidationError{Path: ps.f.Path, Problems: ps.list}
}

func fieldName(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch k := p.(type) {
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
		case int:
			fmt.Fprintf(&b, "[%d]", k)
		}
	}
	return b.String()
}

func at(path ...any) []any { return path }
