package publish

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/perflab/perflab/collect/redact"
)

// maxLeaks bounds the places an error lists.
const maxLeaks = 20

// checkSecrets refuses a site in which a token-shaped string survived the
// build's redaction (a key pasted somewhere redaction cannot tell it from
// text, a file copied from content/ that is not text): the last look
// before a site becomes public. The error names each file and line, the
// token shortened.
func checkSecrets(site string) error {
	var found []string
	n := 0
	err := filepath.WalkDir(site, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, l := range redact.Find(data) {
			n++
			if len(found) < maxLeaks {
				found = append(found, fmt.Sprintf("%s:%d: %s", p, l.Line, l.Text))
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("publish: check for secrets: %w", err)
	}
	if n == 0 {
		return nil
	}
	more := ""
	if n > len(found) {
		more = fmt.Sprintf("\n  … and %d more", n-len(found))
	}
	return fmt.Errorf("publish: the built site holds %d token-shaped string(s), nothing published (take them out of content/ and results/, or publish anyway with --allow-secrets):\n  %s%s", n, strings.Join(found, "\n  "), more)
}
