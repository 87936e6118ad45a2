package inputs

import "os"

// Known returns the SHA-256 of the file name as the input stat cache
// recorded it, when the file's identity (stat, without opening it) is
// the recorded one, and records the file as read with that sum: work
// that keeps what it made of a file under a key made of its records
// (an older round's results, render/roundload) need not read it. ok is
// false, and nothing is recorded, when the cache does not know the file
// as it is now: read it (ReadFile).
func (r *Reader) Known(name string) (sum [32]byte, ok bool) {
	sum, ok = r.stats.known(name)
	if ok {
		r.add(Record{Kind: File, Name: name, Sum: sum})
	}
	return sum, ok
}

// Sub returns a Reader with r's stat cache whose records are its own
// (a piece of the work with a key of its own); Include adds them to r.
func (r *Reader) Sub() *Reader { return NewReader(r.stats) }

// Include adds sub's records to r, after r's.
func (r *Reader) Include(sub *Reader) {
	recs := sub.Records()
	r.mu.Lock()
	r.recs = append(r.recs, recs...)
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
func (s *Stats) known(name string) (sum [32]byte, ok bool) {
	if s == nil {
		return sum, false
	}
	e, ok := s.old[name]
	if !ok {
		return sum, false
	}
	fi, err := os.Stat(name)
	if err != nil || fi.IsDir() {
		return sum, false
	}
	if id, ok := StatID(fi); !ok || id != e.ID {
		return sum, false
	}
	s.mu.Lock()
	s.next[name] = e
	s.mu.Unlock()
	return e.Sum, true
}
