package migrate

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
)

// Placement rules, in the order they are tried; each names itself in the
// report ("output → … (rule: why)") and in the per-page tally.
const (
	ruleAnnotation = "annotation" // a `# perflab: profile=` line or a "Profile: X" line
	ruleLabelName  = "label"      // a label or heading naming a profile of the page
	ruleLabelFacts = "label-facts"
	ruleRows       = "rows"    // the block's tokens per request
	ruleCommand    = "command" // the benchmark command before the block
	ruleDerived    = "derived" // a new profile made from the block itself
	ruleLoadPoint  = "load-point"
	ruleCrash      = "crash"
)

// facts is what a label says about a block's workload: "ShareGPT batch
// size 4", "1k random input + 2k generation", "4000 in / 200 out",
// "random 32K input", "rate 10", "BS=8".
type facts struct {
	dataset string  // sharegpt, random, sonnet … ("" when not said)
	in, out int     // tokens per request (0 when not said)
	conc    int     // max concurrency / batch size (0 when not said)
	rate    float64 // request rate in req/s (0 when not said)
}

func (f facts) empty() bool { return f == facts{} }

func (f facts) String() string {
	var p []string
	if f.dataset != "" {
		p = append(p, f.dataset)
	}
	if f.in > 0 {
		p = append(p, fmt.Sprintf("%d input", f.in))
	}
	if f.out > 0 {
		p = append(p, fmt.Sprintf("%d output", f.out))
	}
	if f.conc > 0 {
		p = append(p, fmt.Sprintf("concurrency %d", f.conc))
	}
	if f.rate > 0 {
		p = append(p, fmt.Sprintf("rate %g", f.rate))
	}
	return strings.Join(p, ", ")
}

const reNum = `(\d+(?:\.\d+)?)\s*([kKmM])?`

var (
	reDatasetWord = regexp.MustCompile(`(?i)\b(sharegpt|random|sonnet|burstgpt|hf|instructcoder|prefix[-_ ]repetition)\b`)
	// "4000 in / 200 out", "1k/2k", "ISL 1024 OSL 128", "in=1024 out=128".
	reInOut   = regexp.MustCompile(`(?i)\b` + reNum + `\s*(?:tokens?\s*)?(?:in|input)?\s*/\s*` + reNum + `\s*(?:tokens?\s*)?(?:out|output)?\b`)
	reISL     = regexp.MustCompile(`(?i)\b(?:(?:isl|input[-_ ]len(?:gth)?)\s*[=:]?|in\s*[=:])\s*` + reNum + `\b`)
	reOSL     = regexp.MustCompile(`(?i)\b(?:(?:osl|output[-_ ]len(?:gth)?)\s*[=:]?|out\s*[=:])\s*` + reNum + `\b`)
	reInWord  = regexp.MustCompile(`(?i)\b` + reNum + `\s*(?:tokens?\s*)?(?:random\s+)?(?:input|in|prompt|prefill|context)\b`)
	reOutWord = regexp.MustCompile(`(?i)\b` + reNum + `\s*(?:tokens?\s*)?(?:output|out|generation|generated|gen|decode|completion)\b`)
	// "random 32K": a bare length after the dataset word is the input.
	reBareLen = regexp.MustCompile(`(?i)\brandom\s+` + reNum + `\b`)
	reConc    = regexp.MustCompile(`(?i)\b(?:batch[-_ ]?size|bs|max[-_ ]?concurrency|concurrency|concurrent|conc|c)\s*[=:]?\s*(\d+)\b|\b(\d+)\s*(?:concurrent|parallel)\b`)
	reRate    = regexp.MustCompile(`(?i)\b(?:request[-_ ]rate|rate|qps|rps)\s*[=:]?\s*(\d+(?:\.\d+)?)\b|\b(\d+(?:\.\d+)?)\s*(?:req/s|rps|qps)\b`)
)

