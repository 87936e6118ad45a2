package redact

import (
	"bytes"
	"io"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Mask replaces every secret.
const Mask = "<redacted>"

// secretWord matches a flag or variable name that holds a secret.
var secretWord = regexp.MustCompile(`(?i)(api[-_]?key|access[-_]?key|secret|token|password|passwd|credential|auth[-_]?key|private[-_]?key)`)

// SecretName reports whether an environment variable or flag name holds a
// secret.
func SecretName(name string) bool {
	n := strings.TrimLeft(name, "-")
	if n == "" {
		return false
	}
	if !nameWords.in(n) {
		return false // the common case, without a regular expression
	}
	if k := len(n) - 4; k >= 0 && (n[k] == '_' || n[k] == '-') && strings.EqualFold(n[k+1:], "key") {
		return true
	}
	// max-num-batched-tokens, --max-tokens, tokenizer… are not secrets.
	if tokenCount.MatchString(n) {
		return false
	}
	return secretWord.MatchString(n)
}

// tokenCount matches names about token counts or tokenizers, which share
// the word "token" with secrets.
var tokenCount = regexp.MustCompile(`(?i)(tokens|tokenizer|token[-_]?(len|length|count|budget|limit|id|ids)$|num[-_]?token|per[-_]?token)`)

// shaped matches well-known token formats anywhere in text.
var shaped = regexp.MustCompile(`\b(hf_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16})\b`)

// bearer matches an Authorization header value.
var bearer = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}`)

// Args redacts a command given as argv: flag values and NAME=value
// assignments whose name is secret, and token-shaped words.
func Args(argv []string) []string {
	out := make([]string, len(argv))
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		switch {
		case strings.Contains(a, "="): // --flag=value or NAME=value
			name, _, _ := strings.Cut(a, "=")
			if v := a[len(name)+1:]; (strings.HasPrefix(name, "-") || IsEnvName(name)) && SecretName(name) && !IsRef(v) {
				a = name + "=" + Mask
			}
		case strings.HasPrefix(a, "-") && SecretName(a) && i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-"):
			out[i] = a
			i++
			out[i] = Mask
			if IsRef(argv[i]) {
				out[i] = argv[i]
			}
			continue
		}
		out[i] = shaped.ReplaceAllString(a, Mask)
	}
	return out
}

// IsRef reports whether a value is a reference to an environment
// variable, ${NAME}, as a campaign writes a secret it does not hold
// (collect expands it when it starts the engine): the reference is no
// secret, and shows where the value comes from.
func IsRef(v string) bool {
	return len(v) > 3 && strings.HasPrefix(v, "${") && v[len(v)-1] == '}' && IsEnvName(v[2:len(v)-1])
}

// IsEnvName reports whether s is a shell variable name
// ([A-Za-z_][A-Za-z0-9_]*), as in a NAME=value assignment.
func IsEnvName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Env returns a copy of env with secret values masked.
func Env(env map[string]string) map[string]string {
	if env == nil {
		return nil
	}
	out := make(map[string]string, len(env))
	for k, v := range env {
		if SecretName(k) && !IsRef(v) {
			v = Mask
		} else {
			v = shaped.ReplaceAllString(v, Mask)
		}
		out[k] = v
	}
	return out
}

// SecretValues returns the values of env's secret variables, the strings a
// Redactor should hide wherever they appear.
func SecretValues(env map[string]string) []string {
	var vs []string
	for k, v := range env {
		if SecretName(k) && len(v) >= 4 && !IsRef(v) {
			vs = append(vs, v)
		}
	}
	return vs
}

// ArgValues returns the values of argv's secret flags and NAME=value
// words (--api-key V, --api-key=V, HF_TOKEN=V): the strings a Redactor
// should hide wherever they appear. Engines print their own arguments at
// start-up (vLLM's "non-default args: {'api_key': [...]}"), where Args
// cannot see the flag next to its value; a key such as vLLM's documented
// "token-abc123" has no token shape either.
func ArgValues(argv []string) []string {
	var vs []string
	for i, a := range argv {
		switch {
		case strings.Contains(a, "="):
			name, v, _ := strings.Cut(a, "=")
			if (strings.HasPrefix(name, "-") || IsEnvName(name)) && SecretName(name) && len(v) >= 4 && !IsRef(v) {
				vs = append(vs, v)
			}
		case strings.HasPrefix(a, "-") && SecretName(a) && i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-"):
			if len(argv[i+1]) >= 4 && !IsRef(argv[i+1]) {
				vs = append(vs, argv[i+1])
			}
		}
	}
	return vs
}

// URL masks the secrets of a URL: the password of its user info and the
// values of query parameters with secret names (?api_key=…). Text that
// does not parse as a URL is returned as it is.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	changed := false
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), Mask)
		changed = true
	}
	if q := u.Query(); len(q) > 0 {
		for k := range q {
			if SecretName(k) {
				q.Set(k, Mask)
				changed = true
			}
		}
		if changed {
			u.RawQuery = q.Encode()
		}
	}
	if !changed {
		return raw
	}
	// url.URL.String escapes the mask's angle brackets: put them back.
	return strings.NewReplacer(url.QueryEscape(Mask), Mask, url.PathEscape(Mask), Mask).Replace(u.String())
}

// URLValues returns the secrets of a URL (its password, the values of
// secret query parameters): the strings a Redactor should hide wherever
// they appear, such as in an HTTP client's error.
func URLValues(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var vs []string
	if p, ok := u.User.Password(); ok && len(p) >= 4 {
		vs = append(vs, p, url.QueryEscape(p))
	}
	for k, v := range u.Query() {
		if SecretName(k) {
			for _, x := range v {
				if len(x) >= 4 {
					vs = append(vs, x, url.QueryEscape(x))
				}
			}
		}
	}
	return vs
}

// Redactor hides known secret values and secret-looking text. The zero
// value hides only patterns.
type Redactor struct {
	// Values are hidden wherever they appear (longest first).
	values []string
}

// New returns a Redactor that also hides each of values (values shorter
// than 4 bytes are ignored: they would mask ordinary text).
func New(values ...string) *Redactor {
	r := &Redactor{}
	for _, v := range values {
		if len(v) >= 4 {
			r.values = append(r.values, v)
		}
	}
	sort.Slice(r.values, func(i, j int) bool { return len(r.values[i]) > len(r.values[j]) })
	return r
}

// String redacts free text: known values, token shapes, bearer headers and
// secret NAME=value or --flag value pairs.
func (r *Redactor) String(s string) string {
	if r != nil {
		for _, v := range r.values {
			s = strings.ReplaceAll(s, v, Mask)
		}
	}
	// The regular expressions and the pair scanner are slow next to one
	// pass looking for what they need (every byte an engine logs, every
	// string of every result a site is built from passes through here).
	shapes, auth, pairs := scan(s)
	if shapes {
		s = shaped.ReplaceAllString(s, Mask)
	}
	if auth {
		s = bearer.ReplaceAllStringFunc(s, func(m string) string {
			f := strings.Fields(m)
			return f[0] + " " + Mask
		})
	}
	if !pairs {
		return s
	}
	return maskPairs(s)
}

// scan looks at s once for what String's steps need: the start of a
// token shape (shapes: hf_, sk-, gh?_, github_pat_, xox, AKIA, as shaped
// begins), an Authorization scheme (auth: bearer or basic, any case),
// and a secret name followed by the separator of a pair (pairs: one
// maskPairs could mask the value of). Every such name holds one of
// nameWords, so only the names around their occurrences are looked at:
// a vLLM result block says "tokens" a dozen times and holds no pair, and
// scanning it word by word was most of the time a site's results took
// to redact. Each answer may be a false yes, never a false no
// (TestMayHavePairsNeverMissesAPair).
func scan(s string) (shapes, auth, pairs bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		k := scanClass[c]
		if k == 0 {
			continue
		}
		rest := s[i:]
		if k&classShape != 0 && !shapes {
			shapes = strings.HasPrefix(rest, "hf_") || strings.HasPrefix(rest, "sk-") || strings.HasPrefix(rest, "xox") ||
				strings.HasPrefix(rest, "AKIA") || strings.HasPrefix(rest, "github_pat_") ||
				len(rest) >= 4 && rest[0] == 'g' && rest[1] == 'h' && rest[3] == '_'
		}
		if k&classAuth != 0 && !auth {
			auth = len(rest) >= 5 && (strings.EqualFold(rest[:5], "basic") || len(rest) >= 6 && strings.EqualFold(rest[:6], "bearer"))
		}
		if k&className == 0 || pairs {
			continue
		}
		n := nameWords.at(s, i)
		if n == 0 {
			continue
		}
		a, b := i, i+n
		for a > 0 && nameByte(s[a-1]) {
			a--
		}
		for b < len(s) && nameByte(s[b]) {
			b++
		}
		// The separator maskPairs needs after the name: = or : (or the
		// quote of a JSON key), or for a flag a blank. A name after more
		// than two dashes is none (a rule of dashes: "-----Inter-token
		// Latency-----").
		sep := b < len(s) && (s[b] == '=' || s[b] == ':' || s[b] == '"' || s[a] == '-' && (s[b] == ' ' || s[b] == '\t'))
		if sep && !strings.HasPrefix(s[a:b], "---") && SecretName(s[a:b]) {
			pairs = true
		}
		// The rest of this name holds no other name; it may hold a
		// shape or a scheme (Bearer-sk-…), which the next bytes still
		// get a look for when the name was a pair's.
		if !pairs {
			for j := i + 1; j < b; j++ {
				if scanClass[s[j]]&(classShape|classAuth) != 0 {
					b = j
					break
				}
			}
			i = b - 1
		}
	}
	return shapes, auth, pairs
}

// mayHavePairs is scan's pairs.
func mayHavePairs(s string) bool {
	_, _, pairs := scan(s)
	return pairs
}

// Byte classes for scan: the first bytes of what it looks for.
const (
	classShape = 1 << iota
	classAuth
	className
)

var scanClass = func() (t [256]uint8) {
	for _, c := range "hsgxA" {
		t[c] |= classShape
	}
	for _, c := range "bB" {
		t[c] |= classAuth
	}
	for _, w := range []string{"key", "secret", "token", "passw", "credential"} {
		t[w[0]] |= className
		t[w[0]-'a'+'A'] |= className
	}
	return t
}()

func containsAny(s string, subs ...string) bool {
	for _, x := range subs {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

// foldWords is a set of lowercase ASCII words, looked for in any case.
type foldWords struct {
	byFirst [256][]string // the words by their first byte, in both cases
}

func newFoldWords(words ...string) *foldWords {
	f := &foldWords{}
	for _, w := range words {
		f.byFirst[w[0]] = append(f.byFirst[w[0]], w)
		f.byFirst[w[0]-'a'+'A'] = append(f.byFirst[w[0]-'a'+'A'], w)
	}
	return f
}

// at returns the length of the word s holds at i, in any case, or 0.
func (f *foldWords) at(s string, i int) int {
	for _, w := range f.byFirst[s[i]] {
		// The second byte first: most words starting with a common
		// letter end there.
		if len(s)-i >= len(w) && s[i+1]|0x20 == w[1] && strings.EqualFold(s[i:i+len(w)], w) {
			return len(w)
		}
	}
	return 0
}

// in reports whether s contains one of the words, in any case, in one
// pass without allocating.
func (f *foldWords) in(s string) bool {
	for i := 0; i < len(s); i++ {
		if f.at(s, i) > 0 {
			return true
		}
	}
	return false
}

var (
	// nameWords are in every secret name (SecretName).
	nameWords = newFoldWords("key", "secret", "token", "passw", "credential")
)

// containsFold reports whether s contains the lowercase ASCII word w in
// any case.
func containsFold(s, w string) bool {
	first := string([]byte{w[0], w[0] - 'a' + 'A'})
	for i := 0; i+len(w) <= len(s); {
		j := strings.IndexAny(s[i:], first)
		if j < 0 || i+j+len(w) > len(s) {
			return false
		}
		if strings.EqualFold(s[i+j:i+j+len(w)], w) {
			return true
		}
		i += j + 1
	}
	return false
}

// delim reports whether c may precede a flag or a name: pairs start a
// word ("Inter-token Latency" in vLLM's result block holds no flag).
func delim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '(', '[', '{', ',', ';':
		return true
	}
	return false
}

func nameByte(c byte) bool {
	return c == '_' || c == '.' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// valueEnd returns the end of the value starting at s[i]: a quoted
// string, or a run of bytes up to a blank, quote, comma or semicolon.
func valueEnd(s string, i int) int {
	if i < len(s) && (s[i] == '"' || s[i] == '\'') {
		if j := strings.IndexByte(s[i+1:], s[i]); j >= 0 {
			return i + 1 + j + 1
		}
		return i
	}
	j := i
	for j < len(s) && !strings.ContainsRune(" \t\n\r\"',;", rune(s[j])) {
		j++
	}
	return j
}

// maskPairs masks the values of secret pairs in free text, in one pass:
//
//	--flag value, --flag=value      (the value does not start with "-")
//	NAME=value, NAME: value         (a bare "NAME value" is prose)
//	"name": "value"                 (JSON)
func maskPairs(s string) string {
	var out strings.Builder
	last := 0 // s[:last] is in out
	for i := 0; i < len(s); i++ {
		if i > 0 && !delim(s[i-1]) {
			continue
		}
		j := i
		quoted := s[j] == '"'
		if quoted {
			j++
		}
		nameStart := j
		for j < len(s) && j-nameStart < 2 && s[j] == '-' {
			j++
		}
		flag := j > nameStart
		if quoted && flag || j >= len(s) || !(s[j] == '_' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= 'A' && s[j] <= 'Z') {
			continue
		}
		for j < len(s) && nameByte(s[j]) {
			j++
		}
		name := s[nameStart:j]
		if !SecretName(name) {
			i = j - 1
			continue
		}
		// The separator, then the value's start.
		k := j
		switch {
		case quoted:
			if k >= len(s) || s[k] != '"' {
				continue
			}
			k++
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
			if k >= len(s) || s[k] != ':' {
				continue
			}
			k++
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
			if k >= len(s) || s[k] != '"' {
				continue
			}
		case k < len(s) && s[k] == '=':
			k++
		case !flag && k < len(s) && s[k] == ':':
			k++
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
		case flag && k < len(s) && (s[k] == ' ' || s[k] == '\t'):
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
			if k < len(s) && s[k] == '-' {
				continue // the next flag, not a value
			}
		default:
			continue
		}
		end := valueEnd(s, k)
		val := s[k:end]
		if q := len(val); q >= 2 && (val[0] == '"' || val[0] == '\'') && val[q-1] == val[0] {
			k, end, val = k+1, end-1, val[1:q-1]
		}
		if val == "" || val == Mask || IsRef(val) || tokenID(name, val) {
			continue
		}
		out.WriteString(s[last:k])
		out.WriteString(Mask)
		last = end
		i = end - 1
	}
	if last == 0 {
		return s
	}
	out.WriteString(s[last:])
	return out.String()
}

// tokenID reports a vocabulary token's number after the bare word
// "token" (llama.cpp logs "control token: 151660 '<|fim_middle|>'"), which
// is no secret and is what a crash's log tail needs to show.
func tokenID(name, val string) bool {
	if !strings.EqualFold(strings.TrimLeft(name, "-"), "token") {
		return false
	}
	for i := 0; i < len(val); i++ {
		if val[i] < '0' || val[i] > '9' {
			return false
		}
	}
	return true
}

// Command redacts a command line kept as one string.
func (r *Redactor) Command(s string) string { return r.String(s) }

// Writer returns a writer that redacts each complete line before passing
// it to w (a partial last line is written on Close). Engine logs go
// through it, so a key an engine prints never reaches the disk.
func (r *Redactor) Writer(w io.Writer) io.WriteCloser {
	return &lineWriter{r: r, w: w}
}

type lineWriter struct {
	r   *Redactor
	w   io.Writer
	mu  sync.Mutex
	buf []byte
}

// maxLine bounds a buffered line: an engine printing a progress bar with
// carriage returns and no newline must not grow memory without end.
const maxLine = 64 << 10

func (lw *lineWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	lw.buf = append(lw.buf, p...)
	for {
		i := bytes.IndexByte(lw.buf, '\n')
		if i < 0 {
			if len(lw.buf) > maxLine {
				// Cut after the last carriage return or blank, not inside a
				// word: a secret split in two would escape redaction.
				n := bytes.LastIndexAny(lw.buf, "\r \t") + 1
				if n == 0 {
					n = len(lw.buf)
				}
				if err := lw.flush(n); err != nil {
					return len(p), err
				}
			}
			return len(p), nil
		}
		if err := lw.flush(i + 1); err != nil {
			return len(p), err
		}
	}
}

func (lw *lineWriter) flush(n int) error {
	line := lw.r.String(string(lw.buf[:n]))
	lw.buf = lw.buf[n:]
	_, err := io.WriteString(lw.w, line)
	return err
}

func (lw *lineWriter) Close() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if len(lw.buf) == 0 {
		return nil
	}
	return lw.flush(len(lw.buf))
}
