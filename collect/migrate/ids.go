package migrate

import (
	"regexp"
	"strconv"
	"strings"
)

// fmtInt formats a line number.
func fmtInt(n int) string { return strconv.Itoa(n) }

var reSlug = regexp.MustCompile(`[^a-z0-9.]+`)

// slug makes an id from free text: "TP4+EP" → "tp4-ep".
func slug(s string) string {
	return strings.Trim(reSlug.ReplaceAllString(strings.ToLower(s), "-"), "-.")
}
