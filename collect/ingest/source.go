package ingest

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/perflab/perflab/collect/llmd"
	"github.com/perflab/perflab/collect/schema"
)

// Source formats an Entry can come from.
const (
	// FormatVLLMText is the `vllm bench serve` text block.
	FormatVLLMText = "vllm-text"
	// FormatGPUStackText is GPUStack's imitation of that block, rendered
	// from guidellm data (a Latency section, P95 rows, "Maximum request
	// concurrency" as the measured maximum).
	FormatGPUStackText = "gpustack-text"
	// FormatVLLMJSON is vLLM's --save-result JSON (one record per line
	// with --append-result).
	FormatVLLMJSON = "vllm-json"
	// FormatGuideLLMJSON (guidellm.go) is guidellm's report.

	// FormatCrash is a crash marker (`# Crash on inference`): a run that
	// produced no benchmark output.
	FormatCrash = "crash"
)

// Entry is one run found in a source file: a benchmark block, a JSON
// record or a crash marker, with the context around it.
type Entry struct {
	// File and Line locate the entry (1-based line of its first row or of
	// the marker).
	File string
	Line int
	// Offset and End are the byte offsets of a text block in its source
	// (0, 0 for JSON records and crash markers).
	Offset, End int
	// Format is one of the Format constants.
	Format string
	// Label is the comment right before the block, without the '#'
	// ("random 32K input"), or the JSON record's label.
	Label string
	// Command is the serving command that precedes the entry, verbatim
	// without its indentation (continuation lines kept); CommandLine is
	// its line.
	Command     string
	CommandLine int
	// Directive holds the keys of a `# perflab:` line before the entry;
	// DirectiveLine is its line (0 when there is none).
	Directive     map[string]string
	DirectiveLine int
	// Raw is the block's text (without the source's indentation), the JSON
	// record, or the crash marker line.
	Raw string
	// Summary holds the numbers; nil for a crash.
	Summary *schema.Summary
	// Load holds what the source itself says about the load (JSON records
	// carry the whole configuration; text blocks at most the request rate
	// and concurrency cap).
	Load schema.Load
	// Requests are per-request records (vLLM JSON with --save-detailed).
	Requests []schema.Request
	// Model is the model id the source names (JSON model_id).
	Model string
	// Crash is the crash marker's text ("Crash on inference").
	Crash string
	// Notes are parser caveats that become Result warnings.
	Notes []string
	// NoFailedRow is set for text blocks without a "Failed requests" row:
	// their Summary.Failed of 0 is unknown rather than measured.
	NoFailedRow bool
	// Metadata are extra source facts (JSON date, tokenizer).
	Metadata map[string]string
	// report holds what an llm-d benchmark report says beyond the
	// fields above (llmd.go); nil for other formats.
	report *reportInfo
}

// directiveKeys are the keys a `# perflab:` line may set.
var directiveKeys = map[string]bool{
	"experiment": true, "profile": true, "engine": true, "model": true,
	"label": true, "command": true,
}

var (
	reDirective = regexp.MustCompile(`^#[ \t]*perflab:[ \t]*(.*)$`)
	reCrash     = regexp.MustCompile(`(?i)^#[ \t]*(crash(?:ed|es)?\b.*)$`)
	reComment   = regexp.MustCompile(`^#(?:[ \t]+(.*))?$`)
	reFence     = regexp.MustCompile("^(```|~~~)[A-Za-z0-9_-]*[ \t]*$")
	reCommand   = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_]*=[^ \t]*[ \t]+)*(?:vllm[ \t]+serve|python3?[ \t]+-m[ \t]+(?:sglang\.launch_server|vllm\.entrypoints\.openai\.api_server)|trtllm-serve|llama-server|mindie[ \t]+serve)(?:[ \t]|$)`)
	rePair      = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_-]*)=("(?:[^"\\]|\\.)*"|[^ \t"]*)`)
)

