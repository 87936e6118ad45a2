package inputs

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Kind is what a Record says of its path.
type Kind byte

const (
	// File: the file's bytes were used; Sum is their SHA-256.
	File Kind = iota + 1
	// Absent: the path did not exist.
	Absent
	// Present: the path existed (os.Stat); its bytes were not used.
	Present
	// Dir: a directory's *.ext files were listed (Files), reading the
	// directory alone; Sum hashes the names.
	Dir
	// Tree: as Dir, but the directory was walked (it has
	// subdirectories, or is reached through a link).
	Tree
	// Value: not a path; a named value the work depends on (Name is the
	// name, Sum hashes the value).
	Value
	// Listed: a directory WalkDir entered (its entries were walked).
	Listed
)

// A Record is one input a piece of work used, as it was when used.
type Record struct {
	Kind Kind
	Name string
	Sum  [32]byte
	Ext  string // Dir, Tree: the extension of the files listed
}

// A Reader is how a piece of work (a page, a block) reads its inputs:
// every file read, path stat'ed or directory listed through it is
// recorded with what was seen, in order, and the work's cache key is
// computed from the records (Key). Nothing is added to a key by hand, so
// nothing read can be left out of it. It is safe for concurrent use.
type Reader struct {
	stats *Stats
	mu    sync.Mutex
	recs  []Record
	ids   []statedID // identities taken when records were made (Identities)
}

// statedID is the identity of recs[i]'s file as stat reported it when
// the record was made.
type statedID struct {
	i  int
	id ID
}

// NewReader returns a Reader whose file sums come from stats (nil: every
// file is hashed).
func NewReader(stats *Stats) *Reader { return &Reader{stats: stats} }

func (r *Reader) add(rec Record) {
	r.mu.Lock()
	r.recs = append(r.recs, rec)
	r.mu.Unlock()
}

// addID adds rec, a File record whose bytes are those the file had
// under id, as stat (through links) reported it when rec was made.
func (r *Reader) addID(rec Record, id ID) {
	r.mu.Lock()
	r.recs = append(r.recs, rec)
	r.ids = append(r.ids, statedID{i: len(r.recs) - 1, id: id})
	r.mu.Unlock()
}

// ReadFile returns the bytes of the file name and their SHA-256 (from
// the stat cache when the file is unchanged), recording them; a file
// that does not exist is recorded as Absent and its error returned.
func (r *Reader) ReadFile(name string) ([]byte, [32]byte, error) {
	data, sum, err := r.stats.ReadFile(name)
	switch {
	case err == nil:
		r.add(Record{Kind: File, Name: name, Sum: sum})
	case errors.Is(err, fs.ErrNotExist):
		r.add(Record{Kind: Absent, Name: name})
	}
	return data, sum, err
}

// ReadInto appends the bytes of the file name to buf (ReadInto, the
// function) and records them with their SHA-256.
func (r *Reader) ReadInto(name string, buf []byte) ([]byte, error) {
	n := len(buf)
	data, err := ReadInto(name, buf)
	switch {
	case err == nil:
		r.add(Record{Kind: File, Name: name, Sum: sha256.Sum256(data[n:])})
	case errors.Is(err, fs.ErrNotExist):
		r.add(Record{Kind: Absent, Name: name})
	}
	return data, err
}

// Memo returns what SetMemo kept of the file name when the file is as it
// was then (its identity, stat'ed without opening it), with the sum of
// its bytes, recording the file as read; ok is false otherwise, and
// nothing is recorded (read the file).
func (r *Reader) Memo(name string) (memo []byte, sum [32]byte, ok bool) {
	sum, memo, ok = r.stats.memo(name)
	if ok {
		r.add(Record{Kind: File, Name: name, Sum: sum})
	}
	return memo, sum, ok
}

// SetMemo keeps memo, what the caller made of the bytes of name whose
// sum is sum (as ReadFile returned them), for a later Memo.
func (r *Reader) SetMemo(name string, sum [32]byte, memo []byte) {
	r.stats.setMemo(name, sum, memo)
}

