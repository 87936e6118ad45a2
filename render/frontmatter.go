package render

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// FrontMatter holds a page's YAML front matter. Every key is optional;
// unknown keys are errors.
type FrontMatter struct {
	Title       string `yaml:"title"`
	Description string `yaml:"description"`
	// Campaign is the campaign file, relative to the page (default
	// campaign.yaml when it exists in the bundle).
	Campaign string `yaml:"campaign"`
	// Weight orders pages in navigation (lower first; then by title).
	Weight int  `yaml:"weight"`
	Draft  bool `yaml:"draft"`
}

// splitFrontMatter separates "---\n…\n---\n" from the body. It returns the
// YAML, the body and the number of lines before the body.
func splitFrontMatter(src []byte) (fm []byte, body []byte, lines int, ok bool, err error) {
	s := src
	s = bytes.TrimPrefix(s, []byte("\xef\xbb\xbf"))
	if !bytes.HasPrefix(s, []byte("---\n")) && !bytes.HasPrefix(s, []byte("---\r\n")) {
		return nil, src, 0, false, nil
	}
	first := bytes.IndexByte(s, '\n') + 1
	rest := s[first:]
	off := 0
	for off <= len(rest) {
		end := bytes.IndexByte(rest[off:], '\n')
		var line []byte
		if end < 0 {
			line = rest[off:]
		} else {
			line = rest[off : off+end]
		}
		if t := strings.TrimRight(string(line), "\r \t"); t == "---" || t == "..." {
			fm = rest[:off]
			next := len(rest)
			if end >= 0 {
				next = off + end + 1
			}
			body = rest[next:]
			lines = bytes.Count(s[:first+next], []byte("\n"))
			return fm, body, lines, true, nil
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return nil, nil, 0, false, fmt.Errorf("1: front matter opened with --- is never closed")
}

var (
	yamlLine    = regexp.MustCompile(`line (\d+): `)
	yamlUnknown = regexp.MustCompile(`field (\S+) not found in type ([\w.]+)`)
)

// yamlTypes names our types in error messages, with the keys they accept
// where the list is short.
var yamlTypes = map[string]string{
	"render.FrontMatter":   "front matter (keys: title, description, campaign, weight, draft)",
	"render.BlockSpec":     "perflab block (keys: block, metric, experiment, profile, step, title)",
	"schema.Campaign":      "campaign",
	"schema.CampaignModel": "model",
	"schema.HardwareSpec":  "hardware",
	"schema.EngineSpec":    "engines",
	"schema.BenchSpec":     "bench",
	"schema.Profile":       "profile",
	"schema.Step":          "step",
	"schema.Experiment":    "experiment",
}

// friendlyUnknown rewrites yaml's "field x not found in type pkg.T".
func friendlyUnknown(msg string) string {
	return yamlUnknown.ReplaceAllStringFunc(msg, func(m string) string {
		sub := yamlUnknown.FindStringSubmatch(m)
		where, ok := yamlTypes[sub[2]]
		if !ok {
			where = sub[2]
		}
		return "unknown field " + sub[1] + " in " + where
	})
}

// yamlError turns a yaml.v3 error into "file:line: what" lines, shifting
// yaml's line numbers by offset (the lines before the YAML in the file).
func yamlError(file string, offset int, err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "yaml: ")
	msg = strings.TrimPrefix(msg, "unmarshal errors:\n")
	var out []string
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		l = friendlyUnknown(l)
		if m := yamlLine.FindStringSubmatchIndex(l); m != nil {
			n, _ := strconv.Atoi(l[m[2]:m[3]])
			rest := l[:m[0]] + l[m[1]:]
			out = append(out, fmt.Sprintf("%s:%d: %s", file, n+offset, rest))
			continue
		}
		out = append(out, fmt.Sprintf("%s:%d: %s", file, offset+1, l))
	}
	return fmt.Errorf("%s", strings.Join(out, "\n"))
}

// decodeStrict decodes YAML into v with unknown fields rejected.
func decodeStrict(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(v)
	if err != nil && err.Error() == "EOF" {
		return nil // empty document: zero value
	}
	return err
}

// parseFrontMatter parses a page's front matter.
func parseFrontMatter(file string, src []byte) (FrontMatter, []byte, int, bool, error) {
	var fm FrontMatter
	raw, body, lines, ok, err := splitFrontMatter(src)
	if err != nil {
		return fm, nil, 0, false, fmt.Errorf("%s:%w", file, err)
	}
	if !ok {
		return fm, src, 0, false, nil
	}
	if err := decodeStrict(raw, &fm); err != nil {
		return fm, nil, 0, false, yamlError(file, 1, err)
	}
	return fm, body, lines, true, nil
}
