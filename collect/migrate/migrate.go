package migrate

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/collect/schema/campaignfile"
)

// Ambiguity is something the page does not settle; Loc is FILE:LINE of the
// source.
type Ambiguity struct {
	Loc, Msg string
	// Kind groups ambiguities in the report's summary: model, hardware,
	// engine, step, role, placement, collision, unassigned, new-profile,
	// sweep, json-result, console-table (guidellm's console summary), link,
	// page (a page not migrated).
	Kind string
}

func (a Ambiguity) String() string { return a.Loc + ": " + a.Msg }

// Page is one migrated page.
type Page struct {
	// Source names the page in reports (FILE); SrcName is the file name
	// its verbatim copy gets under results/<id>/src/.
	Source  string
	SrcName string
	// Content is the page's folder below content/.
	Content string
	// Plain is set for a page without benchmark outputs: it is copied.
	Plain bool
	// Skipped is set for a page that could not be migrated (its
	// ambiguity of kind "page" says why): nothing of it is written.
	Skipped bool
	// Campaign and Results are the inferred campaign and its results
	// (Results in source order; repeated identical outputs appear once).
	Campaign *schema.Campaign
	Results  []*schema.Result
	// Index is the rewritten page (content/<path>/index.md).
	Index []byte
	// Blocks counts the outputs (text blocks and crash markers) found.
	Blocks int
	// Repeats counts outputs that repeat another of the same experiment,
	// profile and load with the same numbers (the page shows one run
	// twice): they are one result.
	Repeats int
	// Unassigned counts outputs that could not be placed.
	Unassigned int
	// Notes say how each part was inferred (FILE:LINE: …).
	Notes []string
	// Rules counts the outputs each placement rule placed (evidence.go:
	// annotation, label, label-facts, rows, command, derived, load-point,
	// crash).
	Rules map[string]int
	// Ambiguities are what the page does not settle.
	Ambiguities []Ambiguity
}

// migration is the state of one page's migration.
type migration struct {
	p         *page
	out       *Page
	entries   []ingest.Entry
	setup     setupInfo
	profiles  []schema.Profile
	bench     schema.BenchSpec
	model     schema.CampaignModel
	modelRefs []modelRef
	generator bool
	recommend string // the Conclusion's recommended command
	recIdx    int
	fm        map[string]any // the page's front matter, nil when none
	exps      []*exp
	byKey     map[string]*exp
	steps     []*step
	places    []place // per entry
	srcRef    string  // results/<id>/src/<file>
}

// exp is an inferred experiment.
type exp struct {
	schema.Experiment
	key        string
	step       *step
	firstIdx   int
	how        string
	role       string // "baseline" / "optimized" from labels
	checked    bool
	unassigned bool
	// occBase is the experiment whose configuration this one runs again
	// (another occurrence of its command with other numbers).
	occBase *exp
}

type step struct {
	schema.Step
	idx int
}

// place is where an entry goes.
type place struct {
	exp     *exp
	profile string
	why     string // how the profile was chosen
	rule    string // the placement rule that chose it (evidence.go)
	reason  string // why it is unassigned, if it is
}

func (m *migration) note(idx int, format string, a ...any) {
	m.out.Notes = append(m.out.Notes, m.p.loc(idx)+": "+fmt.Sprintf(format, a...))
}

func (m *migration) ambiguous(idx int, kind, format string, a ...any) {
	m.out.Ambiguities = append(m.out.Ambiguities, Ambiguity{Loc: m.p.loc(idx), Kind: kind, Msg: fmt.Sprintf(format, a...)})
}

