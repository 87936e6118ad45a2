package render

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/perflab/perflab/collect/schema"
	"gopkg.in/yaml.v3"
)

// parseCampaign decodes a campaign file (unknown fields are errors) and
// checks that its ids hang together: unique experiment and profile ids,
// baseline, optimized and every step's chosen experiment defined, every
// experiment's profiles defined. Errors name file:line.
func parseCampaign(file string, data []byte) (*schema.Campaign, *yaml.Node, error) {
	var c schema.Campaign
	if err := decodeStrict(data, &c); err != nil {
		return nil, nil, yamlError(file, 0, err)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, nil, yamlError(file, 0, err)
	}
	at := func(key, value string) int { return findLine(&root, key, value) }
	fail := func(line int, format string, a ...any) error {
		return fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, a...))
	}
	if strings.TrimSpace(string(data)) == "" {
		return nil, nil, fail(1, "empty campaign")
	}
	if c.ID == "" {
		return nil, nil, fail(1, "field id: missing (the campaign's slug, e.g. qwen3-32b-h100)")
	}
	if len(c.Profiles) == 0 {
		return nil, nil, fail(1, "field profiles: at least one profile is needed")
	}
	profiles := map[string]bool{}
	for _, p := range c.Profiles {
		if p.ID == "" {
			return nil, nil, fail(at("name", p.Name), "field profiles: a profile has no id")
		}
		if profiles[p.ID] {
			return nil, nil, fail(lastLine(&root, "id", p.ID), "field profiles: duplicate profile id %q", p.ID)
		}
		profiles[p.ID] = true
	}
	exps := map[string]bool{}
	for _, st := range c.Steps {
		if st.ID == "" {
			return nil, nil, fail(at("title", st.Title), "field steps: a step has no id")
		}
		for _, e := range st.Experiments {
			if e.ID == "" {
				return nil, nil, fail(at("name", e.Name), "field experiments: an experiment has no id")
			}
			if exps[e.ID] {
				return nil, nil, fail(lastLine(&root, "id", e.ID), "field experiments: duplicate experiment id %q", e.ID)
			}
			exps[e.ID] = true
			for _, p := range e.Profiles {
				if !profiles[p] {
					return nil, nil, fail(at("id", e.ID), "experiment %q: field profiles: unknown profile %q", e.ID, p)
				}
			}
		}
		if st.Chosen != "" && !containsExp(st, st.Chosen) {
			return nil, nil, fail(at("chosen", st.Chosen), "step %q: field chosen: %q is not one of the step's experiments", st.ID, st.Chosen)
		}
	}
	if c.Baseline == "" {
		return nil, nil, fail(1, "field baseline: missing (the id of the baseline experiment)")
	}
	if !exps[c.Baseline] {
		return nil, nil, fail(at("baseline", c.Baseline), "field baseline: unknown experiment %q", c.Baseline)
	}
	if c.Optimized == "" {
		return nil, nil, fail(1, "field optimized: missing (the id of the recommended experiment)")
	}
	if !exps[c.Optimized] {
		return nil, nil, fail(at("optimized", c.Optimized), "field optimized: unknown experiment %q", c.Optimized)
	}
	return &c, &root, nil
}

func containsExp(st schema.Step, id string) bool {
	for _, e := range st.Experiments {
		if e.ID == id {
			return true
		}
	}
	return false
}

// findLine returns the line of the first mapping entry key: value in the
// YAML tree (value "" matches any value), or 1.
func findLine(n *yaml.Node, key, value string) int {
	lines := keyLines(n, key, value)
	if len(lines) == 0 {
		return 1
	}
	return lines[0]
}

// lastLine is findLine's last match (the duplicate, for duplicates).
func lastLine(n *yaml.Node, key, value string) int {
	lines := keyLines(n, key, value)
	if len(lines) == 0 {
		return 1
	}
	return lines[len(lines)-1]
}

func keyLines(n *yaml.Node, key, value string) []int {
	var out []int
	var walk func(*yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				if k.Value == key && (value == "" || v.Kind == yaml.ScalarNode && v.Value == value) {
					out = append(out, k.Line)
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return out
}

// firstLineOf returns the 1-based line of the first occurrence of s in
// data, or 1.
func firstLineOf(data []byte, s string) int {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 1
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}
