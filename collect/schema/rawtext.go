package schema

import "regexp"

// Where a benchmark tool's printed result starts in a text (RawOutput, a
// pasted log, a code block of a page): the importer parses from there,
// and the site renders a code block holding one as plain text.
var (
	reRawHeader = regexp.MustCompile(`=+[ \t]*Serving Benchmark Result[ \t]*=+`)
	// A block printed without its header starts at its first row, at the
	// start of a line and with a count (prose that mentions the words is
	// not a block).
	reRawFirstRow = regexp.MustCompile(`(?m)^[ \t]*(Successful requests:[ \t]+[0-9])`)
)

// BenchmarkTextStart returns the offset in text of the first "Serving
// Benchmark Result" block (vLLM's, SGLang's or GPUStack's print-out): its
// header line, or the first row of a block printed without its header;
// -1 when there is none.
func BenchmarkTextStart(text string) int {
	best := -1
	if loc := reRawHeader.FindStringIndex(text); loc != nil {
		best = loc[0]
	}
	if loc := reRawFirstRow.FindStringSubmatchIndex(text); loc != nil {
		if s := loc[2]; best < 0 || s < best {
			best = s
		}
	}
	return best
}