// Migrate migrates one page. name is used in reports (FILE:LINE); id is
// the campaign id; srcRef is where the verbatim page will be stored,
// relative to the project (results/<id>/src/<file>), for the results'
// source references.
func Migrate(name string, data []byte, id, srcRef string) (*Page, error) {
	if err := checkText(name, data); err != nil {
		return nil, err
	}
	p := newPage(name, string(data))
	if err := p.checkFences(); err != nil {
		return nil, err
	}
	out := &Page{Source: name}
	m := &migration{p: p, out: out, byKey: map[string]*exp{}, srcRef: srcRef}
	fm, err := p.frontMatter()
	if err != nil {
		return nil, err
	}
	m.fm = fm
	entries, skipped, err := ingest.ParseTolerant(name, []byte(unquote(p.text())))
	for _, e := range skipped {
		msg := strings.TrimPrefix(e.Error(), name+":")
		var n int
		if _, serr := fmt.Sscanf(msg, "%d:", &n); serr == nil && n >= 1 && n <= len(p.orig) {
			msg = strings.TrimPrefix(msg, fmt.Sprint(n)+":")
			out.Ambiguities = append(out.Ambiguities, Ambiguity{Loc: p.loc(n - 1), Kind: "block", Msg: "a benchmark block that cannot be read is not imported:" + msg})
			continue
		}
		out.Ambiguities = append(out.Ambiguities, Ambiguity{Loc: name, Kind: "block", Msg: "a benchmark block that cannot be read is not imported: " + msg})
	}
	if err != nil {
		if p.relined {
			// Name the source's line, not the re-broken page's.
			msg := err.Error()
			if rest, ok := strings.CutPrefix(msg, name+":"); ok {
				var n int
				if _, e := fmt.Sscanf(rest, "%d:", &n); e == nil && n >= 1 && n <= len(p.orig) {
					msg = fmt.Sprintf("%s:%d:%s", name, p.orig[n-1], strings.TrimPrefix(rest, fmt.Sprint(n)+":"))
				}
			}
			return nil, fmt.Errorf("migrate: %s", msg)
		}
		return nil, fmt.Errorf("migrate: %w", err)
	}
	var kept []ingest.Entry
	for _, e := range entries {
		if e.Format == ingest.FormatVLLMJSON || e.Format == ingest.FormatGuideLLMJSON {
			continue
		}
		kept = append(kept, e)
	}
	m.entries = kept
	out.Blocks = len(kept)
	m.reportJSONResults()
	m.reportConsoleTables()
	if len(kept) == 0 {
		out.Plain = true
		out.Index = data
		if fm != nil && m.dropFrontMatterKeys(fm) {
			out.Index = []byte(strings.Join(append(frontMatterLines(fm), p.lines[p.fmEnd+1:]...), "\n"))
		}
		return out, nil
	}
	m.readSetup()
	m.readProfiles()
	m.readRecommended()
	m.placeEntries()
	m.resolveModel()
	c := m.campaign(id)
	out.Campaign = c
	if err := m.results(c); err != nil {
		return nil, err
	}
	out.Index = m.rewrite(c)
	return out, nil
}

var reQuoteMarks = regexp.MustCompile(`(?m)^[ \t]*(?:>[ \t]?)+`)

// unquote blanks the block-quote markers at the start of lines ("> ",
// "> > "), keeping every byte offset and line number: benchmark blocks and
// serving commands quoted in a page are read as if they were not.
func unquote(text string) string {
	return reQuoteMarks.ReplaceAllStringFunc(text, func(m string) string {
		return strings.Repeat(" ", len(m))
	})
}

// frontMatterKeys are the front matter keys a perflab page takes; MkDocs'
// others (tags, hide, template …) have no meaning here and would stop the
// build.
var frontMatterKeys = []string{"title", "description", "weight", "draft"}

// frontMatter reads the page's YAML front matter (nil when it has none).
func (p *page) frontMatter() (map[string]any, error) {
	if p.fmEnd < 0 {
		return nil, nil
	}
	fm := map[string]any{}
	if err := campaignfile.Unmarshal([]byte(strings.Join(p.lines[1:p.fmEnd], "\n")), &fm); err != nil {
		return nil, fmt.Errorf("migrate: %s: front matter: %v", p.loc(0), err)
	}
	return fm, nil
}

