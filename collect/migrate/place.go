package migrate

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/perflab/perflab/collect/ingest"
	"github.com/perflab/perflab/collect/schema"
)

var (
	reProfileLine = regexp.MustCompile("(?i)^[-*]?\\s*Profile:\\s*`?([^`]+?)`?\\s*$")
	reParamsLine  = regexp.MustCompile(`(?i)^[-*]?\s*(Baseline |Optimized )?Backend Parameters:?\s*(N/A|none|default|defaults|-)?\s*$`)
	reInputLabel  = regexp.MustCompile(`(?i)(\d+(?:\.\d+)?)\s*(k)?\s*(?:tokens?\s*)?input`)
)

// placeEntries decides every entry's experiment and profile.
func (m *migration) placeEntries() {
	m.places = make([]place, len(m.entries))
	for i := range m.entries {
		e := &m.entries[i]
		idx := e.Line - 1
		var x *exp
		var why string
		if m.generator {
			x, why = m.generatorExp(e, idx)
		} else {
			x, why = m.commandExp(e, idx)
		}
		m.places[i].exp = x
		if x == nil {
			m.places[i].reason = why
		}
	}
	// A page that describes no profile at all: one per distinct length
	// of its outputs.
	if len(m.profiles) == 0 {
		m.profilesFromOutputs()
	}
	// Profiles: labels, "Profile:" lines and headings, token totals; crash
	// markers take their neighbours'.
	for i := range m.entries {
		e := &m.entries[i]
		if e.Format == ingest.FormatCrash {
			continue
		}
		m.places[i].profile, m.places[i].why, m.places[i].rule = m.profileOf(e)
		if m.places[i].profile == "" && m.places[i].reason == "" {
			m.places[i].reason = m.places[i].why
		}
	}
	for i := range m.entries {
		e := &m.entries[i]
		if e.Format != ingest.FormatCrash {
			continue
		}
		m.places[i].profile, m.places[i].why = m.crashProfile(i)
		m.places[i].rule = ruleCrash
	}
	m.loadPoints()
	m.pastedAgain()
	// Repeated outputs: the same experiment and profile twice is fine when
	// the numbers agree (the page shows a run twice); at another load it is
	// a point of a sweep (below); otherwise the later block is another run
	// of the same command: an experiment of its own, named by its label or
	// heading ("# triton", "#### auto"), else "<name> (run N)".
	for i := range m.entries {
		pi := &m.places[i]
		if pi.exp == nil || pi.profile == "" || m.entries[i].Format == ingest.FormatCrash {
			continue
		}
		for tries := 0; tries < len(m.entries); tries++ {
			j := m.collision(i)
			if j < 0 {
				break
			}
			if j == i {
				break // a repeat with the same numbers: imported once
			}
			if x := m.occurrenceExp(i, j); x != nil {
				pi.exp = x
				continue
			}
			pi.exp = m.rerunExp(i, j, tries)
		}
	}
	m.sweeps()
	for i := range m.entries {
		pi := &m.places[i]
		e := &m.entries[i]
		if pi.exp != nil && pi.profile != "" && pi.reason == "" {
			rule := pi.rule
			if rule == "" {
				rule = "?"
			}
			if m.out.Rules == nil {
				m.out.Rules = map[string]int{}
			}
			m.out.Rules[rule]++
			m.note(e.Line-1, "output → experiment %s, profile %s [%s: %s]", pi.exp.ID, pi.profile, rule, pi.why)
			continue
		}
		if pi.reason == "" {
			pi.reason = "no experiment or profile"
		}
		m.ambiguous(e.Line-1, "unassigned", "output not placed: %s; imported as unassigned", pi.reason)
		m.out.Unassigned++
		u := &exp{unassigned: true, firstIdx: e.Line - 1}
		u.ID = fmt.Sprintf("unassigned-%d", m.out.Unassigned)
		u.Name = fmt.Sprintf("Unassigned output %d", m.out.Unassigned)
		u.Engine = ingest.EngineOf(e.Command)
		if u.Engine == "" {
			u.Engine = "external"
		}
		if pi.exp != nil {
			u.Engine, u.Command, u.Env, u.GPUs = pi.exp.Engine, pi.exp.Command, pi.exp.Env, pi.exp.GPUs
		}
		m.exps = append(m.exps, u)
		pi.exp = u
		if pi.profile == "" || strings.Contains(pi.reason, "already have") {
			pi.profile = "unassigned"
		}
	}
}

// loadDiffers: two outputs ran at another max concurrency or request
// rate, as their outputs print them ("Maximum request concurrency: 64",
// "Request rate configured (RPS): 10.00").
func loadDiffers(a, b *ingest.Entry) bool {
	return a.Load.MaxConcurrency != b.Load.MaxConcurrency || a.Load.RequestRate != b.Load.RequestRate
}