// Exists reports whether name exists (os.Stat), recording the answer.
func (r *Reader) Exists(name string) bool {
	_, err := os.Stat(name)
	if err != nil {
		r.add(Record{Kind: Absent, Name: name})
		return false
	}
	r.add(Record{Kind: Present, Name: name})
	return true
}

// Value records a named value the work depends on that is not read from
// a file.
func (r *Reader) Value(name, v string) {
	r.add(Record{Kind: Value, Name: name, Sum: sha256.Sum256([]byte(v))})
}

// Files lists the files of dir whose names end in ext, recursively,
// sorted (slash-separated paths); names starting with "." (temporaries),
// and everything below them, are skipped. found is false when dir does
// not exist (os.Stat's answer: a link to nothing does not either). The
// listing is recorded: Dir when dir was read alone (it holds no
// subdirectory but hidden ones), Tree when it was walked, Absent.
func (r *Reader) Files(dir, ext string) (files []string, found bool, err error) {
	kind := Dir
	// The common case, a directory of files with no subdirectory, is one
	// lstat and one read of the directory; anything else (a link, a
	// subdirectory, an error) is walked, which words the error.
	fi, err := os.Lstat(dir)
	if os.IsNotExist(err) {
		r.add(Record{Kind: Absent, Name: dir}) // no name on the way (os.Stat fails the same)
		return nil, false, nil
	}
	flat := false
	if err == nil && fi.IsDir() {
		files, flat = flatFiles(dir, ext)
	}
	if !flat {
		if _, err := os.Stat(dir); os.IsNotExist(err) {
			r.add(Record{Kind: Absent, Name: dir})
			return nil, false, nil
		}
		kind = Tree
		if files, err = walkFiles(dir, ext); err != nil {
			return nil, true, err
		}
	}
	h := sha256.New()
	field(h, files...)
	rec := Record{Kind: kind, Name: dir, Ext: ext}
	h.Sum(rec.Sum[:0])
	r.add(rec)
	return files, true, nil
}

// Tree records files as the listing of dir that the caller made by its
// own rules (a directory of rounds, whose latest it lists): a Tree
// record, which the site stamp does not trust to a directory's identity.
func (r *Reader) Tree(dir, ext string, files []string) {
	h := sha256.New()
	field(h, files...)
	rec := Record{Kind: Tree, Name: dir, Ext: ext}
	h.Sum(rec.Sum[:0])
	r.add(rec)
}

// flatFiles is walkFiles for a directory read without error and holding
// no subdirectory but hidden ones; ok is false otherwise.
func flatFiles(dir, ext string) (files []string, ok bool) {
	entries, err := os.ReadDir(dir) // as filepath.WalkDir reads it
	if err != nil {
		return nil, false
	}
	// filepath.Join(dir, name) for a name of one element is the cleaned
	// dir, a separator and name: cleaned once, not 14 times a report.
	prefix := filepath.Join(dir, "x")
	prefix = prefix[:len(prefix)-1]
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		if e.IsDir() {
			return nil, false
		}
		if strings.HasSuffix(name, ext) {
			files = append(files, filepath.ToSlash(prefix+name))
		}
	}
	sort.Strings(files)
	return files, true
}

// walkFiles lists the files below dir whose names end in ext, sorted;
// names starting with "." (temporaries), and everything below them, are
// skipped.
func walkFiles(dir, ext string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ext) {
			out = append(out, filepath.ToSlash(p))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// Skip is what a WalkDir function returns for a file it passes by: it
// is not recorded, and the walk goes on.
var Skip = errors.New("skip this file")

// WalkDir is filepath.WalkDir, recording every directory fn entered
// (Listed) and every file fn took (Present): those for which it
// returned nil.
func (r *Reader) WalkDir(root string, fn fs.WalkDirFunc) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err := fn(p, d, err); err == Skip {
			return nil
		} else if err != nil {
			return err
		}
		if d.IsDir() {
			r.add(Record{Kind: Listed, Name: p})
		} else {
			r.add(Record{Kind: Present, Name: p})
		}
		return nil
	})
}