// dropFrontMatterKeys removes the keys a perflab page does not take, with a
// note; it reports whether it removed any.
func (m *migration) dropFrontMatterKeys(fm map[string]any) bool {
	var dropped []string
	for k := range fm {
		if !slices.Contains(frontMatterKeys, k) {
			dropped = append(dropped, k)
			delete(fm, k)
		}
	}
	if len(dropped) == 0 {
		return false
	}
	sort.Strings(dropped)
	m.note(0, "front matter keys %s dropped: a perflab page takes only %s", strings.Join(dropped, ", "), strings.Join(frontMatterKeys, ", "))
	return true
}

// frontMatterLines writes front matter with the keys in perflab's order.
func frontMatterLines(fm map[string]any) []string {
	out := []string{"---"}
	for _, k := range append([]string{"title", "description", "campaign"}, frontMatterKeys[2:]...) {
		v, ok := fm[k]
		if !ok {
			continue
		}
		switch v := v.(type) {
		case string:
			out = append(out, k+": "+yamlString(v))
		default:
			out = append(out, fmt.Sprintf("%s: %v", k, v))
		}
	}
	return append(out, "---")
}

// checkText refuses a file that is not text (a NUL byte, bytes that are
// not UTF-8): copying it as a page would publish garbage.
func checkText(name string, data []byte) error {
	line := 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		switch {
		case r == 0:
			return fmt.Errorf("migrate: %s:%d: not a text page (a NUL byte)", name, line)
		case r == utf8.RuneError && n == 1:
			return fmt.Errorf("migrate: %s:%d: not a text page (bytes that are not UTF-8)", name, line)
		case r == '\n':
			line++
		}
		i += n
	}
	return nil
}

// checkFences refuses a page whose code fences do not pair up: a fence
// left open swallows the rest of the page (headings, commands, outputs),
// so every inference after it would be wrong. A fence line with a
// language ("```bash") cannot close a fence, so one met while a fence is
// open means a closing fence is missing.
func (p *page) checkFences() error {
	open, mark := -1, ""
	for i, l := range p.lines {
		m := reFenceLine.FindStringSubmatch(l)
		if m == nil || (open >= 0 && m[1] != mark) {
			continue // not a fence line, or a ~~~ line inside a ``` fence
		}
		switch {
		case open < 0:
			open, mark = i, m[1]
		case m[2] != "":
			return fmt.Errorf("migrate: %s: a code fence (%s) opens while the one opened at line %d is still open: is a closing %s missing?",
				p.loc(i), strings.TrimSpace(l), p.orig[open], mark)
		default:
			open = -1
		}
	}
	if open >= 0 {
		return fmt.Errorf("migrate: %s: this code fence is never closed", p.loc(open))
	}
	return nil
}

// reGuideLLMTable is the header of guidellm's console summary ("Benchmarks
// Stats:", or its column row "| Out Tok/sec| Tot Tok/sec|").
var reGuideLLMTable = regexp.MustCompile(`^\s*(Benchmarks Stats:|.*\|\s*Out Tok/sec\s*\|\s*Tot Tok/sec\s*\|)`)

// reportConsoleTables reports guidellm's console summary tables: perflab
// reads no results from them (its JSON report holds the numbers), and a
// page holding only such tables was copied as a plain page with no word
// about the results it did not bring over.
func (m *migration) reportConsoleTables() {
	p := m.p
	for i := 0; i < len(p.lines); i++ {
		if !reGuideLLMTable.MatchString(p.lines[i]) {
			continue
		}
		m.ambiguous(i, "console-table", "guidellm's console table is not imported (perflab reads no results from it): import guidellm's JSON report (guidellm benchmark --output-path) with perflab import")
		// One report per table: skip to its end (a blank line or a fence).
		for i+1 < len(p.lines) && strings.TrimSpace(p.lines[i+1]) != "" && !reFenceLine.MatchString(p.lines[i+1]) {
			i++
		}
	}
}

