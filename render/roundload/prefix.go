package roundload

import (
	"crypto/sha256"
	"encoding/binary"
)

// A Prefix names what a caller made of a report's older rounds from
// the first on (the history's values of each round, render/blocks'
// historydigest.go), so that a build whose older rounds are those of
// the build before plus one reads one entry and the new round, not
// every round. Entry i is under a chain of keys: the name and the
// caller's input (every value the caller's computation reads besides
// the rounds' results: it is hashed, so a value left out of it is a
// value the computation cannot read), then each round's key in order
// (its files and salt, Results). Any change to a round or to the input
// changes the keys of every prefix that holds it: nothing is
// invalidated by hand.
type Prefix struct {
	c    *Cache
	keys []string // keys[i]: the entry of rounds[:i+1]
}

// NewPrefix returns the prefixes of rounds (a report's older rounds,
// oldest first, all from the same Cache) under name and input.
func NewPrefix(name string, input []byte, rounds []*Round) *Prefix {
	p := &Prefix{}
	if len(rounds) == 0 || rounds[0] == nil || rounds[0].c == nil {
		return p
	}
	p.c = rounds[0].c
	h := sha256.New()
	var n [8]byte
	put := func(b []byte) {
		binary.LittleEndian.PutUint64(n[:], uint64(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	put([]byte("prefix"))
	put([]byte(name))
	put(input)
	var k [32]byte // the key of the prefix so far
	h.Sum(k[:0])
	for _, r := range rounds {
		if r == nil || r.c != p.c {
			break
		}
		h.Reset()
		put(k[:])
		put(r.key)
		h.Sum(k[:0])
		p.keys = append(p.keys, p.c.c.Key(k[:]))
	}
	return p
}

// Longest returns the entry of the longest prefix the cache holds and
// the number of rounds it covers; 0 and nil when it holds none.
func (p *Prefix) Longest() (int, []byte) {
	if p.c == nil {
		return 0, nil
	}
	for i := len(p.keys) - 1; i >= 0; i-- {
		if !p.c.c.Has(p.keys[i]) {
			continue
		}
		if b := p.c.c.Get(p.keys[i]); b != nil {
			return i + 1, b
		}
	}
	return 0, nil
}

// Len is the number of rounds the longest prefix Set may store covers.
func (p *Prefix) Len() int { return len(p.keys) }

// Set keeps b as what the caller made of the first n rounds (1 ≤ n ≤
// Len) and of the input, for a later build's Longest.
func (p *Prefix) Set(n int, b []byte) {
	if p.c != nil && n >= 1 && n <= len(p.keys) {
		p.c.c.Put(p.keys[n-1], b)
	}
}