// Records are what was recorded, in order.
func (r *Reader) Records() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Record(nil), r.recs...)
}

// EachRecord calls fn with each record, in order, and with the identity
// its file had when the record was made, where the Reader took one by
// stat (following links) then (known: Known, KnownAs, KnownID, and
// ReadFileID when its ok is true): the site stamp records that identity
// rather than stat the file again. A later change to the file changes
// its identity (its change time cannot be put back); the caller applies
// the racy rule (Racy) to it. Records made during the calls are left out.
func (r *Reader) EachRecord(fn func(rec Record, id ID, known bool)) {
	r.mu.Lock()
	recs, ids := r.recs[:len(r.recs):len(r.recs)], r.ids[:len(r.ids):len(r.ids)]
	r.mu.Unlock()
	for i, rec := range recs { // records are appended, never changed
		if len(ids) > 0 && ids[0].i == i {
			fn(rec, ids[0].id, true)
			ids = ids[1:]
			continue
		}
		fn(rec, ID{}, false)
	}
}

// Len is how many records there are: Records()[n:] are those made after
// a call that returned n.
func (r *Reader) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.recs)
}

// Key hashes the records from the n-th on (kind, name and sum of each,
// in order): two pieces of work with the same key used the same inputs
// as they were.
func (r *Reader) Key(n int) [32]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Key(r.recs[n:])
}

// Key hashes recs as Reader.Key does: each record's kind, its name and
// extension as field writes them, and its sum. The bytes are gathered
// in a buffer and hashed a few kilobytes at a time (a page of a report
// with a hundred rounds has some 1,400 records: writing each piece to
// the hash on its own cost more than the hashing).
func Key(recs []Record) [32]byte {
	h := sha256.New()
	buf := make([]byte, 0, 8<<10)
	for _, rec := range recs {
		buf = append(buf, byte(rec.Kind))
		buf = binary.LittleEndian.AppendUint64(buf, uint64(len(rec.Name)))
		buf = append(buf, rec.Name...)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(len(rec.Ext)))
		buf = append(buf, rec.Ext...)
		buf = append(buf, rec.Sum[:]...)
		if len(buf) >= 4<<10 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(buf)
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// Paths are the names of the files read and the paths found present or
// absent (not the listed directories nor the values), sorted, once each.
func (r *Reader) Paths() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ps := make([]string, 0, len(r.recs))
	for _, rec := range r.recs {
		if rec.Kind == File || rec.Kind == Absent || rec.Kind == Present {
			ps = append(ps, rec.Name)
		}
	}
	if len(ps) == 0 {
		return nil
	}
	slices.Sort(ps)
	return slices.Clip(slices.Compact(ps))
}

// Replay observes the paths of recs again through r, recording what it
// finds now (a value is recorded as it was): r's key over them equals
// Key(recs) exactly when every input is as recorded. This is how work
// whose inputs were known only once it ran (Shake's dynamic
// dependencies) is checked before its cached result is used.
func (r *Reader) Replay(recs []Record) {
	for _, rec := range recs {
		switch rec.Kind {
		case File, Absent:
			if _, _, err := r.ReadFile(rec.Name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				r.add(Record{Kind: Absent, Name: rec.Name}) // unreadable: not as recorded
			}
		case Present, Listed:
			r.Exists(rec.Name)
		case Dir, Tree:
			r.Files(rec.Name, rec.Ext)
		default:
			r.add(rec)
		}
	}
}

// field writes length-prefixed strings into h, so that no two lists of
// strings hash alike.
func field(h hash.Hash, ss ...string) {
	var n [8]byte
	for _, s := range ss {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		io.WriteString(h, s)
	}
}