// reportJSONResults reports the benchmark results pasted as JSON (vLLM's
// --save-result record, a guidellm report) in a code fence: they are not
// imported (a page's results are its text outputs, placed by the serving
// command and label before them, and a JSON record usually repeats one),
// but never passed over silently.
func (m *migration) reportJSONResults() {
	p := m.p
	for i := 0; i < len(p.lines); i++ {
		if !reFenceLine.MatchString(p.lines[i]) || !insideFence(p, i+1) {
			continue
		}
		var body []string
		k := i + 1
		for ; k < len(p.lines) && insideFence(p, k); k++ {
			body = append(body, p.lines[k])
		}
		first := k
		for j := i + 1; j < k; j++ {
			if strings.TrimSpace(p.lines[j]) != "" {
				first = j
				break
			}
		}
		if first < k && strings.HasPrefix(strings.TrimSpace(p.lines[first]), "{") {
			es, err := ingest.Parse(m.out.Source, []byte(strings.Join(body, "\n")))
			if err == nil {
				for _, e := range es {
					if e.Summary == nil || e.Summary.Completed == 0 {
						continue
					}
					what := "vLLM's --save-result record"
					if e.Format == ingest.FormatGuideLLMJSON {
						what = "a guidellm report"
					}
					m.ambiguous(first, "json-result", "a benchmark result pasted as JSON (%s: %d requests completed, %.2f tok/s total) is not imported: migrate reads the page's text outputs; import the JSON file itself with perflab import",
						what, e.Summary.Completed, e.Summary.TotalTokenThroughput)
					break
				}
			}
		}
		i = k
	}
}

