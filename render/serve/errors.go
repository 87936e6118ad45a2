package serve

import (
	"regexp"
	"strconv"
	"strings"
)

// BuildError is a failed build as the browser shows it.
type BuildError struct {
	// File and Line locate the problem when the error names them
	// ("content/a/index.md:3: …"); empty and 0 otherwise.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	// Message is the error text after the location (all of it when there
	// is no location).
	Message string `json:"message"`
	// Text is the whole error text.
	Text string `json:"text"`
}

func (e *BuildError) Error() string { return e.Text }

// fileLine finds the first "FILE:LINE:" (optionally "FILE:LINE:COL:") whose
// FILE has an extension, the form perflab's build errors use.
var fileLine = regexp.MustCompile(`([^\s:"'()]*\.[A-Za-z][A-Za-z0-9]*):(\d+)(?::\d+)?:\s*`)

func newBuildError(err error) *BuildError {
	text := err.Error()
	e := &BuildError{Message: text, Text: text}
	if m := fileLine.FindStringSubmatchIndex(text); m != nil {
		line, convErr := strconv.Atoi(text[m[4]:m[5]])
		if convErr == nil && line > 0 {
			e.File = text[m[2]:m[3]]
			e.Line = line
			e.Message = strings.TrimSpace(text[m[1]:])
			if e.Message == "" {
				e.Message = text
			}
		}
	}
	return e
}
