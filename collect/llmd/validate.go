package llmd

import (
	"fmt"
	"math"
	"strings"

	"gopkg.in/yaml.v3"
)

// measured are the parts of a report perflab reads numbers from, by
// version: their leaves are numbers (or null), none negative, and their
// units ones perflab converts.
var measured = map[string][][]string{
	"0.1": {{"metrics", "time"}, {"metrics", "requests"}, {"metrics", "latency"}, {"metrics", "throughput"}},
	"0.2": {{"results", "request_performance", "aggregate"}},
}

// checkNumbers checks the measured parts of one report document (its
// YAML node, which also holds a JSON report's lines) before it is read:
// a value that is not a number ("total: lots"), a negative one, or units
// perflab cannot convert is an error naming the line and the field
// (metrics.requests.total), where reading would have taken it as absent
// (0 requests, "no request succeeded") or named line 1.
func checkNumbers(doc *yaml.Node, version string) error {
	if doc == nil {
		return nil
	}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		doc = doc.Content[0]
	}
	for _, path := range measured[version[:min(len(version), 3)]] {
		if n := child(doc, path...); n != nil {
			if err := checkNode(n, strings.Join(path, ".")); err != nil {
				return err
			}
		}
	}
	return nil
}

// child walks mapping keys.
func child(n *yaml.Node, path ...string) *yaml.Node {
	for _, p := range path {
		if n == nil || n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == p {
				next = n.Content[i+1]
			}
		}
		n = next
	}
	return n
}

// lineError is an error at a line of the report.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return e.msg }

func checkNode(n *yaml.Node, path string) error {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i].Value, n.Content[i+1]
			p := path + "." + k
			if k == "units" {
				if _, err := unitFactor(v.Value); err != nil {
					return &lineError{v.Line, fmt.Sprintf("%s: %v", p, err)}
				}
				continue
			}
			if err := checkNode(v, p); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, v := range n.Content {
			if err := checkNode(v, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case yaml.AliasNode:
		if n.Alias != nil {
			return checkNode(n.Alias, path)
		}
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil
		}
		if strings.HasSuffix(path, ".start") || strings.HasSuffix(path, ".stop") || strings.HasSuffix(path, ".end") {
			if n.Tag == "!!timestamp" {
				return nil // a time, not a number
			}
		}
		v, ok := num(n.Value)
		if !ok || math.IsNaN(v) {
			return &lineError{n.Line, fmt.Sprintf("%s: %q is not a number", path, n.Value)}
		}
		if v < 0 {
			return &lineError{n.Line, fmt.Sprintf("%s: %s is negative (a count, a time or a rate)", path, n.Value)}
		}
	}
	return nil
}