// num reads "32", "1.5k", "2K".
func num(digits, mult string) int {
	v, err := strconv.ParseFloat(digits, 64)
	if err != nil {
		return 0
	}
	switch strings.ToLower(mult) {
	case "k":
		v *= 1000
	case "m":
		v *= 1000000
	}
	return int(math.Round(v))
}

// labelFacts reads what a label says about the workload.
func labelFacts(l string) facts {
	var f facts
	if l = strings.TrimSpace(l); l == "" || reFlagLabel.MatchString(l) {
		return f
	}
	if m := reDatasetWord.FindStringSubmatch(l); m != nil {
		f.dataset = strings.ReplaceAll(strings.ReplaceAll(strings.ToLower(m[1]), "-", "_"), " ", "_")
	}
	if m := reInOut.FindStringSubmatch(l); m != nil {
		f.in, f.out = num(m[1], m[2]), num(m[3], m[4])
	}
	if m := reInWord.FindStringSubmatch(l); m != nil && f.in == 0 {
		f.in = num(m[1], m[2])
	}
	if m := reOutWord.FindStringSubmatch(l); m != nil && f.out == 0 {
		f.out = num(m[1], m[2])
	}
	if m := reISL.FindStringSubmatch(l); m != nil && f.in == 0 {
		f.in = num(m[1], m[2])
	}
	if m := reOSL.FindStringSubmatch(l); m != nil && f.out == 0 {
		f.out = num(m[1], m[2])
	}
	if m := reBareLen.FindStringSubmatch(l); m != nil && f.in == 0 {
		f.in = num(m[1], m[2])
	}
	if m := reConc.FindStringSubmatch(l); m != nil {
		s := m[1]
		if s == "" {
			s = m[2]
		}
		f.conc, _ = strconv.Atoi(s)
	}
	if m := reRate.FindStringSubmatch(l); m != nil {
		s := m[1]
		if s == "" {
			s = m[2]
		}
		f.rate, _ = strconv.ParseFloat(s, 64)
	}
	if f.dataset == "" && (f.in > 0 || f.out > 0) {
		f.dataset = "random" // lengths are a random dataset's settings
	}
	return f
}

// labelsAround are the texts that label a block: the comment inside its
// fence (Entry.Label), then the plain line or admonition title right
// before its fence ("??? info \"ShareGPT, concurrency 16\"", "- **1k in /
// 2k out**"). Headings are read by the heading rule.
func (m *migration) labelsAround(e *ingest.Entry) []string {
	var out []string
	if l := strings.TrimSpace(e.Label); l != "" {
		out = append(out, l)
	}
	p := m.p
	i := e.Line - 2
	for ; i >= 0; i-- {
		t := strings.TrimSpace(unquote(p.lines[i]))
		if t == "" || strings.HasPrefix(t, "#") && insideFence(p, i) || reFenceLine.MatchString(p.lines[i]) {
			continue
		}
		break
	}
	if i < 0 || insideFence(p, i) {
		return out
	}
	t := strings.TrimSpace(unquote(p.lines[i]))
	if mm := reAdmonition.FindStringSubmatch(t); mm != nil {
		if mm[3] != "" {
			out = append(out, mm[3])
		}
		return out
	}
	if reHeading.MatchString(t) {
		return out
	}
	t = strings.TrimSpace(strings.TrimLeft(t, ">-*+ "))
	t = strings.NewReplacer("**", "", "__", "", "`", "").Replace(t)
	if t != "" && len(t) <= 120 && m.p.servingAt(i) == "" {
		out = append(out, strings.TrimSuffix(t, ":"))
	}
	return out
}

// perRequest is a block's input and output tokens per completed request.
func perRequest(e *ingest.Entry) (in, out float64, ok bool) {
	s := e.Summary
	if s == nil || s.Completed == 0 {
		return 0, 0, false
	}
	return float64(s.TotalInputTokens) / float64(s.Completed), float64(s.TotalOutputTokens) / float64(s.Completed), true
}

