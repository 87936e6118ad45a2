package campaignfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/perflab/perflab/collect/schema"
)

// File is a campaign read from a file, with the YAML positions of its
// fields so that errors found later can name file:line.
type File struct {
	// Path is the file's name as given (errors start with it).
	Path     string
	Campaign schema.Campaign
	root     *yaml.Node
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
// empty document is an error too.
func Parse(name string, data []byte) (*File, error) {
	f := &File{Path: name}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, DecodeError(name, 0, err, nil)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty campaign file", name)
	}
	f.root = root.Content[0]
	if err := DecodeStrict(data, &f.Campaign); err != nil {
		return nil, DecodeError(name, 0, err, nil)
	}
	return f, nil
}

// DecodeStrict decodes YAML into v with unknown fields rejected. An empty
// document leaves v as it is.
func DecodeStrict(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

var (
	yamlLine    = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)
	yamlUnknown = regexp.MustCompile(`field (\S+) not found in type ([\w.]+)`)
)

// DecodeError turns a yaml.v3 error into "name:line: what" lines. offset
// is the number of lines before the YAML in the file (front matter, a
// fenced block); an error without a line is put at offset+1, or named
// without a line when offset is 0. noun names a Go type ("schema.Step")
// as the file's author knows it ("a step"); nil means Noun.
func DecodeError(name string, offset int, err error, noun func(typ string) string) error {
	if noun == nil {
		noun = Noun
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
		m = yamlUnknown.ReplaceAllStringFunc(m, func(s string) string {
			sub := yamlUnknown.FindStringSubmatch(s)
			return fmt.Sprintf("unknown field %q in %s", sub[1], noun(sub[2]))
		})
		sub := yamlLine.FindStringSubmatch(m)
		switch {
		case sub != nil:
			var n int
			fmt.Sscan(sub[1], &n)
			out = append(out, fmt.Sprintf("%s:%d: %s", name, n+offset, sub[2]))
		case offset > 0:
			out = append(out, fmt.Sprintf("%s:%d: %s", name, offset+1, m))
		default:
			out = append(out, fmt.Sprintf("%s: %s", name, m))
		}
	}
	return errors.New(strings.Join(out, "\n"))
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
	case "Profile":
		return "a profile"
	case "Step":
		return "a step"
	case "Experiment":
		return "an experiment"
	}
	return typ
}

// Line returns the line of the node at path (map keys and sequence
// indexes: "steps", 0, "experiments", 2, "command"), falling back to the
// nearest ancestor that exists; 0 when the file has no positions or a
// top-level key is missing.
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