// Parse reads one source file. The format is detected: a file whose first
// non-blank character is '{' is JSON, anything else is text (plain,
// Markdown, a console log). name is used in errors and in Entry.File.
//
// The input must be UTF-8: results are JSON, whose strings cannot hold
// other bytes (they would come back as U+FFFD, a value the source never
// had), so a file with such bytes is refused at their line.
func Parse(name string, data []byte) ([]Entry, error) {
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%s:%d: not text (bytes that are not UTF-8)", name, firstInvalidLine(data))
	}
	if llmd.Detect(data) {
		return parseLLMD(name, data)
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		return parseJSON(name, data)
	}
	return parseText(name, string(data))
}

// firstInvalidLine is the 1-based line of data's first byte that is not
// part of a UTF-8 character.
func firstInvalidLine(data []byte) int {
	line := 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		if r == '\n' {
			line++
		}
		i += n
	}
	return line
}

// textState is the context carried from one entry to the next.
type textState struct {
	command     string
	commandLine int
	label       string
	directive   map[string]string
	dirLine     int
}

// ParseTolerant is Parse for text that may hold damaged blocks (perflab
// migrate reads whole lab pages): a block cut short before its closing
// line is read up to its last row (with a note), and a block that still
// cannot be read is left out; each block left out is one error in skipped
// (FILE:LINE: why), and the rest of the text is read on.
func ParseTolerant(name string, data []byte) (entries []Entry, skipped []error, err error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(trimmed) > 0 && trimmed[0] == '{' {
		es, err := parseJSON(name, data)
		return es, nil, err
	}
	es, err := parseTextMode(name, string(data), &skipped)
	return es, skipped, err
}

func parseText(name, text string) ([]Entry, error) {
	return parseTextMode(name, text, nil)
}

// parseTextMode reads text blocks; with skipped non-nil, damaged blocks
// are read as far as they go or skipped (ParseTolerant).
func parseTextMode(name, text string, skipped *[]error) ([]Entry, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var out []Entry
	st := &textState{}
	pos := 0
	for {
		next := nextBlockStart(text, pos)
		segEnd := next
		if next < 0 {
			segEnd = len(text)
		}
		if err := st.context(name, text, pos, segEnd, &out); err != nil {
			return nil, err
		}
		if next < 0 {
			break
		}
		b, err := scanBlockMode(name, text, next, skipped != nil)
		if err != nil {
			if skipped == nil {
				return nil, err
			}
			*skipped = append(*skipped, err)
			// Go on after the block's first line.
			pos = next + 1
			if nl := strings.IndexByte(text[next:], '\n'); nl >= 0 {
				pos = next + nl + 1
			}
			st.label = ""
			continue
		}
		e := st.entry(name, b.line)
		e.Raw = b.raw
		e.Summary = b.summary
		e.Notes = b.notes
		e.NoFailedRow = b.noFailedRow
		e.Offset, e.End = b.start, b.end
		e.Format = FormatVLLMText
		if b.gpustack {
			e.Format = FormatGPUStackText
		}
		if b.sglang {
			e.Format = FormatSGLangText
			e.Metadata = map[string]string{}
			for k, v := range b.meta {
				e.Metadata[k] = v
			}
		}
		if b.requestRate != nil {
			e.Load.RequestRate = *b.requestRate
		}
		if b.summary.MaxConcurrency != nil && !b.gpustack {
			// vLLM and SGLang print the configured cap; GPUStack the measured maximum.
			e.Load.MaxConcurrency = *b.summary.MaxConcurrency
		}
		out = append(out, e)
		pos = b.end
	}
	if st.directive != nil {
		err := fmt.Errorf("%s:%d: a \"# perflab:\" line must be followed by a benchmark block or a crash marker", name, st.dirLine)
		if skipped == nil {
			return nil, err
		}
		*skipped = append(*skipped, err)
	}
	return out, nil
}