// ShareGPT's requests, as vLLM samples ShareGPT_V3_unfiltered_cleaned_split
// (first turn as prompt, the reply's length as output), average about 220
// input and 200 output tokens with common tokenizers; a block whose
// averages are more than shareGPTBand times off either way did not run it.
const (
	shareGPTIn, shareGPTOut = 220.0, 200.0
	shareGPTBand            = 3.0
)

// fits reports whether a block's tokens per request are consistent with
// profile pr, and if not, why. A random profile's input length must be
// within 10% (plus its range ratio), its output at most 10% above (a
// reply may stop early unless EOS is ignored); ShareGPT's averages must
// be within shareGPTBand of the dataset's. Other datasets are not sized.
func fits(pr *schema.Profile, e *ingest.Entry) (bool, string) {
	return fitsSummary(pr, e.Summary)
}

// fitsSummary is fits for a block's numbers.
func fitsSummary(pr *schema.Profile, s *schema.Summary) (bool, string) {
	if s == nil || s.Completed == 0 {
		return true, ""
	}
	in, out, ok := float64(s.TotalInputTokens)/float64(s.Completed), float64(s.TotalOutputTokens)/float64(s.Completed), true
	if !ok {
		return true, ""
	}
	switch pr.Dataset {
	case "random":
		tol := 0.10 + pr.RangeRatio
		if pr.InputLen > 0 && math.Abs(in-float64(pr.InputLen)) > tol*float64(pr.InputLen) {
			return false, fmt.Sprintf("%.0f input tokens per request, not the %d of profile %s", in, pr.InputLen, pr.ID)
		}
		if pr.OutputLen > 0 && out > (1.1+pr.RangeRatio)*float64(pr.OutputLen) {
			return false, fmt.Sprintf("%.0f output tokens per request, more than the %d of profile %s", out, pr.OutputLen, pr.ID)
		}
	case "sharegpt":
		if in > shareGPTIn*shareGPTBand || in < shareGPTIn/shareGPTBand || out > shareGPTOut*shareGPTBand || out < shareGPTOut/shareGPTBand {
			return false, fmt.Sprintf("%.0f input / %.0f output tokens per request, far from ShareGPT's (about %.0f / %.0f)", in, out, shareGPTIn, shareGPTOut)
		}
	}
	return true, ""
}

// profileForFacts finds the profile a label's facts describe: the
// dataset's profile, or the random profile of those lengths.
func (m *migration) profileForFacts(f facts) *schema.Profile {
	switch {
	case f.in > 0:
		out := float64(f.out)
		if f.out == 0 {
			out = -1
		}
		if pr := m.nearestRandom(float64(f.in), out); pr != nil && (f.out == 0 || pr.OutputLen == 0 || within(float64(f.out), float64(pr.OutputLen), 0.10)) {
			return pr
		}
		return nil
	case f.dataset != "" && f.dataset != "random":
		var found *schema.Profile
		for k := range m.profiles {
			if pr := &m.profiles[k]; pr.Dataset == f.dataset && pr.MaxConcurrency == 0 && pr.RequestRate == 0 && pr.Sweep() == "" {
				if found != nil {
					return nil // two profiles of the dataset: the label does not choose
				}
				found = pr
			}
		}
		return found
	}
	return nil
}

func within(v, ref, tol float64) bool { return ref > 0 && math.Abs(v-ref) <= tol*ref }

// benchCommandBefore is the profile of the benchmark command nearest
// before the block in its section, when one names a dataset a profile
// has (a page that runs `vllm bench serve --dataset-name random
// --random-input-len 1024 …` and pastes its output below).
func (m *migration) benchCommandBefore(idx int) (*schema.Profile, string) {
	var best benchCommand
	found := false
	for _, bc := range m.p.benchCommands() {
		if bc.idx < idx && (m.p.enclosing(idx, 2) == m.p.enclosing(bc.idx, 2)) {
			best, found = bc, true
		}
	}
	if !found {
		return nil, ""
	}
	// Not when another block sits between the command and this one.
	for _, e := range m.entries {
		if l := e.Line - 1; l > best.idx && l < idx {
			return nil, ""
		}
	}
	f := best.fields
	ds, _ := flagValue(f, "--dataset-name", "--dataset")
	switch strings.ToLower(ds) {
	case "random":
		in, _ := strconv.Atoi(first(flagValue(f, "--random-input-len", "--input-len", "--random-input")))
		out, _ := strconv.Atoi(first(flagValue(f, "--random-output-len", "--output-len", "--random-output")))
		return m.profileBy(func(x *schema.Profile) bool { return x.Dataset == "random" && x.InputLen == in && x.OutputLen == out }), m.p.loc(best.idx)
	case "":
		return nil, ""
	default:
		return m.profileForFacts(facts{dataset: strings.ToLower(ds)}), m.p.loc(best.idx)
	}
}

