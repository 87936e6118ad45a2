package site

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"github.com/perflab/perflab/collect/schema/campaignfile"
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

// The names yaml.v3 gives the types in its errors (reflect's), taken
// from the types: moving them to another package moves the names.
var (
	frontMatterType = reflect.TypeFor[FrontMatter]().String()
	blockSpecType   = reflect.TypeFor[BlockSpec]().String()
)

// yamlNoun names render's types in YAML errors, with the keys they accept
// where the list is short; campaign types as campaignfile names them.
func yamlNoun(typ string) string {
	switch typ {
	case frontMatterType:
		return "front matter (keys: title, description, campaign, weight, draft)"
	case blockSpecType:
		return "perflab block (keys: block, metric, experiment, profile, step, title, point)"
	}
	return campaignfile.Noun(typ)
}

// YAMLError turns a yaml.v3 error from decoding data into "file:line:
// what" lines, shifting yaml's line numbers by offset (the lines before
// data in the file).
func YAMLError(file string, offset int, data []byte, err error) error {
	return campaignfile.DecodeErrorKeys(file, offset, data, err, yamlNoun, yamlKeys)
}

// yamlKeys gives the keys of render's types, for "did you mean"; campaign
// types' as campaignfile reads them.
func yamlKeys(typ string) []string {
	switch typ {
	case frontMatterType:
		return campaignfile.YAMLKeys(FrontMatter{})
	case blockSpecType:
		return campaignfile.YAMLKeys(BlockSpec{})
	}
	return nil
}

// ParseFrontMatter parses a page's front matter.
func ParseFrontMatter(file string, src []byte) (FrontMatter, []byte, int, bool, error) {
	src = redactText(patterns, src) // the page's door (secrets.go)
	var fm FrontMatter
	raw, body, lines, ok, err := splitFrontMatter(src)
	if err != nil {
		return fm, nil, 0, false, fmt.Errorf("%s:%w", file, err)
	}
	if !ok {
		return fm, src, 0, false, nil
	}
	if err := campaignfile.DecodeStrict(raw, &fm); err != nil {
		return fm, nil, 0, false, YAMLError(file, 1, raw, err)
	}
	return fm, body, lines, true, nil
}

// BlockSpec is the YAML inside a ```perflab fenced block (CONTENT.md).
type BlockSpec struct {
	// Block is the block type: comparison, chart, latency-chart, curve,
	// latency-curve, slo, command, step, summary, raw, setup, runs, cases,
	// history, telemetry.
	Block      string `yaml:"block"`
	Metric     string `yaml:"metric"`
	Experiment string `yaml:"experiment"`
	Profile    string `yaml:"profile"`
	Step       string `yaml:"step"`
	Title      string `yaml:"title"`
	// Point picks one load of a sweep profile for a raw or telemetry block, as result
	// files name it: c64, rate10, rateinf (default: the highest load).
	Point string `yaml:"point"`
}