// entry starts an Entry with the pending context and consumes the
// one-shot parts of it (label, directive).
func (st *textState) entry(name string, line int) Entry {
	e := Entry{File: name, Line: line, Label: st.label, Command: st.command, CommandLine: st.commandLine,
		Directive: st.directive, DirectiveLine: st.dirLine}
	if e.Directive != nil {
		if l, ok := e.Directive["label"]; ok {
			e.Label = l
		}
		if e.Directive["command"] == "none" {
			e.Command, e.CommandLine = "", 0
		}
	}
	st.label, st.directive, st.dirLine = "", nil, 0
	return e
}

// context reads the text between blocks, line by line: serving commands,
// labels, directives and crash markers.
func (st *textState) context(name, text string, from, to int, out *[]Entry) error {
	if from >= to {
		return nil
	}
	lines := strings.Split(text[from:to], "\n")
	first := lineAt(text, from)
	for i := 0; i < len(lines); i++ {
		line := strings.TrimSpace(lines[i])
		ln := first + i
		// A shell prompt before a serving command ("$ vllm serve …").
		if c, ok := strings.CutPrefix(line, "$ "); ok && StartsServingCommand(strings.TrimSpace(c)) {
			line = strings.TrimSpace(c)
		}
		switch {
		case line == "" || reFence.MatchString(line):
			// Blank lines and code fences keep a pending label.
		case reDirective.MatchString(line):
			if st.directive != nil {
				return fmt.Errorf("%s:%d: a second \"# perflab:\" line before the entry of line %d", name, ln, st.dirLine)
			}
			d, err := parseDirective(name, ln, reDirective.FindStringSubmatch(line)[1])
			if err != nil {
				return err
			}
			st.directive, st.dirLine = d, ln
		case reCrash.MatchString(line):
			e := st.entry(name, ln)
			e.Format = FormatCrash
			e.Crash = reCrash.FindStringSubmatch(line)[1]
			e.Raw = line
			*out = append(*out, e)
		case StartsServingCommand(line):
			cmd := []string{line}
			start := ln
			for strings.HasSuffix(cmd[len(cmd)-1], `\`) && i+1 < len(lines) {
				i++
				cmd = append(cmd, strings.TrimSpace(lines[i]))
			}
			st.label = "" // a comment above a command is about the command
			if c := strings.Join(cmd, "\n"); ServingCommand(c) {
				st.command, st.commandLine = c, start
			}
		case strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "##") && reComment.MatchString(line):
			st.label = strings.TrimSpace(reComment.FindStringSubmatch(line)[1])
		default:
			st.label = "" // prose between a comment and the block
		}
	}
	return nil
}

// parseDirective reads `key=value key="quoted value"` pairs.
func parseDirective(name string, line int, s string) (map[string]string, error) {
	d := map[string]string{}
	s = strings.TrimSpace(s)
	for s != "" {
		m := rePair.FindStringSubmatch(s)
		if m == nil {
			return nil, fmt.Errorf("%s:%d: \"# perflab:\" line: expected key=value, found %q", name, line, excerpt(s))
		}
		key, val := m[1], m[2]
		if !directiveKeys[key] {
			keys := make([]string, 0, len(directiveKeys))
			for k := range directiveKeys {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			return nil, fmt.Errorf("%s:%d: \"# perflab:\" line: unknown key %q (known: %s)", name, line, key, strings.Join(keys, ", "))
		}
		if strings.HasPrefix(val, `"`) {
			val = strings.ReplaceAll(strings.Trim(val, `"`), `\"`, `"`)
		}
		if val == "" {
			return nil, fmt.Errorf("%s:%d: \"# perflab:\" line: key %q has no value", name, line, key)
		}
		if key == "command" && val != "none" {
			return nil, fmt.Errorf("%s:%d: \"# perflab:\" line: command can only be \"none\" (drop the serving command seen above)", name, line)
		}
		if _, dup := d[key]; dup {
			return nil, fmt.Errorf("%s:%d: \"# perflab:\" line: key %q given twice", name, line, key)
		}
		d[key] = val
		s = strings.TrimSpace(s[len(m[0]):])
	}
	return d, nil
}
