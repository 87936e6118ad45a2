package render

import (
	"bytes"

	"github.com/perflab/perflab/render/wire"
)

// The manifest is read by every build that is not stamped unchanged.
// It is written by render/wire (gob decoded its thousands of [32]byte
// sums a byte at a time, a tenth of an unchanged 924-page rebuild; wire
// copies them whole), after a line naming wire's version of the
// manifest type: a manifest written for another type is not read.
var manifestVersion = "perflab-manifest " + wire.Version(manifest{}) + "\n"

func encodeManifest(m *manifest) []byte {
	return wire.Append([]byte(manifestVersion), *m)
}

// decodeManifest returns the manifest encoded in data, or nil.
func decodeManifest(data []byte) *manifest {
	rest, ok := bytes.CutPrefix(data, []byte(manifestVersion))
	if !ok {
		return nil
	}
	m := &manifest{}
	if wire.Decode(rest, m) != nil {
		return nil
	}
	return m
}

// searchEntriesVersion heads the manifest's search file
// (manifestSearchPath): the entries by page URL, written by wire.
var searchEntriesVersion = "perflab-search " + wire.Version(map[string]searchEntry{}) + "\n"

func encodeSearchEntries(m map[string]searchEntry) []byte {
	return wire.Append([]byte(searchEntriesVersion), m)
}

// decodeSearchEntries returns the entries encoded in data, or nil.
func decodeSearchEntries(data []byte) map[string]searchEntry {
	rest, ok := bytes.CutPrefix(data, []byte(searchEntriesVersion))
	if !ok {
		return nil
	}
	m := map[string]searchEntry{}
	if wire.Decode(rest, &m) != nil {
		return nil
	}
	if m == nil {
		m = map[string]searchEntry{}
	}
	return m
}