// derivedProfile makes (or finds) the profile a block's own numbers
// describe when no profile of the page fits it: random of its rounded
// lengths when the label says so or the totals are whole per request,
// else a dataset of unknown kind of about those lengths. Its prompt count
// is taken from the outputs that use it (campaign).
func (m *migration) derivedProfile(e *ingest.Entry, f facts) *schema.Profile {
	in, out, _ := perRequest(e)
	s := e.Summary
	pr := schema.Profile{Dataset: "random"}
	switch {
	case f.in > 0 && within(in, float64(f.in), 0.10) && (f.out == 0 || out <= 1.1*float64(f.out)):
		pr.InputLen, pr.OutputLen = f.in, f.out
		if pr.OutputLen == 0 {
			pr.OutputLen = int(math.Round(out))
		}
	case f.dataset == "random" || s.TotalInputTokens%s.Completed == 0 && s.TotalOutputTokens%s.Completed == 0:
		pr.InputLen, pr.OutputLen = int(math.Round(in)), int(math.Round(out))
	default:
		pr.Dataset = "unknown"
		pr.InputLen, pr.OutputLen = int(math.Round(in)), int(math.Round(out))
	}
	if pr.Dataset == "random" {
		pr.Name = fmt.Sprintf("Random %d/%d", pr.InputLen, pr.OutputLen)
		if ex := m.profileBy(func(x *schema.Profile) bool {
			return x.Dataset == "random" && x.InputLen == pr.InputLen && x.OutputLen == pr.OutputLen
		}); ex != nil {
			return ex
		}
	} else {
		pr.Name = fmt.Sprintf("About %d/%d tokens", pr.InputLen, pr.OutputLen)
	}
	pr.Description = fmt.Sprintf("%d input tokens, %d output tokens per request (derived from the outputs)", pr.InputLen, pr.OutputLen)
	return m.addProfile(e.Line-1, pr, "an output no profile of the page fits")
}

// loadOf is a block's load as its rows (or label) state it: max
// concurrency (0: none) and request rate (0: inf).
type loadKey struct {
	conc int
	rate float64
}

func loadOf(e *ingest.Entry) loadKey {
	r := e.Load.RequestRate
	if math.IsInf(r, 1) {
		r = 0
	}
	return loadKey{e.Load.MaxConcurrency, r}
}

func (k loadKey) slug() string {
	switch {
	case k.conc > 0:
		return fmt.Sprintf("c%d", k.conc)
	case k.rate > 0:
		return "rate" + strconv.FormatFloat(k.rate, 'f', -1, 64)
	}
	return "uncapped"
}

func (k loadKey) String() string {
	switch {
	case k.conc > 0 && k.rate > 0:
		return fmt.Sprintf("concurrency %d, %g req/s", k.conc, k.rate)
	case k.conc > 0:
		return fmt.Sprintf("concurrency %d", k.conc)
	case k.rate > 0:
		return fmt.Sprintf("%g req/s", k.rate)
	}
	return "no concurrency cap"
}