// servingAt reads the serving command starting at line i (continuations
// joined), or "".
func (p *page) servingAt(i int) string {
	l := strings.TrimSpace(p.lines[i])
	if c, ok := strings.CutPrefix(l, "$ "); ok {
		l = strings.TrimSpace(c) // a shell prompt
	}
	if !ingest.StartsServingCommand(l) {
		return ""
	}
	parts := []string{l}
	for strings.HasSuffix(parts[len(parts)-1], `\`) && i+1 < len(p.lines) {
		i++
		parts = append(parts, strings.TrimSpace(p.lines[i]))
	}
	if c := strings.Join(parts, "\n"); ingest.ServingCommand(c) {
		return c
	}
	return "" // a container that runs no engine
}

// readRecommended finds the Conclusion's recommended serving command.
func (m *migration) readRecommended() {
	from, to := m.p.sectionNamed("Conclusion", "Conclusions", "Summary", "Recommendation", "Recommended Configuration")
	if from < 0 {
		return
	}
	for i := from; i < to; i++ {
		if c := m.p.servingAt(i); c != "" {
			m.recommend, m.recIdx = c, i
			m.note(i, "recommended command from the Conclusion: %s", oneLine(c))
			if mod := modelOfCommand(c); mod != "" {
				m.modelRefs = append(m.modelRefs, modelRef{mod, i, "recommended command"})
			}
			return
		}
	}
}

func oneLine(c string) string { return strings.Join(commandFields(c), " ") }

// cmdKey makes two spellings of one configuration equal: env assignments
// sorted in front, continuations joined, whitespace collapsed, and the
// flags after the program (the words before the first flag) in a
// canonical form: an engine's aliases as one name (SGLang's --model and
// --model-path, --tp and --tp-size; vLLM's -tp and
// --tensor-parallel-size), "--flag=value" as "--flag value", sorted, and
// the listening address (--host, --port) left out, since it changes
// nothing that is measured.
func cmdKey(c string) string {
	f := commandFields(c)
	var env, rest []string
	for i, x := range f {
		if reEnvAssign.MatchString(x) && len(rest) == 0 && i < len(f)-1 {
			env = append(env, x)
			continue
		}
		rest = append(rest, x)
	}
	sort.Strings(env)
	return strings.Join(append(env, canonArgs(rest)...), " ")
}

// flagAliases are an engine's spellings of one flag, each to its
// canonical name.
var flagAliases = map[string]map[string]string{
	"sglang": {"--model": "--model-path", "--tp": "--tp-size", "--dp": "--dp-size", "--ep": "--ep-size", "--pp": "--pp-size"},
	"vllm":   {"-tp": "--tensor-parallel-size", "-dp": "--data-parallel-size", "-pp": "--pipeline-parallel-size"},
}

// canonArgs is a command's words with its flags canonical (cmdKey). A
// docker run keeps its words as written: its flags are the container's.
func canonArgs(words []string) []string {
	if len(words) > 0 && words[0] == "docker" {
		return words
	}
	i := 0
	for i < len(words) && !strings.HasPrefix(words[i], "-") {
		i++
	}
	prog := append([]string(nil), words[:i]...)
	aliases := flagAliases[ingest.EngineOf(strings.Join(words, " "))]
	var pairs []string
	for ; i < len(words); i++ {
		k, v, hasEq := strings.Cut(words[i], "=")
		if !strings.HasPrefix(k, "-") {
			pairs = append(pairs, words[i]) // a stray positional
			continue
		}
		if !hasEq && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") {
			v = words[i+1]
			i++
		}
		if a, ok := aliases[k]; ok {
			k = a
		}
		if k == "--host" || k == "--port" {
			continue
		}
		pairs = append(pairs, strings.TrimSpace(k+" "+v))
	}
	sort.Strings(pairs)
	return append(prog, pairs...)
}

var reFlagLabel = regexp.MustCompile(`^(--?[A-Za-z][\w-]*)(?:[ =](\S+))?(?:\s+--?[A-Za-z][\w-]*(?:[ =]\S+)?)*$`)

// flagPair is one flag of a flag label and its value ("" for a switch).
type flagPair struct{ flag, value string }

// flagLabel reads a label made of flags ("--max-num-batched-tokens 8192",
// "--speculative-num-steps 4 --speculative-eagle-topk 8"); nil when the
// label is anything else.
func flagLabel(l string) []flagPair {
	l = strings.TrimSpace(l)
	if !reFlagLabel.MatchString(l) {
		return nil
	}
	f := strings.Fields(l)
	var out []flagPair
	for i := 0; i < len(f); i++ {
		x := f[i]
		if !strings.HasPrefix(x, "-") {
			return nil
		}
		if k, v, ok := strings.Cut(x, "="); ok {
			out = append(out, flagPair{k, v})
			continue
		}
		fp := flagPair{flag: x}
		if i+1 < len(f) && !strings.HasPrefix(f[i+1], "-") {
			fp.value = f[i+1]
			i++
		}
		out = append(out, fp)
	}
	return out
}

// withFlag returns the command with flag set to value (replaced where it
// is, appended otherwise).
func withFlag(cmd, flag, value string) string {
	f := commandFields(cmd)
	for i, x := range f {
		if x == flag {
			if value == "" {
				return strings.Join(f, " ")
			}
			if i+1 < len(f) {
				f[i+1] = value
				return strings.Join(f, " ")
			}
		}
		if strings.HasPrefix(x, flag+"=") {
			f[i] = flag + "=" + value
			return strings.Join(f, " ")
		}
	}
	f = append(f, flag)
	if value != "" {
		f = append(f, value)
	}
	return strings.Join(f, " ")
}

// stepOf returns the step the line is in (created on first use): its
// `###` heading under the results section, or its `##` heading on a page
// without `###` headings there; nil outside (the Conclusion, the setup)
// or under a heading that is not a step (Summary, Other Benchmark Cases).
func (m *migration) stepOf(idx int) *step {
	h := m.p.enclosing(idx, 3)
	h2 := m.p.enclosing(idx, 2)
	if h2 != nil && notResults(h2.title) {
		return nil
	}
	if h == nil && h2 != nil {
		// A page whose `##` sections are one configuration each ("## vLLM",
		// "## llama.cpp") is one step; a `##` section comparing several is
		// a step of its own.
		from, to := m.p.sectionAt(h2)
		n := 0
		for i := from; i < to; i++ {
			if m.p.servingAt(i) != "" {
				n++
			}
		}
		if n > 1 {
			h = h2
		} else {
			h = &heading{idx: -1, level: 2, title: "Experiments"}
		}
	}
	if h == nil {
		return nil
	}
	t := cleanTitle(h.title)
	lt := strings.ToLower(t)
	if strings.Contains(lt, "other benchmark") || strings.Contains(lt, "summary") || notResults(t) {
		return nil
	}
	for _, s := range m.steps {
		if s.idx == h.idx {
			return s
		}
	}
	s := &step{idx: h.idx}
	s.Title = t
	base := idSlug(t)
	if base == "" {
		base = "step"
	}
	s.ID = uniqueID(base, func(id string) bool {
		for _, x := range m.steps {
			if x.ID == id {
				return true
			}
		}
		return id == "other" || id == "unassigned"
	})
	s.Kind = stepKind(lt)
	m.steps = append(m.steps, s)
	return s
}

// notResults names the sections of a report page that hold no steps.
func notResults(title string) bool {
	switch strings.ToLower(cleanTitle(title)) {
	case "conclusion", "conclusions", "optimization objective", "objective", "experimental setup", "setup",
		"model", "hardware", "engine version", "benchmark dataset", "benchmark script", "benchmark method":
		return true
	}
	return false
}

func stepKind(t string) string {
	for _, k := range []struct{ word, kind string }{
		{"speculative", "speculative-decoding"}, {"kv cache dtype", "quantization"},
		{"engine", "engine-selection"}, {"parallel", "parallelism"}, {"attention", "attention-backend"},
		{"batched tokens", "scheduling"}, {"chunked", "scheduling"}, {"performance mode", "scheduling"},
		{"schedul", "scheduling"}, {"prefix cache", "caching"}, {"cache", "caching"}, {"quantiz", "quantization"},
	} {
		if strings.Contains(t, k.word) {
			return k.kind
		}
	}
	return ""
}

// labelBefore walks up from a serving command's line to the text that
// names it: a short plain line ("vLLM", "TP4+EP") or the heading. It also
// returns the role an admonition title gives ("Baseline serving script")
// and comment lines inside the fence (notes).
func (m *migration) labelBefore(idx int) (name, how, role string, notes []string) {
	p := m.p
	admName, admAt := "", ""
	for i := idx - 1; i >= 0; i-- {
		t := strings.TrimSpace(p.lines[i])
		switch {
		case t == "" || reFenceLine.MatchString(t):
			continue
		case strings.HasPrefix(t, "#") && !reHeading.MatchString(t) || (strings.HasPrefix(t, "# ") && insideFence(p, i)):
			notes = append([]string{strings.TrimSpace(strings.TrimLeft(t, "#"))}, notes...)
			continue
		case reAdmonition.MatchString(t):
			raw := reAdmonition.FindStringSubmatch(t)[3]
			title := strings.ToLower(raw)
			if strings.Contains(title, "baseline") {
				role = "baseline"
			} else if strings.Contains(title, "optimized") || strings.Contains(title, "optimised") {
				role = "optimized"
			}
			if n := admonitionName(raw); n != "" && admName == "" {
				admName, admAt = n, "admonition title "+p.loc(i)
			}
			continue
		case reHeading.MatchString(t):
			if admName != "" {
				return admName, admAt, role, notes
			}
			return cleanTitle(reHeading.FindStringSubmatch(t)[2]), "heading " + p.loc(i), role, notes
		case !insideFence(p, i) && nameLike(t):
			return cleanTitle(t), "label " + p.loc(i), role, notes
		case admName != "":
			return admName, admAt, role, notes
		default:
			if h := p.enclosing(idx, 4); h != nil && m.stepOf(idx) != nil {
				return cleanTitle(h.title), "heading " + p.loc(h.idx), role, notes
			}
			if h := p.enclosing(idx, 3); h != nil {
				return cleanTitle(h.title), "heading " + p.loc(h.idx), role, notes
			}
			// A blog's "## Prefix caching off" with a sentence between it
			// and the command: the section names the command (not a
			// template section, not a results one: "Experiment Results").
			if h := p.enclosing(idx, 2); h != nil && !notResults(h.title) && !slices.Contains(knownTitles, cleanTitle(h.title)) && nameLike(cleanTitle(h.title)) {
				return cleanTitle(h.title), "heading " + p.loc(h.idx), role, notes
			}
			return "", "", role, notes
		}
	}
	if admName != "" {
		return admName, admAt, role, notes
	}
	return "", "", role, notes
}

// reGenericTitle are the words of an admonition title that say what kind
// of block it holds, not which configuration: "Optimized serving script"
// names "Optimized", "Serving script" nothing.
var reGenericTitle = regexp.MustCompile(`(?i)\b(serving|server|launch|benchmark|bench|scripts?|commands?|results?|outputs?|configuration|config|cmd)\b`)

// admonitionName is the name an admonition title gives its block ("" for
// a title of generic words only).
func admonitionName(title string) string {
	n := strings.Join(strings.Fields(reGenericTitle.ReplaceAllString(title, " ")), " ")
	if !nameLike(n) {
		return ""
	}
	return n
}

var (
	reRule     = regexp.MustCompile(`^[\s=\-_*~#+.]*$`)
	reHasWord  = regexp.MustCompile(`\pL`)
	reCodeLike = regexp.MustCompile("(^|\\s)--[A-Za-z][\\w-]*|[{};]|^\\$ |^[\\w.-]+/[\\w.-]+$|^`[^`]*\\s[^`]*`$")
)

// nameLike: a line of prose a reader would take for the name of what
// follows ("vLLM", "TP4+EP"): short, with a letter, not a sentence or a
// list item, table row, rule (===, ---), command or code.
func nameLike(t string) bool {
	if t == "" || len(t) > 60 || reRule.MatchString(t) || !reHasWord.MatchString(t) {
		return false
	}
	if strings.HasSuffix(t, ".") || strings.HasSuffix(t, ":") || strings.ContainsAny(t[:1], "|-*!?>[<") {
		return false
	}
	return !reCodeLike.MatchString(t) && ingest.EngineOf(t) == ""
}

// insideFence: line i is inside a code fence (fence lines themselves are
// not).
func insideFence(p *page, i int) bool { return i >= 0 && i < len(p.fenced) && p.fenced[i] }

var (
	reEnvAssign = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	reEnvName   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// checkStepEngine reports an experiment whose command launches another
// engine than the one its step's heading names ("Quantization in
// TensorRT-LLM" over an SGLang command).
func (m *migration) checkStepEngine(x *exp, idx int) {
	if x.step == nil || x.checked {
		return
	}
	x.checked = true
	// A step may name several engines ("vLLM vs SGLang"): the experiment's
	// must be one of them.
	var named []string
	for _, w := range strings.FieldsFunc(x.step.Title, func(r rune) bool { return r == ' ' || r == '(' || r == ')' || r == ',' || r == '/' }) {
		eng := engineID(w)
		if eng == x.Engine {
			return
		}
		if eng != "" {
			named = append(named, w)
		}
	}
	if len(named) > 0 {
		m.ambiguous(idx, "step", "experiment %s runs %s, but its step %q names %s", x.ID, x.Engine, x.step.Title, strings.Join(named, " and "))
	}
}