// sweeps turns the outputs of one serving command and profile at several
// loads into the points of a sweep profile (max_concurrency: [1, 8, 64],
// or request_rate: [..] when the caps do not vary), so that the page
// becomes a curve page: the profile itself when every output of it is a
// point of such a sweep, else a copy "<profile>-sweep" for the sweeping
// experiments (the others keep the profile at one load).
func (m *migration) sweeps() {
	m.splitLoadKinds()
	type key struct {
		x    *exp
		prof string
	}
	groups := map[key][]int{}
	var order []key
	for i := range m.entries {
		pl := m.places[i]
		if pl.exp == nil || pl.profile == "" || pl.reason != "" || m.entries[i].Format == ingest.FormatCrash {
			continue
		}
		k := key{pl.exp, pl.profile}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	// The sweep of each group with outputs at two loads or more.
	kind := map[key]string{}
	vals := map[string]map[float64]bool{} // profile → swept values
	profKind := map[string]string{}
	for _, k := range order {
		conc, rate := map[float64]bool{}, map[float64]bool{}
		capped := true
		for _, i := range groups[k] {
			l := m.entries[i].Load
			conc[float64(l.MaxConcurrency)] = true
			r := l.RequestRate
			if math.IsInf(r, 1) {
				r = 0
			}
			rate[r] = true
			capped = capped && l.MaxConcurrency > 0
		}
		var sw string
		var v map[float64]bool
		switch {
		case capped && len(conc) > 1 && len(conc) >= len(rate):
			sw, v = schema.SweepConcurrency, conc
		case len(rate) > 1:
			sw, v = schema.SweepRate, rate
		default:
			continue
		}
		if pk := profKind[k.prof]; pk != "" && pk != sw {
			// One profile swept by concurrency here and by rate there: the
			// later group stays as it is (its outputs are reported).
			m.ambiguous(m.entries[groups[k][0]].Line-1, "sweep", "experiment %s sweeps %s on profile %s, another experiment %s: not made a sweep", k.x.ID, sw, k.prof, pk)
			continue
		}
		profKind[k.prof] = sw
		kind[k] = sw
		if vals[k.prof] == nil {
			vals[k.prof] = map[float64]bool{}
		}
		for x := range v {
			vals[k.prof][x] = true
		}
	}
	if len(kind) == 0 {
		return
	}
	// Profiles every group of which sweeps are made sweeps in place.
	inPlace := map[string]bool{}
	for prof := range profKind {
		inPlace[prof] = true
	}
	for _, k := range order {
		if profKind[k.prof] != "" && kind[k] == "" {
			inPlace[k.prof] = false
		}
	}
	for prof, sw := range profKind {
		var list []float64
		for x := range vals[prof] {
			list = append(list, x)
		}
		sort.Float64s(list)
		for pi := range m.profiles {
			if m.profiles[pi].ID != prof {
				continue
			}
			pr := m.profiles[pi] // a copy; Args shared but not changed
			pr.MaxConcurrency, pr.RequestRate = 0, 0
			pr.Concurrencies, pr.RequestRates = nil, nil
			switch sw {
			case schema.SweepConcurrency:
				for _, x := range list {
					pr.Concurrencies = append(pr.Concurrencies, int(x))
				}
			case schema.SweepRate:
				if list[0] == 0 { // inf is the highest rate
					list = append(list[1:], 0)
				}
				pr.RequestRates = list
			}
			if inPlace[prof] {
				m.profiles[pi] = pr
			} else {
				pr.ID += "-sweep"
				pr.Name += " (sweep)"
				m.profiles = append(m.profiles, pr)
			}
			break
		}
	}
	// A crash marker says no load: in a sweep it is no point.
	for i := range m.entries {
		pl := &m.places[i]
		if m.entries[i].Format == ingest.FormatCrash && pl.exp != nil && pl.reason == "" && kind[key{pl.exp, pl.profile}] != "" {
			pl.reason = fmt.Sprintf("a crash marker among the outputs of experiment %s's sweep on profile %s, at no load it states", pl.exp.ID, pl.profile)
			pl.profile = ""
		}
	}
	for _, k := range order {
		if kind[k] == "" {
			continue
		}
		prof := k.prof
		if !inPlace[prof] {
			prof += "-sweep"
		}
		var pts []string
		for _, i := range groups[k] {
			m.places[i].profile = prof
			pt := entryPoint(&m.entries[i], kind[k])
			pts = append(pts, pt.String()+" "+m.p.loc(m.entries[i].Line-1))
		}
		m.note(m.entries[groups[k][0]].Line-1, "experiment %s ran profile %s at %d loads: a sweep profile %s (%s)", k.x.ID, k.prof, len(groups[k]), prof, strings.Join(pts, ", "))
	}
}

// splitLoadKinds: one experiment's outputs of one profile, some capped
// by several max concurrencies (a concurrency sweep) and others paced by a request
// rate alone (a rate sweep: "Traffic request rate: 2.00", no concurrency
// cap), are two sweeps, not one: the fewer move to a copy of the profile,
// "<profile>-rate" (or "-concurrency"), so that each sweep's points are
// of one kind. (They made one group whose concurrency points all sat at
// the rate sweep's "inf" point, and the page was not migrated.)
func (m *migration) splitLoadKinds() {
	type key struct {
		x    *exp
		prof string
	}
	capped, paced := map[key][]int{}, map[key][]int{}
	seen := map[key]bool{}
	var order []key
	for i := range m.entries {
		pl := m.places[i]
		if pl.exp == nil || pl.profile == "" || pl.reason != "" || m.entries[i].Format == ingest.FormatCrash {
			continue
		}
		k := key{pl.exp, pl.profile}
		if !seen[k] {
			seen[k] = true
			order = append(order, k)
		}
		l := m.entries[i].Load
		switch r := l.RequestRate; {
		case l.MaxConcurrency > 0:
			capped[k] = append(capped[k], i)
		case r > 0 && !math.IsInf(r, 1):
			paced[k] = append(paced[k], i)
		}
	}
	for _, k := range order {
		c, r := capped[k], paced[k]
		concs := map[int]bool{}
		for _, i := range c {
			concs[m.entries[i].Load.MaxConcurrency] = true
		}
		if len(concs) < 2 || len(r) == 0 {
			// One capped output among rate-paced ones is the rate sweep's
			// unlimited ("inf") point, its cap a label's.
			continue
		}
		move, suffix, what := r, "-rate", "request rate"
		if len(r) > len(c) {
			move, suffix, what = c, "-concurrency", "max concurrency"
		}
		id := m.loadKindProfile(k.prof, suffix, what)
		if id == "" {
			continue
		}
		var at []string
		for _, i := range move {
			m.places[i].profile = id
			at = append(at, m.p.loc(m.entries[i].Line-1))
		}
		m.note(m.entries[move[0]].Line-1, "experiment %s ran profile %s capped by concurrency at %d outputs and paced by a request rate alone at %d: the %s outputs (%s) are profile %s", k.x.ID, k.prof, len(c), len(r), what, strings.Join(at, ", "), id)
	}
	// One experiment sweeps a profile by concurrency, another by rate:
	// the rate sweeps move to "<profile>-rate" (each experiment's outputs
	// stay together), so that the profile's points are of one kind.
	rated := map[string][]key{}
	byConc := map[string]bool{}
	for _, k := range order {
		c, r := capped[k], paced[k]
		if len(c)+len(r) == 0 || m.places[firstOf(c, r)].profile != k.prof {
			continue // no load stated, or moved above
		}
		concs := map[int]bool{}
		for _, i := range c {
			concs[m.entries[i].Load.MaxConcurrency] = true
		}
		switch {
		case len(concs) > 1 && len(r) == 0:
			byConc[k.prof] = true
		case len(r) > 1 && len(concs) <= 1:
			rated[k.prof] = append(rated[k.prof], k)
		}
	}
	for _, k := range order {
		if !byConc[k.prof] {
			continue
		}
		for _, rk := range rated[k.prof] {
			id := m.loadKindProfile(rk.prof, "-rate", "request rate")
			if id == "" {
				continue
			}
			var at []string
			for i := range m.entries {
				if pl := &m.places[i]; pl.exp == rk.x && pl.profile == rk.prof && pl.reason == "" {
					pl.profile = id
					at = append(at, m.p.loc(m.entries[i].Line-1))
				}
			}
			m.note(m.entries[paced[rk][0]].Line-1, "experiment %s sweeps profile %s by request rate where another experiment sweeps it by concurrency: its outputs (%s) are profile %s", rk.x.ID, rk.prof, strings.Join(at, ", "), id)
		}
		delete(rated, k.prof)
	}
}

// firstOf is the first index of two lists (the one that is not empty).
func firstOf(a, b []int) int {
	if len(a) > 0 {
		return a[0]
	}
	return b[0]
}

// loadKindProfile is the copy of profile prof for the outputs of one kind
// of load ("-rate": paced by a request rate alone; "-concurrency"),
// created when missing; "" when prof is no profile of the page.
func (m *migration) loadKindProfile(prof, suffix, what string) string {
	pr := m.profileBy(func(x *schema.Profile) bool { return x.ID == prof })
	if pr == nil {
		return ""
	}
	id := boundID(prof+suffix, prof+suffix)
	if m.profileBy(func(x *schema.Profile) bool { return x.ID == id }) == nil {
		q := *pr
		q.ID, q.Name = id, pr.Name+" ("+what+")"
		q.MaxConcurrency, q.RequestRate, q.Concurrencies, q.RequestRates = 0, 0, nil, nil
		q.Description = fmt.Sprintf("%s, its outputs paced by %s (profile %s's other outputs are of another kind of load)", pr.Name, what, prof)
		m.profiles = append(m.profiles, q)
	}
	return id
}

// entryPoint is the load point of an output in a sweep of kind
// (schema.SweepConcurrency or SweepRate).
func entryPoint(e *ingest.Entry, kind string) schema.Point {
	l := e.Load
	l.Sweep = kind
	return schema.PointOf(l)
}

func reflect2(a, b *schema.Summary) bool {
	if a == nil || b == nil {
		return a == b
	}
	ja, _ := schema.Marshal(&schema.Result{Summary: a})
	jb, _ := schema.Marshal(&schema.Result{Summary: b})
	return string(ja) == string(jb)
}

// experiment returns the experiment of a command, creating it.
func (m *migration) experiment(cmd string, idx int, name, how string) *exp {
	key := cmdKey(cmd)
	if x, ok := m.byKey[key]; ok {
		return x
	}
	x := &exp{key: key, firstIdx: idx, how: how}
	env, rest := splitEnv(cmd)
	x.Command = rest
	x.Env = env
	x.Engine = ingest.EngineOf(rest)
	if x.Engine == "" {
		x.Engine = "external"
	}
	x.GPUs = gpusOf(rest)
	if x.GPUs == 0 && x.Engine != "external" {
		// An engine launched without a parallel size runs on one GPU: a
		// per-GPU comparison with a TP2 experiment divides by 1, not by
		// the node's count.
		x.GPUs = 1
	}
	if mod := modelOfCommand(rest); mod != "" {
		m.modelRefs = append(m.modelRefs, modelRef{mod, idx, "serving command"})
	}
	x.step = m.stepOf(idx)
	if name == "" {
		// No label or heading: the engine names it, and where another
		// experiment has that name, the flags this command sets otherwise
		// (never the command line itself: code is no name).
		name = engineName(x.Engine)
		how = "engine (no label or heading)"
		if prev := m.expNamedX(name); prev != nil {
			if d := flagDiff(prev.Command, rest); d != "" {
				name += ", " + d
				how = "engine and the flags that set it apart from experiment " + prev.ID
			}
		}
		if r := []rune(name); len(r) > 60 {
			name = string(r[:59]) + "…"
		}
		for n, base := 2, name; m.expNamed(name); n++ {
			name = fmt.Sprintf("%s (%d)", base, n)
		}
	}
	x.Name = name
	base := idSlug(name)
	if base == "" {
		base = "experiment" // a name with no ASCII letter or digit ("基线")
	}
	x.ID = uniqueID(base, func(id string) bool {
		for _, y := range m.exps {
			if y.ID == id {
				return true
			}
		}
		return id == "unassigned" || strings.HasPrefix(id, "unassigned-")
	})
	m.byKey[key] = x
	m.exps = append(m.exps, x)
	m.note(idx, "experiment %s (%q, named from the %s): %s", x.ID, x.Name, how, oneLine(cmd))
	return x
}

func splitEnv(cmd string) (map[string]string, string) {
	f := commandFields(cmd)
	var env map[string]string
	i := 0
	for ; i < len(f)-1; i++ {
		k, v, ok := strings.Cut(f[i], "=")
		if !ok || !reEnvName.MatchString(k) {
			break
		}
		if env == nil {
			env = map[string]string{}
		}
		env[k] = v
	}
	return env, strings.Join(f[i:], " ")
}

// commandExp places an entry of a page with serving commands.
func (m *migration) commandExp(e *ingest.Entry, idx int) (*exp, string) {
	if e.Command == "" {
		return nil, "no serving command precedes it"
	}
	if c, ci, why := m.commandByHeading(e); c != "" {
		m.note(idx, "the output's heading %s names the serving command at %s (%s), not the nearest one above it at %s", m.p.loc(m.nearestHeading(idx).idx), m.p.loc(ci), why, m.p.loc(e.CommandLine-1))
		e.Command, e.CommandLine = c, ci+1
	}
	cmdIdx := e.CommandLine - 1
	name, how, role, notes := m.labelBefore(cmdIdx)
	cmd := e.Command
	// A flag label inside the fence ("# --max-num-batched-tokens 32768",
	// "# --speculative-num-steps 2 --speculative-eagle-topk 1") says which
	// variation of the command ran: the flags it sets that the command
	// does not have as written name the experiment.
	if fl := flagLabel(e.Label); fl != nil {
		variant := dropFamily(cmd, fl)
		var changed, all []string
		dropped := cmdKey(variant) != cmdKey(cmd)
		for _, fp := range fl {
			next := withFlag(variant, fp.flag, fp.value)
			kv := strings.TrimSpace(strings.TrimLeft(fp.flag, "-") + " " + fp.value)
			if cmdKey(next) != cmdKey(variant) {
				changed = append(changed, kv)
			}
			all = append(all, kv)
			variant = next
		}
		if len(changed) > 0 || dropped {
			m.note(idx, "the label %q changes the serving command of %s to: %s", e.Label, m.p.loc(cmdIdx), variant)
		}
		if len(changed) > 0 && !dropped {
			all = changed
		}
		name, how = shortName(strings.Join(all, ", ")), "flag label "+m.p.loc(idx)
		cmd = variant
		e.Command = variant
	} else if l := strings.TrimSpace(e.Label); l != "" && !strings.ContainsAny(l, " \t") && flagWithValue(cmd, l) != "" {
		// "# triton" over --attention-backend triton: the label names the
		// run by the value it sets.
		name, how = l, fmt.Sprintf("label %s (the value of %s)", m.p.loc(idx), flagWithValue(cmd, l))
	}
	x := m.experiment(cmd, cmdIdx, name, how)
	m.checkStepEngine(x, cmdIdx)
	if len(notes) > 0 && x.Note == "" {
		x.Note = strings.Join(notes, " ")
	}
	if role != "" && x.role == "" {
		x.role = role
		m.note(cmdIdx, "experiment %s is the %s (admonition title)", x.ID, role)
	}
	return x, ""
}

// generatorExp places an entry of a GPUStack generator page: the engine
// heading, the model (FP8 variant under a quantization heading) and the
// Backend Parameters fence before it.
func (m *migration) generatorExp(e *ingest.Entry, idx int) (*exp, string) {
	p := m.p
	params, role, pidx := "", "", -1
	for i := idx - 1; i >= 0; i-- {
		t := strings.TrimSpace(p.lines[i])
		if reHeading.MatchString(t) && i < idx-1 {
			if pidx < 0 {
				continue // the "Profile" heading of Other Benchmark Cases comes before the parameters
			}
			break
		}
		if mm := reParamsLine.FindStringSubmatch(t); mm != nil && pidx < 0 {
			pidx = i
			role = strings.ToLower(strings.TrimSpace(mm[1]))
			if mm[2] != "" {
				break // "Backend Parameters: N/A": the engine's defaults
			}
			// the fence after it
			var body []string
			in := false
			for k := i + 1; k < idx; k++ {
				l := strings.TrimSpace(p.lines[k])
				if reFenceLine.MatchString(l) {
					if in {
						break
					}
					in = true
					continue
				}
				if in {
					body = append(body, strings.TrimSuffix(strings.TrimSpace(l), `\`))
				}
			}
			params = strings.Join(strings.Fields(strings.Join(body, " ")), " ")
			break
		}
	}
	if pidx < 0 {
		return nil, "no \"Backend Parameters\" before it"
	}
	st := m.stepOf(idx)
	if st == nil || role != "" {
		// Other Benchmark Cases: resolved to the baseline / optimized
		// experiment once all are known.
		return m.roleExp(role, params, pidx)
	}
	h3 := p.enclosing(idx, 3)
	h4 := p.enclosing(idx, 4)
	engine, name, how := "", cleanTitle(h3.title), "heading "+p.loc(h3.idx)
	if h4 != nil && h4.idx > h3.idx {
		if eng := engineID(h4.title); eng != "" {
			engine = eng
		}
		name, how = cleanTitle(h4.title), "heading "+p.loc(h4.idx)
	}
	if engine == "" {
		engine = ingest.EngineOf(m.recommend)
	}
	if engine == "" {
		engine = "vllm"
	}
	model := m.baseModelID()
	lt := strings.ToLower(h3.title)
	if recModel := modelOfCommand(m.recommend); recModel != "" && (strings.Contains(lt, "quantiz") || strings.Contains(lt, "fp8")) && isVariant(model, recModel) {
		model = recModel
		m.note(h3.idx, "the heading names quantization: model %s (the recommended command's)", model)
	}
	cmd := launcher(engine, model)
	if params != "" {
		cmd += " " + params
	}
	return m.experiment(cmd, pidx, name, how), ""
}

// roleExp finds the experiment a "Baseline/Optimized Backend Parameters"
// block belongs to: deferred, since the steps come first on the page.
func (m *migration) roleExp(role, params string, idx int) (*exp, string) {
	var cands []*exp
	for _, x := range m.exps {
		if x.unassigned {
			continue
		}
		if paramsOf(x.Command) == params {
			cands = append(cands, x)
		}
	}
	switch role {
	case "baseline":
		if len(m.exps) > 0 && (paramsOf(m.exps[0].Command) == params || params == "" && len(cands) == 0) {
			// "Baseline Backend Parameters: N/A": the baseline, the first
			// experiment, whatever its parameters.
			m.exps[0].role = "baseline"
			return m.exps[0], ""
		}
	case "optimized":
		for _, x := range cands {
			if m.recommend != "" && cmdKey(x.Command) == cmdKey(m.recommend) {
				x.role = "optimized"
				return x, ""
			}
		}
	}
	if len(cands) == 1 {
		return cands[0], ""
	}
	if len(cands) > 1 {
		return nil, fmt.Sprintf("the %s parameters %q match %d experiments", role, params, len(cands))
	}
	return nil, fmt.Sprintf("the %s parameters %q match no experiment of the steps", role, params)
}

// paramsOf is a command without its launcher and model.
func paramsOf(cmd string) string {
	f := commandFields(cmd)
	var out []string
	for i := 0; i < len(f); i++ {
		x := f[i]
		switch {
		case i == 0 && (x == "vllm" || x == "trtllm-serve" || x == "python3" || x == "python"):
			if x == "vllm" && i+1 < len(f) {
				i++ // serve
			}
			if (x == "python3" || x == "python") && i+2 < len(f) {
				i += 2 // -m sglang.launch_server
			}
			if i+1 < len(f) && !strings.HasPrefix(f[i+1], "-") {
				i++ // positional model
			}
		case x == "--model-path" || x == "--model":
			i++
		default:
			out = append(out, x)
		}
	}
	return strings.Join(out, " ")
}

func launcher(engine, model string) string {
	switch engine {
	case "sglang":
		return "python3 -m sglang.launch_server --model-path " + model
	case "trtllm":
		return "trtllm-serve " + model
	case "llamacpp":
		return "llama-server -m " + model
	}
	return "vllm serve " + model
}

// baseModelID is the page's model as far as known while placing (the
// Model section, or the first command model).
func (m *migration) baseModelID() string {
	if strings.Contains(m.setup.modelText, "/") {
		return m.setup.modelText
	}
	for _, r := range m.modelRefs {
		if strings.EqualFold(lastPart(r.id), m.setup.modelText) {
			return r.id
		}
	}
	return m.setup.modelText
}

func lastPart(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// profileOf places a block in a profile, by the evidence in this order
// (the first that names a profile decides; the block's tokens per request
// must fit the profile named, else the next rule is tried):
//
//  1. annotation: a `# perflab: profile=ID` line, a "Profile: X" line;
//  2. label: a heading, the comment inside the fence or the line or
//     admonition title before it naming a profile of the page;
//  3. label-facts: what those labels say ("ShareGPT batch size 4", "1k
//     random input + 2k generation", "4000 in / 200 out", "32K");
//  4. rows: the block's input/output tokens per request against the
//     random profiles' lengths, else the page's only other dataset;
//  5. command: the benchmark command right before the block;
//  6. derived: a new profile made from the block's own numbers.
//
// A label's concurrency or rate ("batch size 4", "rate 10") becomes the
// block's load when its rows state none.
func (m *migration) profileOf(e *ingest.Entry) (id, why, rule string) {
	p := m.p
	idx := e.Line - 1
	var rejected []string
	try := func(pr *schema.Profile, w, r string) bool {
		if pr == nil {
			return false
		}
		if ok, bad := fits(pr, e); !ok {
			rejected = append(rejected, w+" names profile "+pr.ID+", but the block has "+bad)
			return false
		}
		id, why, rule = pr.ID, w, r
		return true
	}
	if d := e.Directive["profile"]; d != "" {
		if try(m.profileBy(func(x *schema.Profile) bool { return x.ID == d }), "the `# perflab:` line", ruleAnnotation) {
			return
		}
	}
	// "- Profile: `X`" within the section, or an "X Profile" heading.
	for i := idx - 1; i >= 0; i-- {
		t := strings.TrimSpace(p.lines[i])
		if mm := reProfileLine.FindStringSubmatch(t); mm != nil {
			pr := m.profileBy(func(x *schema.Profile) bool { return normName(x.Name) == normName(mm[1]) })
			if try(pr, "\"Profile:\" line "+p.loc(i), ruleAnnotation) {
				return
			}
			if pr == nil {
				rejected = append(rejected, fmt.Sprintf("the \"Profile: %s\" line (%s) names no profile of the page", mm[1], p.loc(i)))
			}
			break
		}
		if mm := reHeading.FindStringSubmatch(t); mm != nil {
			pr := m.profileBy(func(x *schema.Profile) bool { return normName(x.Name) == normName(cleanTitle(mm[2])) })
			where := "heading " + p.loc(i)
			if insideFence(p, i) {
				where = fmt.Sprintf("label %q %s", strings.TrimSpace(strings.TrimLeft(t, "#")), p.loc(i))
			}
			if try(pr, where, ruleLabelName) {
				return
			}
			break
		}
	}
	labels := m.labelsAround(e)
	for _, l := range labels {
		if reFlagLabel.MatchString(l) {
			continue
		}
		if try(m.profileBy(func(x *schema.Profile) bool { return normName(x.Name) == normName(l) }), fmt.Sprintf("label %q", l), ruleLabelName) {
			return
		}
	}
	var f facts
	var from string
	for _, l := range labels {
		if f = labelFacts(l); !f.empty() {
			from = l
			break
		}
	}
	rowsLoad := loadOf(e) != loadKey{}
	if f.conc > 0 && !rowsLoad && f.rate == 0 {
		e.Load.MaxConcurrency = f.conc
		m.note(idx, "the label %q gives the output's max concurrency %d (its rows state none)", from, f.conc)
	}
	if f.rate > 0 && !rowsLoad && f.conc == 0 {
		e.Load.RequestRate = f.rate
		m.note(idx, "the label %q gives the output's request rate %g (its rows state none)", from, f.rate)
	}
	if f.dataset != "" || f.in > 0 {
		if try(m.profileForFacts(f), fmt.Sprintf("label %q (%s)", from, f), ruleLabelFacts) {
			return
		}
	}
	in, out, sized := perRequest(e)
	if !sized && f.empty() {
		return "", "no label and no completed requests to size it by", ""
	}
	if sized && (f.empty() || f.in == 0 && f.dataset == "") {
		if try(m.nearestRandom(in, out), fmt.Sprintf("%.0f input / %.0f output tokens per request fit its lengths", in, out), ruleRows) {
			return
		}
		var other []*schema.Profile
		for k := range m.profiles {
			if m.profiles[k].Dataset != "random" && m.profiles[k].MaxConcurrency == 0 && m.profiles[k].RequestRate == 0 {
				other = append(other, &m.profiles[k])
			}
		}
		if len(other) == 1 && try(other[0], fmt.Sprintf("%.0f input / %.0f output tokens per request fit no random profile; the page's only other dataset", in, out), ruleRows) {
			return
		}
	}
	if pr, at := m.benchCommandBefore(idx); pr != nil {
		if try(pr, "the benchmark command "+at, ruleCommand) {
			return
		}
	}
	if !sized {
		return "", fmt.Sprintf("the label %q names no profile of the page and the output has no completed requests to size it by", from), ""
	}
	pr := m.derivedProfile(e, f)
	why = fmt.Sprintf("%.0f input / %.0f output tokens per request fit no profile of the page: a profile of its own (Other Benchmark Cases)", in, out)
	if len(rejected) > 0 {
		why += "; " + strings.Join(rejected, "; ")
		m.ambiguous(idx, "placement", "%s", why)
	} else if f.in == 0 {
		m.ambiguous(idx, "new-profile", "%s", why)
	}
	return pr.ID, why, ruleDerived
}

// nearestRandom is the random profile whose input length is within 10% of
// in (and whose output length fits out, when out ≥ 0); nil when none or
// when two fit equally.
func (m *migration) nearestRandom(in, out float64) *schema.Profile {
	var best *schema.Profile
	bestD, second := math.Inf(1), math.Inf(1)
	for k := range m.profiles {
		pr := &m.profiles[k]
		if pr.Dataset != "random" || pr.InputLen == 0 {
			continue
		}
		d := math.Abs(in-float64(pr.InputLen)) / float64(pr.InputLen)
		if d > 0.10 {
			continue
		}
		if out >= 0 && pr.OutputLen > 0 && out > float64(pr.OutputLen)*1.1 {
			continue
		}
		if out >= 0 && pr.OutputLen > 0 {
			d += math.Abs(out-float64(pr.OutputLen)) / float64(pr.OutputLen) / 10
		}
		if d < bestD {
			best, second, bestD = pr, bestD, d
		} else if d < second {
			second = d
		}
	}
	if best != nil && second-bestD < 1e-9 {
		return nil
	}
	return best
}

// crashProfile gives a crash marker the profile of the output before it in
// its section, else the profile most step outputs use.
func (m *migration) crashProfile(i int) (string, string) {
	idx := m.entries[i].Line - 1
	h := m.p.enclosing(idx, 3)
	for j := i - 1; j >= 0; j-- {
		jdx := m.entries[j].Line - 1
		if h != nil && jdx < h.idx {
			break
		}
		if m.places[j].profile != "" && m.entries[j].Format != ingest.FormatCrash {
			return m.places[j].profile, "crash marker: the profile of the output before it, " + m.p.loc(jdx)
		}
	}
	count := map[string]int{}
	best := ""
	for j := range m.entries {
		if m.places[j].profile == "" || m.stepOf(m.entries[j].Line-1) == nil {
			continue
		}
		count[m.places[j].profile]++
		if best == "" || count[m.places[j].profile] > count[best] {
			best = m.places[j].profile
		}
	}
	if best != "" {
		return best, "crash marker: the profile most step outputs use"
	}
	if len(m.profiles) == 1 {
		return m.profiles[0].ID, "crash marker: the page's only profile"
	}
	return "", "a crash marker with no output to take its profile from"
}

// profilesFromOutputs makes profiles from the outputs' tokens per request
// when the page describes none: whole numbers per request are a random
// dataset of those lengths, anything else a dataset of unknown kind.
func (m *migration) profilesFromOutputs() {
	for _, e := range m.entries {
		s := e.Summary
		if s == nil || s.Completed == 0 {
			continue
		}
		pr := schema.Profile{Dataset: "random"}
		if s.TotalInputTokens%s.Completed == 0 && s.TotalOutputTokens%s.Completed == 0 {
			pr.InputLen, pr.OutputLen = s.TotalInputTokens/s.Completed, s.TotalOutputTokens/s.Completed
			pr.Name = fmt.Sprintf("Random %d/%d", pr.InputLen, pr.OutputLen)
		} else {
			in := float64(s.TotalInputTokens) / float64(s.Completed)
			out := float64(s.TotalOutputTokens) / float64(s.Completed)
			if m.nearestRandom(in, out) != nil {
				continue
			}
			pr.Dataset = "unknown"
			pr.Name = fmt.Sprintf("About %.0f/%.0f tokens", in, out)
			pr.InputLen, pr.OutputLen = int(math.Round(in)), int(math.Round(out))
		}
		if m.profileBy(func(x *schema.Profile) bool { return normName(x.Name) == normName(pr.Name) }) != nil {
			continue
		}
		got := m.addProfile(e.Line-1, pr, "the output's tokens per request")
		m.ambiguous(e.Line-1, "new-profile", "the page describes no benchmark profile; profile %s (%s) was made from this output's tokens per request", got.ID, describeProfile(got))
	}
}

// pastedAgain places an output whose numbers are those of an earlier
// output of another experiment with it: the same run pasted again ("here
// is the concurrency 64 run again, for reference") below another serving
// command. Two configurations never print the same numbers to the last
// digit, so the nearest command above it is not what ran it; the
// collision pass then imports it once. An experiment left without any
// output by this was made for the repeat alone and is dropped.
func (m *migration) pastedAgain() {
	for i := range m.entries {
		pi := &m.places[i]
		a := &m.entries[i]
		if pi.exp == nil || pi.profile == "" || a.Format == ingest.FormatCrash || a.Summary == nil || a.Summary.Completed == 0 {
			continue
		}
		for j := 0; j < i; j++ {
			pj := &m.places[j]
			b := &m.entries[j]
			if pj.exp == nil || pj.exp == pi.exp || pj.profile == "" || pj.reason != "" || b.Format != a.Format || loadDiffers(a, b) || !reflect2(a.Summary, b.Summary) {
				continue
			}
			old := pi.exp
			m.note(a.Line-1, "the output's numbers are those of the output at %s (experiment %s, profile %s): the same run pasted again, not a run of experiment %s", m.p.loc(b.Line-1), pj.exp.ID, pj.profile, old.ID)
			pi.exp, pi.profile, pi.why, pi.rule = pj.exp, pj.profile, pj.why, pj.rule
			m.dropIfUnused(old)
			break
		}
	}
}

// dropIfUnused removes an experiment no output is placed on any more.
func (m *migration) dropIfUnused(x *exp) {
	for k := range m.places {
		if m.places[k].exp == x {
			return
		}
	}
	for k, y := range m.exps {
		if y == x {
			m.exps = append(m.exps[:k], m.exps[k+1:]...)
			break
		}
	}
	if m.byKey[x.key] == x {
		delete(m.byKey, x.key)
	}
}

// collision is the earlier entry that has entry i's experiment, profile
// and load with other numbers; i itself when an earlier one has the same
// numbers (noted: imported once); -1 when none.
func (m *migration) collision(i int) int {
	pi := &m.places[i]
	for j := 0; j < i; j++ {
		pj := &m.places[j]
		if pj.exp != pi.exp || pj.profile != pi.profile || pj.reason != "" || m.entries[j].Format == ingest.FormatCrash {
			continue
		}
		a, b := &m.entries[i], &m.entries[j]
		if a.Format == b.Format && reflect2(a.Summary, b.Summary) {
			m.note(a.Line-1, "the output repeats the one of %s (same experiment %s, profile %s, same numbers): imported once", m.p.loc(b.Line-1), pi.exp.ID, pi.profile)
			m.out.Repeats++
			return i
		}
		if loadDiffers(a, b) {
			continue // another point of a sweep (sweeps)
		}
		return j
	}
	return -1
}

// rerunExp is the experiment of entry i, which ran the command of entry
// j's experiment on the same profile and load with other numbers: a
// variant of that experiment named by i's label, else its nearest heading
// below the experiment's own, else "(run N)".
func (m *migration) rerunExp(i, j, tries int) *exp {
	e := &m.entries[i]
	base := m.places[i].exp
	idx := e.Line - 1
	name, how := "", ""
	if v := m.labelValueVariant(i, j); v != nil {
		return v
	}
	if fl := flagLabel(e.Label); fl != nil {
		var parts []string
		for _, fp := range fl {
			parts = append(parts, strings.TrimSpace(strings.TrimLeft(fp.flag, "-")+" "+fp.value))
		}
		name, how = strings.Join(parts, ", "), "flag label "+m.p.loc(idx)
	} else if l := strings.TrimSpace(e.Label); l != "" && labelFacts(l).empty() && nameLike(l) {
		name, how = l, "label "+m.p.loc(idx)
	} else if tt, at := m.p.tabTitle(idx); tt != "" && tt != base.Name {
		name, how = tt, "tab title "+m.p.loc(at)
	} else if h := m.nearestHeading(idx); h != nil && h.idx > base.firstIdx && h.idx > m.entries[j].Line-1 && cleanTitle(h.title) != base.Name {
		name, how = cleanTitle(h.title), "heading "+m.p.loc(h.idx)
	}
	if name == "" || tries > 0 {
		n := 2
		for _, x := range m.exps {
			if strings.HasPrefix(x.key, base.key+"\x00") {
				n++
			}
		}
		name, how = fmt.Sprintf("%s (run %d)", base.Name, n), "its experiment's name and run number"
		m.ambiguous(idx, "rerun", "the output repeats experiment %s's command and profile %s at the same load as %s with other numbers, and no label tells them apart: experiment %q of its own", base.ID, m.places[i].profile, m.p.loc(m.entries[j].Line-1), name)
	}
	key := base.key + "\x00" + name
	if x, ok := m.byKey[key]; ok {
		return x
	}
	x := &exp{key: key, firstIdx: idx, how: how}
	x.Experiment = base.Experiment
	x.Env = base.Env
	x.Name = name
	x.step = m.stepOf(idx)
	idb := idSlug(name)
	if idb == "" {
		idb = "experiment"
	}
	x.ID = uniqueID(idb, func(id string) bool {
		for _, y := range m.exps {
			if y.ID == id {
				return true
			}
		}
		return id == "unassigned" || strings.HasPrefix(id, "unassigned-")
	})
	m.byKey[key] = x
	m.exps = append(m.exps, x)
	m.note(idx, "the output ran experiment %s's command on profile %s at the load of %s with other numbers: experiment %s (%q, named from the %s)", base.ID, m.places[i].profile, m.p.loc(m.entries[j].Line-1), x.ID, name, how)
	return x
}

// commandByHeading finds the serving command an output's heading names
// when that is not the nearest command above it: a page that lists its
// configurations first ("### TP8", "### TP4 x DP2", each with its command)
// and their results after ("### Results: TP8", "### 基线 (TP8) 结果") ran
// each output on the command whose heading its own heading names. The
// output's heading must contain that command's heading title as a phrase,
// must not name the nearest command's heading, and no other command's
// heading of the same length may match (the longest title wins); else "".
func (m *migration) commandByHeading(e *ingest.Entry) (cmd string, at int, why string) {
	idx := e.Line - 1
	h := m.nearestHeading(idx)
	hc := m.nearestHeading(e.CommandLine - 1)
	if h == nil || hc == nil || h == hc {
		return "", 0, ""
	}
	title := cleanTitle(h.title)
	if containsPhrase(title, cleanTitle(hc.title)) {
		return "", 0, ""
	}
	best, bestLen, tie := -1, 0, false
	for i := 0; i < idx; i++ {
		c := m.p.servingAt(i)
		if c == "" {
			continue
		}
		hk := m.nearestHeading(i)
		if hk == nil || hk == h {
			continue
		}
		t := cleanTitle(hk.title)
		if !containsPhrase(title, t) {
			continue
		}
		switch {
		case len(t) > bestLen:
			best, bestLen, tie = i, len(t), false
		case len(t) == bestLen && cmdKey(c) != cmdKey(m.p.servingAt(best)):
			tie = true
		}
	}
	if best < 0 || tie {
		return "", 0, ""
	}
	return m.p.servingAt(best), best, fmt.Sprintf("heading %q", cleanTitle(m.nearestHeading(best).title))
}

// containsPhrase: t holds phrase, not as part of a longer word (the
// characters either side are no letters or digits). An empty phrase is
// never held.
func containsPhrase(t, phrase string) bool {
	if phrase == "" {
		return false
	}
	lt, lp := strings.ToLower(t), strings.ToLower(phrase)
	for from := 0; ; {
		k := strings.Index(lt[from:], lp)
		if k < 0 {
			return false
		}
		k += from
		end := k + len(lp)
		before, _ := utf8.DecodeLastRuneInString(lt[:k])
		after, _ := utf8.DecodeRuneInString(lt[end:])
		if (k == 0 || !wordRune(before)) && (end == len(lt) || !wordRune(after)) {
			return true
		}
		from = k + 1
	}
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// reTabTitle is an MkDocs content tab (pymdownx.tabbed): === "H100".
var reTabTitle = regexp.MustCompile(`^===\+?[ \t]+"([^"]+)"[ \t]*$`)

// tabTitle is the title of the content tab an output at line idx opens
// (=== "A100", then the indented fence), with its line; "" when the
// output is not the first thing in a tab.
func (p *page) tabTitle(idx int) (string, int) {
	for i := idx - 1; i >= 0; i-- {
		t := strings.TrimSpace(p.lines[i])
		switch {
		case t == "" || reFenceLine.MatchString(t):
			continue
		case reTabTitle.MatchString(t):
			if n := cleanTitle(reTabTitle.FindStringSubmatch(t)[1]); nameLike(n) {
				return n, i
			}
			return "", 0
		default:
			return "", 0
		}
	}
	return "", 0
}

// nearestHeading is the nearest heading above line idx.
func (m *migration) nearestHeading(idx int) *heading {
	var best *heading
	for k := range m.p.heads {
		if m.p.heads[k].idx < idx {
			best = &m.p.heads[k]
		}
	}
	return best
}

// expNamed: an experiment of the page has this name.
func (m *migration) expNamed(name string) bool { return m.expNamedX(name) != nil }

// expNamedX is the experiment of the page with this name, nil if none.
func (m *migration) expNamedX(name string) *exp {
	for _, x := range m.exps {
		if x.Name == name {
			return x
		}
	}
	return nil
}

// engineName is an engine's name as its project writes it.
func engineName(id string) string {
	switch id {
	case "vllm":
		return "vLLM"
	case "sglang":
		return "SGLang"
	case "trtllm":
		return "TensorRT-LLM"
	case "llamacpp":
		return "llama.cpp"
	case "mindie":
		return "MindIE"
	}
	return "External server"
}

// flagDiff lists the flags command b sets that a does not, or sets to
// another value: "max-seq-len-to-capture 16384".
func flagDiff(a, b string) string {
	flags := func(c string) map[string]string {
		out := map[string]string{}
		f := commandFields(c)
		for i := 0; i < len(f); i++ {
			if !strings.HasPrefix(f[i], "-") {
				continue
			}
			k, v, ok := strings.Cut(f[i], "=")
			if !ok && i+1 < len(f) && !strings.HasPrefix(f[i+1], "-") {
				v = f[i+1]
				i++
			}
			out[strings.TrimLeft(k, "-")] = v
		}
		return out
	}
	fa, fb := flags(a), flags(b)
	var diff []string
	for _, k := range sortedKeys(fb) {
		if v, ok := fa[k]; !ok || v != fb[k] {
			diff = append(diff, strings.TrimSpace(k+" "+fb[k]))
		}
	}
	return strings.Join(diff, ", ")
}

func sortedKeys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// familyOf is the family two or more flags of a label share
// ("speculative" for --speculative-algorithm … --speculative-num-steps),
// "" when they share none.
func familyOf(fl []flagPair) string {
	count := map[string]int{}
	for _, fp := range fl {
		name := strings.TrimLeft(fp.flag, "-")
		if fam, _, ok := strings.Cut(name, "-"); ok {
			count[fam]++
		}
	}
	best := ""
	for fam, n := range count {
		if n >= 2 && (best == "" || n > count[best] || n == count[best] && fam < best) {
			best = fam
		}
	}
	return best
}

// dropFamily removes from cmd the flags of the family the label's flags
// share that the label does not set: a label that lists a whole
// speculative decoding setup ("# --speculative-algorithm EAGLE3
// --speculative-draft-model-path X") ran with that setup, the command's
// other --speculative-* flags at their defaults.
func dropFamily(cmd string, fl []flagPair) string {
	fam := familyOf(fl)
	if fam == "" {
		return cmd
	}
	set := map[string]bool{}
	for _, fp := range fl {
		set[fp.flag] = true
	}
	f := commandFields(cmd)
	var out []string
	for i := 0; i < len(f); i++ {
		x := f[i]
		k, _, hasEq := strings.Cut(x, "=")
		if strings.HasPrefix(k, "--"+fam+"-") && !set[k] {
			if !hasEq && i+1 < len(f) && !strings.HasPrefix(f[i+1], "-") {
				i++ // its value
			}
			continue
		}
		out = append(out, x)
	}
	return strings.Join(out, " ")
}

// labelValueVariant: entry i reruns entry j's command with other numbers,
// and j's label is the value of one of the command's flags ("# triton"
// over --attention-backend triton): i's label ("# flashinfer") is that
// flag's value in i's run. Nil when the labels say no such thing.
func (m *migration) labelValueVariant(i, j int) *exp {
	e, prev := &m.entries[i], strings.TrimSpace(m.entries[j].Label)
	l := strings.TrimSpace(e.Label)
	base := m.places[i].exp
	if l == "" || prev == "" || flagLabel(l) != nil || !nameLike(l) || strings.ContainsAny(l, " \t") {
		return nil
	}
	flag := flagWithValue(base.Command, prev)
	if flag == "" {
		return nil
	}
	variant := withFlag(base.Command, flag, l)
	full := variant
	if len(base.Env) > 0 {
		var env []string
		for k, v := range base.Env {
			env = append(env, k+"="+v)
		}
		sort.Strings(env)
		full = strings.Join(env, " ") + " " + variant
	}
	m.note(e.Line-1, "the label %q is the value of %s where the label %q of %s is (%s): the run's command is %s", l, flag, prev, m.p.loc(m.entries[j].Line-1), oneLine(base.Command), variant)
	e.Command = full
	x := m.experiment(full, base.firstIdx, l, fmt.Sprintf("label %s", m.p.loc(e.Line-1)))
	if x.step == nil {
		x.step = base.step
	}
	return x
}

// flagWithValue is the flag of cmd whose value is v ("--attention-backend"
// for "triton"), "" when none.
func flagWithValue(cmd, v string) string {
	f := commandFields(cmd)
	for k := 0; k < len(f); k++ {
		if k+1 < len(f) && strings.HasPrefix(f[k], "-") && !strings.Contains(f[k], "=") && strings.EqualFold(f[k+1], v) {
			return f[k]
		}
		if k2, val, ok := strings.Cut(f[k], "="); ok && strings.HasPrefix(k2, "-") && strings.EqualFold(val, v) {
			return k2
		}
	}
	return ""
}

// shortName cuts a name to 60 characters (a table column's worth).
func shortName(n string) string {
	if r := []rune(n); len(r) > 60 {
		return strings.TrimSpace(string(r[:59])) + "…"
	}
	return n
}

// occurrenceExp: entry i collides with entry j, and i's serving command
// is another occurrence of j's configuration (the same command pasted
// again, under "Optimized serving script" in Other Benchmark Cases, say).
// That occurrence ran the configuration again: its outputs, all of them,
// are an experiment of its own, named as its command is (its label,
// admonition title or heading). Nil when i's command is j's (one
// occurrence) or the page has no serving commands (a generator page).
func (m *migration) occurrenceExp(i, j int) *exp {
	occ := m.entries[i].CommandLine
	if m.generator || occ <= 0 || occ == m.entries[j].CommandLine {
		return nil
	}
	base := m.places[i].exp
	key := base.key + "\x00@" + fmtInt(occ)
	x, ok := m.byKey[key]
	if !ok {
		name, how, role, _ := m.labelBefore(occ - 1)
		if name == "" || name == base.Name {
			name, how = fmt.Sprintf("%s (line %d)", base.Name, m.p.orig[occ-1]), "its configuration's name and the line of its command"
		}
		x = &exp{key: key, firstIdx: occ - 1, how: how, role: role, occBase: base}
		x.Experiment = base.Experiment
		x.Name = name
		x.step = m.stepOf(occ - 1)
		idb := idSlug(name)
		if idb == "" {
			idb = "experiment"
		}
		x.ID = uniqueID(idb, func(id string) bool {
			for _, y := range m.exps {
				if y.ID == id {
					return true
				}
			}
			return id == "unassigned" || strings.HasPrefix(id, "unassigned-")
		})
		m.byKey[key] = x
		m.exps = append(m.exps, x)
		m.note(occ-1, "the serving command is experiment %s's configuration again, and its outputs have other numbers than %s's at the same load: its outputs are experiment %s (%q, named from the %s)", base.ID, m.p.loc(m.entries[j].Line-1), x.ID, name, how)
	}
	for k := range m.entries {
		if m.places[k].exp == base && m.entries[k].CommandLine == occ {
			m.places[k].exp = x
		}
	}
	return x
}