// loadPoints separates the loads of a profile: the outputs of a profile
// that ran at another max concurrency or request rate than the profile's
// own (the load its benchmark command states, else the one most of its
// outputs ran at) are load points of that dataset, not repeats of it: they
// move to a profile of their own, "<profile>-c4" ("ShareGPT, concurrency
// 4"), shared by every experiment that ran that load, or "<profile>-sweep"
// when an experiment ran several such loads (sweeps then makes its list
// of points). A profile whose outputs all vary their load per experiment
// is left to sweeps (a sweep page).
func (m *migration) loadPoints() {
	nProf := len(m.profiles)
	for pi := 0; pi < nProf; pi++ {
		pr := m.profiles[pi]
		if pr.Sweep() != "" {
			continue
		}
		stated := loadKey{pr.MaxConcurrency, pr.RequestRate}
		var members []int
		count := map[loadKey]int{}
		perExp := map[*exp]map[loadKey]bool{}
		for i := range m.entries {
			pl := m.places[i]
			if pl.profile != pr.ID || pl.exp == nil || m.entries[i].Format == ingest.FormatCrash {
				continue
			}
			k := loadOf(&m.entries[i])
			members = append(members, i)
			count[k]++
			if perExp[pl.exp] == nil {
				perExp[pl.exp] = map[loadKey]bool{}
			}
			perExp[pl.exp][k] = true
		}
		if len(count) == 1 && stated == (loadKey{}) {
			// Every output ran at one load the page's profile does not
			// state ("--max-concurrency 128" on the benchmark command,
			// "Maximum request concurrency: 128" in each output): that is
			// the profile's load, as a re-run must reproduce it.
			for k := range count {
				if k != (loadKey{}) {
					m.profiles[pi].MaxConcurrency, m.profiles[pi].RequestRate = k.conc, k.rate
					m.note(m.entries[members[0]].Line-1, "profile %s runs at %s: the load all of its outputs state", pr.ID, k)
				}
			}
			continue
		}
		if len(count) < 2 {
			continue
		}
		own, stays := stated, count[stated] > 0
		if !stays {
			for _, loads := range perExp {
				if len(loads) > 1 {
					stays = true // a sweep page: sweeps makes its points
				}
			}
			if stays {
				continue
			}
			// The load most outputs ran at (the lowest on a tie) is the
			// profile's own.
			best := -1
			for k, n := range count {
				if n > best || n == best && (k.conc < own.conc || k.conc == own.conc && k.rate < own.rate) {
					own, best = k, n
				}
			}
			m.profiles[pi].MaxConcurrency, m.profiles[pi].RequestRate = own.conc, own.rate
			m.note(m.entries[members[0]].Line-1, "profile %s runs at %s: the load most of its outputs state", pr.ID, own)
		}
		moved := map[*exp]map[loadKey]bool{}
		several := false
		for _, i := range members {
			k := loadOf(&m.entries[i])
			if k == own {
				continue
			}
			x := m.places[i].exp
			if moved[x] == nil {
				moved[x] = map[loadKey]bool{}
			}
			moved[x][k] = true
			several = several || len(moved[x]) > 1
		}
		made := map[string]string{}
		for _, i := range members {
			k := loadOf(&m.entries[i])
			if k == own {
				continue
			}
			id, name := pr.ID+"-"+k.slug(), pr.Name+", "+k.String()
			if several {
				id, name = pr.ID+"-sweep", pr.Name+" (sweep)"
			}
			got, ok := made[id]
			if !ok {
				q := pr
				q.ID, q.Name, q.NumPrompts = boundID(id, id), name, 0
				q.MaxConcurrency, q.RequestRate = k.conc, k.rate
				if several {
					q.MaxConcurrency, q.RequestRate = 0, 0
				}
				q.Description = fmt.Sprintf("%s at another load than profile %s's", pr.Name, pr.ID)
				if ex := m.profileBy(func(x *schema.Profile) bool { return x.ID == q.ID }); ex == nil {
					m.profiles = append(m.profiles, q)
				}
				got, made[id] = q.ID, q.ID
			}
			m.places[i].profile = got
			m.places[i].rule = ruleLoadPoint
			m.places[i].why = fmt.Sprintf("%s, ran at %s where profile %s runs at %s: a load point of that dataset", m.places[i].why, k, pr.ID, own)
		}
	}
}
