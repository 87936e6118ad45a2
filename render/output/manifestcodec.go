package output

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"

	"github.com/perflab/perflab/render/wire"
)

// The manifest is read by every build that is not stamped unchanged.
// It is written by render/wire (gob decoded its thousands of [32]byte
// sums a byte at a time, a tenth of an unchanged 924-page rebuild; wire
// copies them whole), after a line naming wire's version of the
// manifest type: a manifest written for another type is not read. The
// CRC-32C of all that follows, as the site stamp's and the input stat
// cache's: a damaged manifest is none (a byte changed in a unit's path,
// rounds/r005.json read as r004.json, left r005.json out of the site).
var manifestVersion = "perflab-manifest-2 " + wire.Version(Manifest{}) + "\n"

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

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
	b := wire.Append(append(make([]byte, 0, n+4), manifestVersion...), *m)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// decodeManifest returns the manifest encoded in data, or nil.
func decodeManifest(data []byte) *Manifest {
	if len(data) < 4 || crc32.Checksum(data[:len(data)-4], castagnoli) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil
	}
	rest, ok := bytes.CutPrefix(data[:len(data)-4], []byte(manifestVersion))
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
