package migrate

import (
	"crypto/sha256"
	"encoding/hex"
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

// maxID bounds every id migrate makes (campaign, experiment, profile,
// step): result files are named <experiment>--<profile>[--point].json, so
// two bounded ids and a point stay far below any file system's 255-byte
// name limit.
const maxID = 64

// idSlug is slug bounded to maxID characters: a longer slug is cut at a
// word boundary and ends in "-" and 8 hex digits of the whole text's
// hash, so that two long names that share their start stay two ids.
func idSlug(s string) string {
	return boundID(slug(s), s)
}

// boundID cuts id to maxID characters when longer, with a hash of whole
// (the text it was made from) at its end.
func boundID(id, whole string) string {
	if len(id) <= maxID {
		return id
	}
	sum := sha256.Sum256([]byte(whole))
	h := hex.EncodeToString(sum[:4])
	cut := id[:maxID-len(h)-1]
	if i := strings.LastIndexByte(cut, '-'); i >= maxID/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, "-.") + "-" + h
}
