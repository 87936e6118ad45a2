package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// A round is one run of a whole campaign: a lab re-runs its campaign per
// engine release or nightly, and every round's results are kept. A round
// is a directory level, never a field of the results or a copy of them:
//
//	results/<campaign>/                 round "1": the results collected
//	                                    before rounds existed, unchanged
//	results/<campaign>/rounds/<id>/     every later round, the same file
//	                                    names inside, and its round.json
//
// The results inside a round's directory are ordinary results: the
// directory says which round they belong to, so result files (and their
// schema version) do not change with rounds and old results are round 1
// as they are. Round 1 is the campaign directory less its rounds/
// subdirectory; it exists when it holds a result.
//
// The rounds of a campaign are ordered by their record's Start (a round
// without a record, as round 1, by its earliest result's start; a record
// dated before round 1 by its results' start when they have one; round 1
// first of equals), then by id; the last is the latest round, the
// one `perflab collect` resumes (Resumed). The pages show the newest
// round holding a finished result (Shown).
const (
	// RoundsDir is the subdirectory of a campaign's results directory
	// that holds the rounds after round 1.
	RoundsDir = "rounds"
	// RoundFile is a round's record, in the round's directory. Readers
	// of results skip it (IsResultFile).
	RoundFile = "round.json"
	// FirstRound is the id of round 1, the campaign directory itself.
	FirstRound = "1"
)

// roundID is what a round id may be: a slug usable as a directory name
// (dates, 2026-11-27; a scheduler's job id, slurm-81234; v0.13.0).
var roundID = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// CheckRoundID returns an error saying what is wrong with id as a round
// id: a lower-case slug of at most 64 characters (letters, digits, '.',
// '_', '-', starting with a letter or digit), and not "latest" or
// "previous", which name rounds by their place (perflab diff DIR@latest).
func CheckRoundID(id string) error {
	if !roundID.MatchString(id) || strings.Contains(id, "..") {
		return fmt.Errorf("round id %q: want a lower-case slug such as 2026-11-27, v0.13.0 or slurm-81234 (letters, digits, '.', '_', '-'; at most 64)", id)
	}
	if id == "latest" || id == "previous" {
		return fmt.Errorf("round id %q: latest and previous name a round by its place (perflab diff DIR@latest); give the round a name of its own, such as the date", id)
	}
	return nil
}

// checkRoundDirName refuses a directory under rounds/ whose name is an id
// that names another round: "1" is round 1, the campaign directory
// itself (RoundPath), so a rounds/1 would be a second round "1" whose
// data files, history column and diff id collide with round 1's; latest
// and previous name rounds by their place. Other names, hand-made ones
// included, are ids as they are.
func checkRoundDirName(name string) error {
	switch name {
	case FirstRound:
		return fmt.Errorf("a round directory may not be named %q: round %s is the campaign's results directory itself; rename the directory (and the id in its %s)", name, FirstRound, RoundFile)
	case "latest", "previous":
		return fmt.Errorf("a round directory may not be named %q: it names a round by its place (perflab diff DIR@%s); rename the directory (and the id in its %s)", name, name, RoundFile)
	}
	return nil
}

// Round is a round's record (RoundFile, JSON): what the round ran with.
// It is written once, by whichever process starts the round (the first
// shard to arrive), before any engine has answered, so it holds what is
// known at the start and never changes. The engines' versions are not
// in it: each result carries the version its engine reported
// (Result.Engine.Version), which readers (the history pages, perflab
// diff) take from the round's results, so that no record can disagree
// with them (a shard on another image, a run re-run later).
type Round struct {
	// ID is the round's id, its directory's name.
	ID string `json:"id"`
	// Start is when the round was started, RFC 3339 UTC.
	Start string `json:"start"`
	// Campaign is the campaign id and CampaignSHA256 the SHA-256 of the
	// campaign file's bytes when the round started.
	Campaign       string `json:"campaign,omitempty"`
	CampaignSHA256 string `json:"campaign_sha256,omitempty"`
	// GitCommit is the commit of the git repository holding the campaign
	// file (the lab), with "-dirty" appended when its work tree had
	// changes; empty when the lab is not a git repository.
	GitCommit string `json:"git_commit,omitempty"`
	// Engines are the experiments' engines as the campaign names them,
	// with the container image each command runs, when it runs one.
	Engines []RoundEngine `json:"engines,omitempty"`
	// Note is free text (what changed: "vLLM 0.13 → 0.15").
	Note string `json:"note,omitempty"`
}

