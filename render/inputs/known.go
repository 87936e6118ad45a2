package inputs

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"sort"
)

// Known returns the SHA-256 of the file name as the input stat cache
// recorded it, when the file's identity (stat, without opening it) is
// the recorded one, and records the file as read with that sum: work
// that keeps what it made of a file under a key made of its records
// (an older round's results, render/roundload) need not read it. ok is
// false, and nothing is recorded, when the cache does not know the file
// as it is now: read it (ReadFile).
func (r *Reader) Known(name string) (sum [32]byte, ok bool) {
	e, ok := r.stats.known(name)
	if ok {
		r.addID(Record{Kind: File, Name: name, Sum: e.Sum}, e.ID)
	}
	return e.Sum, ok
}

// Sub returns a Reader with r's stat cache whose records are its own
// (a piece of the work with a key of its own); Include adds them to r.
func (r *Reader) Sub() *Reader { return NewReader(r.stats) }

// Include adds sub's records to r, after r's.
func (r *Reader) Include(sub *Reader) {
	sub.mu.Lock()
	recs, ids := sub.recs, sub.ids // those made so far: records are appended, never changed
	sub.mu.Unlock()
	r.mu.Lock()
	for _, s := range ids {
		r.ids = append(r.ids, statedID{i: len(r.recs) + s.i, id: s.id})
	}
	r.recs = append(r.recs, recs...)
	r.mu.Unlock()
}

// Grow makes room for n more records (a caller about to record n files).
func (r *Reader) Grow(n int) {
	r.mu.Lock()
	r.recs = slices.Grow(r.recs, n)
	r.mu.Unlock()
}

// Listed records that the entries of the directory dir were read (as
// WalkDir records a directory it entered): the site stamp keeps its
// identity, which adding, removing or renaming an entry changes.
func (r *Reader) Listed(dir string) {
	r.add(Record{Kind: Listed, Name: dir})
}

// known returns the recorded sum of the file at name when its identity
// (stat, without opening it) is the recorded one; the entry is kept for
// the next build.
func (s *Stats) known(name string) (e entry, ok bool) {
	if s == nil {
		return e, false
	}
	e, ok = s.peek(name)
	if !ok {
		return e, false
	}
	s.mu.Lock()
	s.next[name] = e
	s.mu.Unlock()
	return e, true
}

// What a caller keeps of a file itself, rather than in the input stat
// cache (render/roundload keeps each older round's files' identities
// and sums with the round: a thousand reports' hundred rounds are 1.4
// million files, a file of 190 MB decoded and rewritten by every
// build), comes from KnownID or ReadFileID, under the same rules as the
// stat cache's entries (recorded only when not racy, its identity held
// during the read), and is checked by KnownAs.

// KnownAs records the file name as read with sum when its identity
// (one stat, without opening it) is id, as KnownID or ReadFileID gave
// them to the caller in an earlier build; false, and nothing recorded,
// when it is not (read it: ReadFileID).
func (r *Reader) KnownAs(name string, id ID, sum [32]byte) bool {
	if r.stats == nil {
		return false
	}
	if got, ok := statFile(name); !ok || got != id {
		return false
	}
	r.addID(Record{Kind: File, Name: name, Sum: sum}, id)
	return true
}

// KnownID is Known for a file the caller keeps (KnownAs): the entry is
// not kept in the input stat cache for the next build, and its identity
// is returned with its sum.
func (r *Reader) KnownID(name string) (sum [32]byte, id ID, ok bool) {
	e, ok := r.stats.peek(name)
	if ok {
		r.addID(Record{Kind: File, Name: name, Sum: e.Sum}, e.ID)
	}
	return e.Sum, e.ID, ok
}

// ReadFileID is ReadFile for a file the caller keeps (KnownAs): the file
// is hashed, not entered into the input stat cache; ok says whether its
// sum may be kept under id (not racy, unchanged while it was read).
func (r *Reader) ReadFileID(name string) (data []byte, sum [32]byte, id ID, ok bool, err error) {
	data, sum, id, ok, err = r.stats.readFileID(name)
	switch {
	case err == nil && ok:
		r.addID(Record{Kind: File, Name: name, Sum: sum}, id)
	case err == nil:
		r.add(Record{Kind: File, Name: name, Sum: sum})
	case errors.Is(err, fs.ErrNotExist):
		r.add(Record{Kind: Absent, Name: name})
	}
	return data, sum, id, ok, err
}

// peek returns the entry of the file at name when its identity (stat,
// without opening it) is the recorded one; the entry is not kept.
func (s *Stats) peek(name string) (entry, bool) {
	if s == nil {
		return entry{}, false
	}
	e, ok := s.old[name]
	if !ok {
		return entry{}, false
	}
	if id, ok := statFile(name); !ok || id != e.ID {
		return entry{}, false
	}
	return e, true
}

// ListedAs records that the directory dir was listed (Listed) when its
// identity (one stat) is id, as ReadDirID gave it to the caller in an
// earlier build with the entries the caller kept: a directory's
// identity changes when an entry is added, removed or renamed. False,
// and nothing recorded, when it is not (list it: ReadDirID).
func (r *Reader) ListedAs(dir string, id ID) bool {
	if r.stats == nil {
		return false
	}
	if got, ok := statDir(dir); !ok || got != id {
		return false
	}
	r.add(Record{Kind: Listed, Name: dir})
	return true
}

// ReadDirID lists the directory dir (sorted by name, as os.ReadDir) and
// returns its identity while it was listed; ok says whether the listing
// may be kept under it (not racy, unchanged while it was listed). It
// records nothing: the caller records the listing (Listed, or Tree for
// a directory it walks).
func (r *Reader) ReadDirID(dir string) (entries []fs.DirEntry, id ID, ok bool, err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, id, false, err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return nil, id, false, err
	}
	entries, err = f.ReadDir(-1)
	if err != nil {
		return nil, id, false, err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	after, err := f.Stat()
	if err != nil || r.stats == nil {
		return entries, id, false, nil
	}
	id, ok = StatID(before)
	return entries, id, ok && SameID(before, after) && !Racy(id.CTime, r.stats.horizon), nil
}
