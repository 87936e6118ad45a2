package roundload

import (
	"slices"
	"strconv"

	"github.com/perflab/perflab/render/wire"
)

// A report's older rounds' entries (roundEntry: their files' identities
// and sums, listing and record) are kept in blocks of blockLen rounds,
// in the order Dir.Results was given them, rather than one entry per
// round: a build of a report's round 100 reads seven entries instead of
// a hundred (each a lookup, a read and a checksum; the identities are
// decoded all the same), and writes again only the blocks whose rounds
// changed — the last, to which the former latest round is added — not
// every round's entry nor one entry of all rounds.
//
// A block is keyed by the results directory and its place; what it
// holds is checked as a round's own entry was, round by round, so that
// no key needs to name what the rounds are: each round's entry is found
// by its directory's path, its listing taken only while the directory's
// identity is the one kept with it, its record and each file's sum only
// while the file's identity is the one kept (inputs.Reader.ListedAs,
// KnownAs). A round moved to another block, a block of rounds since
// removed, or two reports' blocks can only give an entry for a round
// directory of that very path, checked as said.
const blockLen = 16

// roundBlock is one block of a report's round entries; the first block
// says how many there are (Blocks), so that blocks left from a report
// that had more rounds are not read (nor kept).
type roundBlock struct {
	Blocks int
	Rounds []roundRec
}

// roundRec is a round's entry with its directory's path.
type roundRec struct {
	Dir   string
	Entry roundEntry
}

// blockKey is the entry of block i of the results directory dir.
func (c *Cache) blockKey(dir string, i int) string {
	return c.c.Key([]byte("rounds\x00" + dir + "\x00" + strconv.Itoa(i)))
}

// readBlocks returns the round entries the cache keeps for the results
// directory dir, by round directory, and each block's directories.
func (c *Cache) readBlocks(dir string) (map[string]roundEntry, [][]string) {
	if c == nil {
		return nil, nil
	}
	var got map[string]roundEntry
	var had [][]string
	n := 1
	for i := 0; i < n; i++ {
		key := c.blockKey(dir, i)
		if !c.c.Has(key) {
			break
		}
		var b roundBlock
		if data := c.c.Get(key); data == nil || wire.Decode(data, &b) != nil {
			break
		}
		if i == 0 {
			n = b.Blocks
			got = make(map[string]roundEntry, n*blockLen)
		}
		dirs := make([]string, len(b.Rounds))
		for j, r := range b.Rounds {
			got[r.Dir], dirs[j] = r.Entry, r.Dir
		}
		had = append(had, dirs)
	}
	return got, had
}

// Keep keeps, for the next build, the entries of the rounds given to
// Results (in that order): a block whose rounds are those the cache
// gave, each as it was, stays as it is; any other is written.
func (d *Dir) Keep() {
	if d.c == nil || len(d.kept) == 0 {
		return
	}
	n := (len(d.kept) + blockLen - 1) / blockLen
	for i := 0; i < n; i++ {
		recs := d.kept[i*blockLen : min(len(d.kept), (i+1)*blockLen)]
		same := i < len(d.had) && len(d.had[i]) == len(recs) && (i > 0 || len(d.had) == n)
		for j, r := range recs {
			same = same && d.had[i][j] == r.Dir && !d.changed[r.Dir]
		}
		key := d.c.blockKey(d.dir, i)
		if same {
			d.c.c.Keep(key)
			continue
		}
		b := roundBlock{Rounds: slices.Clone(recs)}
		if i == 0 {
			b.Blocks = n
		}
		d.c.c.Put(key, wire.Append(nil, b))
	}
}
