package site

import (
	"bytes"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/perflab/perflab/collect/redact"
	"github.com/perflab/perflab/collect/schema"
)

// Secrets never reach the site. Every input enters render at one of three
// doors, and each door redacts with collect's rules (collect/redact), so
// whatever a block, a layout or a data file is made of is already clean:
//
//   - records: a report's campaign and each of its results (loadReport)
//     go through redact's Walk, which reaches every string they hold,
//     with the campaign's own secret values (an experiment's env, the
//     values of its secret flags) hidden wherever they show up;
//   - pages: a Markdown file's text, front matter included
//     (parseFrontMatter), before anything is parsed from it;
//   - static files copied from content/ (a bundle's campaign.yaml)
//     through staticData, text files only, with every campaign's secret
//     values as well.
//
// A campaign may take a secret from the environment instead (${HF_TOKEN},
// expanded by collect when it starts the engine): the reference is kept
// and shown. perflab publish checks the built site once more for
// token-shaped strings before it pushes (cmd/perflab/publish.go).

// patterns hides secret-looking text: no known values.
var patterns = redact.New()

// campaignSecrets returns the secret values a campaign holds: its
// experiments' secret env values and secret flag values, and base URLs'
// passwords.
func campaignSecrets(c *schema.Campaign) []string {
	var vs []string
	for _, st := range c.Steps {
		for _, e := range st.Experiments {
			vs = append(vs, redact.SecretValues(e.Env)...)
			vs = append(vs, redact.ArgValues(e.Args)...)
			vs = append(vs, redact.ArgValues(commandWords(e.Command))...)
			vs = append(vs, redact.URLValues(e.BaseURL)...)
		}
	}
	for _, p := range c.Profiles {
		vs = append(vs, redact.ArgValues(p.Args)...)
	}
	return vs
}

// commandWords splits a command into words for redact.ArgValues, quotes
// taken off (the words' values, not a shell's parse).
func commandWords(cmd string) []string {
	f := strings.Fields(cmd)
	for i, w := range f {
		f[i] = strings.Trim(w, `"'`)
		if name, v, ok := strings.Cut(w, "="); ok {
			f[i] = name + "=" + strings.Trim(v, `"'`)
		}
	}
	return f
}

// redactText redacts a text input; its lines stay where they were (a
// mask holds no newline), so errors still name the right line.
func redactText(r *redact.Redactor, data []byte) []byte {
	s := string(data)
	if t := r.String(s); t != s {
		return []byte(t)
	}
	return data
}

// siteSecrets is every report's secret values, for the static files.
// A nil *siteSecrets knows none.
type siteSecrets struct {
	mu     sync.Mutex
	values []string
	red    *redact.Redactor // of values, when n == len(values)
	n      int
}

func (s *siteSecrets) add(vs []string) {
	if s == nil || len(vs) == 0 {
		return
	}
	s.mu.Lock()
	s.values = append(s.values, vs...)
	s.mu.Unlock()
}

func (s *siteSecrets) redactor() *redact.Redactor {
	if s == nil {
		return patterns
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.red == nil || s.n != len(s.values) {
		s.red, s.n = redact.New(s.values...), len(s.values)
	}
	return s.red
}

// StaticData is what the site holds of the static file rel, whose bytes
// are data: a text file redacted, anything else as it is (an image holds
// no secret a pattern could find, and masking bytes would break it).
func (s *Site) StaticData(rel string, data []byte) []byte {
	if bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data) {
		return data
	}
	return redactText(s.secrets.redactor(), data)
}
