package campaignfile

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Problem is one error at a field of the file.
type Problem struct {
	// Line is the field's line, 0 when the field is absent.
	Line int
	// Field is the field's path: steps[0].experiments[1].command.
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

// Problem makes the problem msg at the field at path (see Line).
func (f *File) Problem(path []any, format string, a ...any) Problem {
	return Problem{Line: f.Line(path...), Field: Field(path), Msg: fmt.Sprintf(format, a...)}
}

// Errors returns list as a *ValidationError for the file at path, in line
// order (problems without a line last), or nil when list is empty.
func Errors(path string, list []Problem) error {
	if len(list) == 0 {
		return nil
	}
	key := func(p Problem) int {
		if p.Line == 0 {
			return int(^uint(0) >> 1)
		}
		return p.Line
	}
	sort.SliceStable(list, func(i, j int) bool { return key(list[i]) < key(list[j]) })
	return &ValidationError{Path: path, Problems: list}
}

// Field joins a path with dots and brackets: steps[0].experiments[1].id.
func Field(path []any) string {
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

// CheckIDs returns what makes the campaign's ids not hang together: a
// missing campaign, profile, step or experiment id; a profile or
// experiment id used twice; an experiment's profile, a step's chosen
// experiment, or a baseline or optimized experiment that does not exist.
// An absent baseline, optimized or chosen is not a problem here (a
// campaign being imported may have none); consumers that need them check.
func (f *File) CheckIDs() []Problem {
	var list []Problem
	add := func(path []any, format string, a ...any) {
		list = append(list, f.Problem(path, format, a...))
	}
	c := &f.Campaign
	if c.ID == "" {
		add([]any{"id"}, "missing (the campaign's slug, e.g. qwen3-32b-h100)")
	}
	profiles := map[string]bool{}
	for i, p := range c.Profiles {
		switch {
		case p.ID == "":
			add([]any{"profiles", i, "id"}, "missing")
		case profiles[p.ID]:
			add([]any{"profiles", i, "id"}, "duplicate profile id %q", p.ID)
		}
		profiles[p.ID] = true
	}
	experiments := map[string]bool{}
	for si, s := range c.Steps {
		if s.ID == "" {
			add([]any{"steps", si, "id"}, "missing")
		}
		inStep := map[string]bool{}
		for ei, e := range s.Experiments {
			path := []any{"steps", si, "experiments", ei}
			switch {
			case e.ID == "":
				add(append(path, "id"), "missing")
			case experiments[e.ID]:
				add(append(path, "id"), "duplicate experiment id %q", e.ID)
			}
			experiments[e.ID] = true
			inStep[e.ID] = true
			for pi, id := range e.Profiles {
				if !profiles[id] {
					add(append(path, "profiles", pi), "unknown profile %q", id)
				}
			}
		}
		if s.Chosen != "" && !inStep[s.Chosen] {
			add([]any{"steps", si, "chosen"}, "%q is not an experiment of this step", s.Chosen)
		}
	}
	for _, k := range []struct{ key, id string }{{"baseline", c.Baseline}, {"optimized", c.Optimized}} {
		if k.id != "" && !experiments[k.id] {
			add([]any{k.key}, "unknown experiment %q", k.id)
		}
	}
	return list
}