// RoundEngine is one experiment's engine in a round's record.
type RoundEngine struct {
	Experiment string `json:"experiment"`
	Engine     string `json:"engine"`
	// Version is read from the first records, which carried the version
	// the campaign declared, not the one the engine ran; collect no
	// longer writes it.
	//
	// Deprecated: the engine's version is each result's
	// Result.Engine.Version, as it reported it.
	Version string `json:"version,omitempty"`
	// Image is the container image of a docker/podman run command.
	Image string `json:"image,omitempty"`
}

// RoundDir is a round of a campaign on disk.
type RoundDir struct {
	ID string
	// Dir is the round's directory (the campaign directory for round 1).
	Dir string
	// Record is the round's record; nil for round 1 and for a round whose
	// directory has no round.json (results copied in by hand).
	Record *Round
}

// StartTime is the round's start (zero when it has no record).
func (r RoundDir) StartTime() time.Time {
	if r.Record == nil {
		return time.Time{}
	}
	t, _ := time.Parse(time.RFC3339, r.Record.Start)
	return t
}

// RoundPath is the directory of round id of the campaign results
// directory dir.
func RoundPath(dir, id string) string {
	if id == FirstRound {
		return dir
	}
	return filepath.Join(dir, RoundsDir, id)
}

// IsResultFile reports whether a file name found in a results directory
// names a result: *.json, not a temporary (".name") and not a round's
// record.
func IsResultFile(name string) bool {
	return strings.HasSuffix(name, ".json") && !strings.HasPrefix(name, ".") && name != RoundFile
}

// Rounds lists the rounds of the campaign results directory dir, oldest
// first (see the order above). Round 1 is listed when dir holds a result
// file outside rounds/. A missing dir has no rounds. A round.json that
// cannot be read is an error naming it.
func Rounds(dir string) ([]RoundDir, error) { return RoundsWith(dir, ReadRound) }

