package output

import (
	"bytes"

	"github.com/perflab/perflab/render/wire"
)

// The manifest is read by every build that is not stamped unchanged.
// It is written by render/wire (gob decoded its thousands of [32]byte
// sums a byte at a time, a tenth of an unchanged 924-page rebuild; wire
// copies them whole), after a line naming wire's version of the
// manifest type: a manifest written for another type is not read.
var manifestVersion = "perflab-manifest " + wire.Version(Manifest{}) + "\n"

func encodeManifest(m *Manifest) []byte {
	n := len(manifestVersion) + len(m.Out) + 64
	for p := range m.Files {
		n += len(p) + 64
	}
	for u, unit := range m.Units {
		n += len(u) + 80
		for _, p := range unit.Paths {
			n += len(p) + 2
		}
	}
	for d := range m.Dirs {
		n += len(d) + 40
	}
	return wire.Append(append(make([]byte, 0, n), manifestVersion...), *m)
}

// decodeManifest returns the manifest encoded in data, or nil.
func decodeManifest(data []byte) *Manifest {
	rest, ok := bytes.CutPrefix(data, []byte(manifestVersion))
	if !ok {
		return nil
	}
	m := &Manifest{}
	if wire.Decode(rest, m) != nil {
		return nil
	}
	return m
}

// Encode is m as the manifest file holds it (tests edit manifests).
func (m *Manifest) Encode() []byte { return encodeManifest(m) }