// RoundsWith is Rounds with each round's record read by read, which
// gives what ReadRound gives (render keeps the records it parsed, by
// their files' identities, so that a build of a hundred rounds does not
// parse them all again).
func RoundsWith(dir string, read func(dir string) (*Round, error)) ([]RoundDir, error) {
	var out []RoundDir
	has, err := holdsResult(dir, true)
	if err != nil {
		return nil, err
	}
	if has {
		out = append(out, RoundDir{ID: FirstRound, Dir: dir})
	}
	entries, err := os.ReadDir(filepath.Join(dir, RoundsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("schema: rounds: %w", err)
	}
	var later []RoundDir
	for _, e := range entries {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		rd := RoundDir{ID: e.Name(), Dir: filepath.Join(dir, RoundsDir, e.Name())}
		if err := checkRoundDirName(rd.ID); err != nil {
			return nil, fmt.Errorf("schema: rounds: %s: %w", rd.Dir, err)
		}
		rec, err := read(rd.Dir)
		if err != nil {
			return nil, err
		}
		rd.Record = rec
		later = append(later, rd)
	}
	out = append(out, later...)
	if len(later) == 0 {
		return out, nil
	}
	// Order by start. A round without a record (round 1, a round copied
	// in by hand) starts when its earliest result started: a lab's older
	// outputs imported as a dated round go before the results it already
	// had, not after them (they would be "latest"). A record dated before
	// round 1 is believed when its results agree (or have no dates): a
	// record re-dated by hand does not move its round before results
	// measured earlier.
	start := make(map[string]time.Time, len(out))
	for _, rd := range out {
		if rd.Record != nil {
			continue
		}
		if start[rd.ID], err = resultsStart(rd); err != nil {
			return nil, err
		}
	}
	first := start[FirstRound]
	for _, rd := range out {
		if rd.Record == nil {
			continue
		}
		t := rd.StartTime()
		if t.Before(first) {
			rt, err := resultsStart(rd)
			if err != nil {
				return nil, err
			}
			if !rt.IsZero() {
				t = rt
			}
		}
		start[rd.ID] = t
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := start[out[i].ID], start[out[j].ID]
		if !a.Equal(b) {
			return a.Before(b)
		}
		if (out[i].ID == FirstRound) != (out[j].ID == FirstRound) {
			return out[i].ID == FirstRound
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// resultsStart is the earliest start of the results of round rd (zero
// when none says when it started).
func resultsStart(rd RoundDir) (time.Time, error) {
	files, err := RoundFiles(rd)
	if err != nil {
		return time.Time{}, err
	}
	var first time.Time
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return time.Time{}, fmt.Errorf("schema: %w", err)
		}
		var r struct {
			Start string `json:"start"`
		}
		if json.Unmarshal(data, &r) != nil {
			continue // not this order's business: reading the round names it
		}
		if t, err := time.Parse(time.RFC3339, r.Start); err == nil && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	return first, nil
}

// HoldsResult reports whether round rd holds a result file (a round just
// started holds none yet).
func HoldsResult(rd RoundDir) (bool, error) {
	return holdsResult(rd.Dir, rd.ID == FirstRound)
}

// A campaign's rounds serve two readers, by two rules (one function
// each, so that no caller takes one for the other):
//
//   - Resumed: the round a plain `perflab collect` goes on with, the
//     newest round, whatever its results (an interrupted round is
//     resumed; a round just started, holding none yet, too).
//   - Shown: the round the pages show, `perflab check` checks and
//     `perflab diff DIR` and DIR@latest compare: the newest round
//     holding a finished result (Status.Finished). A round whose collect
//     was stopped before any run finished (Ctrl-C, a scheduler's time
//     limit), or whose shards are still running their first runs, does
//     not hide the round before it.

// Finished reports whether a result of status s is one a round shows as
// its measurement: every status but interrupted (ok, failed, crashed,
// unsupported, skipped). An interrupted run is one collect repeats on
// resume: it says nothing about the configuration.
func (s Status) Finished() bool { return s != StatusInterrupted }

// Resumed returns the round a plain collect of the campaign results
// directory dir resumes: its newest round (ok false when it has none).
func Resumed(dir string) (RoundDir, bool, error) {
	rs, err := Rounds(dir)
	if err != nil || len(rs) == 0 {
		return RoundDir{}, false, err
	}
	return rs[len(rs)-1], true, nil
}

// Shown returns the round of the campaign results directory dir that
// the pages show (ok false when no round holds a finished result): the
// newest round holding a finished result (ShownOf).
func Shown(dir string) (RoundDir, bool, error) {
	rs, err := Rounds(dir)
	if err != nil {
		return RoundDir{}, false, err
	}
	i, err := ShownOf(rs, HoldsFinished)
	if err != nil || i < 0 {
		return RoundDir{}, false, err
	}
	return rs[i], true, nil
}

// ShownOf is Shown's rule over rounds as the caller listed them (oldest
// first): the index of the newest round for which finished reports a
// finished result, -1 when none does. finished is asked about rounds
// newest first, down to the one shown: a caller that reads the results
// anyway (the pages, through their recording reader) answers it from
// what it read (FinishedIn).
func ShownOf(rounds []RoundDir, finished func(RoundDir) (bool, error)) (int, error) {
	for i := len(rounds) - 1; i >= 0; i-- {
		ok, err := finished(rounds[i])
		if err != nil {
			return -1, err
		}
		if ok {
			return i, nil
		}
	}
	return -1, nil
}

// FinishedIn reports whether any of results is finished.
func FinishedIn(results []*Result) bool {
	for _, r := range results {
		if r.Status.Finished() {
			return true
		}
	}
	return false
}

// HoldsFinished reports whether round rd holds a finished result,
// reading its result files' statuses up to the first finished one. A
// file that does not read is an error naming it.
func HoldsFinished(rd RoundDir) (bool, error) {
	files, err := RoundFiles(rd)
	if err != nil {
		return false, err
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return false, fmt.Errorf("schema: %w", err)
		}
		var r struct {
			Status Status `json:"status"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return false, jsonError(f, data, err)
		}
		if r.Status.Finished() {
			return true, nil
		}
	}
	return false, nil
}

// ReadRound reads the record of the round directory dir; nil without
// error when it has none.
func ReadRound(dir string) (*Round, error) {
	p := filepath.Join(dir, RoundFile)
	data, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return ParseRound(dir, data)
}

// ParseRound parses data, the bytes of the record of the round directory
// dir, as ReadRound does.
func ParseRound(dir string, data []byte) (*Round, error) {
	p := filepath.Join(dir, RoundFile)
	var r Round
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, jsonError(p, data, err)
	}
	if r.ID != filepath.Base(dir) {
		return nil, fmt.Errorf("%s:%d: field id: %q is not the round's directory name %q", p, keyLine(data, "id"), r.ID, filepath.Base(dir))
	}
	if _, err := time.Parse(time.RFC3339, r.Start); err != nil {
		return nil, fmt.Errorf("%s:%d: field start: %q is not an RFC 3339 time", p, keyLine(data, "start"), r.Start)
	}
	return &r, nil
}

// CreateRound makes round rec.ID of the campaign results directory dir
// unless it exists: its directory and its record, written atomically and
// only if no record is there yet, so that N shards starting the same
// round at once agree on one record (the first one written). It returns
// the round as it is on disk afterwards.
func CreateRound(dir string, rec *Round) (RoundDir, error) {
	if err := CheckRoundID(rec.ID); err != nil {
		return RoundDir{}, fmt.Errorf("schema: %w", err)
	}
	rd := RoundDir{ID: rec.ID, Dir: RoundPath(dir, rec.ID)}
	if rec.ID == FirstRound { // the campaign directory itself: no record
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return RoundDir{}, fmt.Errorf("schema: %w", err)
		}
		return rd, nil
	}
	if err := os.MkdirAll(rd.Dir, 0o755); err != nil {
		return RoundDir{}, fmt.Errorf("schema: %w", err)
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return RoundDir{}, fmt.Errorf("schema: round %s: %w", rec.ID, err)
	}
	data = append(data, '\n')
	p := filepath.Join(rd.Dir, RoundFile)
	f, err := os.CreateTemp(rd.Dir, "."+RoundFile+".tmp-*")
	if err != nil {
		return RoundDir{}, fmt.Errorf("schema: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(tmp, 0o644)
	}
	if werr != nil {
		return RoundDir{}, fmt.Errorf("schema: write %s: %w", p, werr)
	}
	// A hard link fails when the name exists: the first writer wins and
	// nobody overwrites a record (rename would).
	if err := os.Link(tmp, p); err != nil && !errors.Is(err, fs.ErrExist) {
		return RoundDir{}, fmt.Errorf("schema: %w", err)
	}
	got, err := ReadRound(rd.Dir)
	if err != nil {
		return RoundDir{}, err
	}
	rd.Record = got
	return rd, nil
}

// holdsResult reports whether dir holds a result file; top skips the
// rounds/ subdirectory (round 1 is dir less it).
func holdsResult(dir string, top bool) (bool, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("schema: rounds: %w", err)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		if e.IsDir() {
			if top && name == RoundsDir {
				continue
			}
			if ok, err := holdsResult(filepath.Join(dir, name), false); ok || err != nil {
				return ok, err
			}
			continue
		}
		if IsResultFile(name) {
			return true, nil
		}
	}
	return false, nil
}

// RoundFiles lists the result files of a round (recursively, sorted,
// IsResultFile names only), leaving out the rounds/ subdirectory of
// round 1.
func RoundFiles(rd RoundDir) ([]string, error) {
	var out []string
	err := filepath.WalkDir(rd.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == rd.Dir {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if strings.HasPrefix(name, ".") || (rd.ID == FirstRound && filepath.Dir(p) == filepath.Clean(rd.Dir) && name == RoundsDir) {
				return filepath.SkipDir
			}
			return nil
		}
		if IsResultFile(name) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	sort.Strings(out)
	return out, nil
}

// keyLine is the line of the first key named key in the JSON object
// data (a round record's id, start: keys no nested object of it has);
// 1 when the key is not there (a record without one).
func keyLine(data []byte, key string) int {
	re := regexp.MustCompile(`"` + regexp.QuoteMeta(key) + `"\s*:`)
	if loc := re.FindIndex(data); loc != nil {
		return lineOf(data, int64(loc[0]))
	}
	return 1
}
