package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRoundsOrderImportedOlderRound: a lab's existing results (round 1,
// collected in November) and its older outputs imported as a round dated
// June. The June round is older: it must come first, and round 1 stays
// the latest (the one collect resumes and the pages show).
func TestRoundsOrderImportedOlderRound(t *testing.T) {
	dir := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "a--chat.json"), `{"start": "2026-11-20T10:00:00Z"}`)
	write(filepath.Join(dir, "b--chat.json"), `{"start": "2026-11-20T09:00:00.5Z"}`)
	if _, err := CreateRound(dir, &Round{ID: "v0-10", Start: "2025-06-01T00:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(dir, RoundsDir, "v0-10", "a--chat.json"), `{"start": "2025-06-01T00:00:00Z"}`)
	// A round copied in by hand, no record: dated by its results too.
	write(filepath.Join(dir, RoundsDir, "copied", "a--chat.json"), `{"start": "2026-12-01T00:00:00Z"}`)
	if _, err := CreateRound(dir, &Round{ID: "2026-11-25", Start: "2026-11-25T00:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(dir, RoundsDir, "2026-11-25", "a--chat.json"), `{"start": "2026-11-25T00:00:00Z"}`)

	rs, err := Rounds(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, r.ID)
	}
	want := []string{"v0-10", "1", "2026-11-25", "copied"}
	if len(got) != len(want) {
		t.Fatalf("rounds %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("rounds %v, want %v", got, want)
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, RoundsDir, "copied")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, RoundsDir, "2026-11-25")); err != nil {
		t.Fatal(err)
	}
	latest, ok, err := Shown(dir)
	if err != nil || !ok || latest.ID != FirstRound {
		t.Fatalf("latest %q (%v, %v), want round 1: the imported June round is older", latest.ID, ok, err)
	}
}

// TestRoundsFirstOfEquals: round 1 without dated results stays first.
func TestRoundsFirstOfEquals(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a--chat.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateRound(dir, &Round{ID: "2026-11-25", Start: "2026-11-25T00:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	rs, err := Rounds(dir)
	if err != nil || len(rs) != 2 || rs[0].ID != FirstRound {
		t.Fatalf("rounds %+v, %v: want round 1 first", rs, err)
	}
}

// TestCheckRoundIDReserved: latest and previous name rounds by their
// place; a round called so would shadow them in perflab diff.
func TestCheckRoundIDReserved(t *testing.T) {
	for _, id := range []string{"latest", "previous", "../x", "A", ""} {
		if CheckRoundID(id) == nil {
			t.Errorf("round id %q accepted", id)
		}
	}
	for _, id := range []string{"2026-11-27", "2026-11-27.2", "v0.13.0", "slurm-81234", "latest-vllm", "7"} {
		if err := CheckRoundID(id); err != nil {
			t.Errorf("round id %q: %v", id, err)
		}
	}
	if _, err := CreateRound(t.TempDir(), &Round{ID: "latest", Start: "2026-11-27T00:00:00Z"}); err == nil {
		t.Error("round latest created")
	}
}

// TestRoundsOrderRedatedRecords: records dated before round 1 whose
// results were measured after it (re-dated by hand, as the demo's) keep
// their place after round 1.
func TestRoundsOrderRedatedRecords(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a--chat.json"), []byte(`{"start": "2026-11-27T23:51:00Z"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for i, id := range []string{"2", "3"} {
		rd, err := CreateRound(dir, &Round{ID: id, Start: "2026-10-1" + id + "T02:00:00Z"})
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(rd.Dir, "a--chat.json"), []byte(`{"start": "2026-11-27T23:5`+string(rune('2'+i))+`:00Z"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := Rounds(dir)
	if err != nil || len(rs) != 3 || rs[0].ID != "1" || rs[1].ID != "2" || rs[2].ID != "3" {
		t.Fatalf("rounds %+v, %v: want 1, 2, 3", rs, err)
	}
}

// TestRoundsReservedDirNames: a directory under rounds/ named 1 would be
// a second round "1" beside the campaign directory (round 1): two rounds
// of one id, whose data files (rounds/1.json) overwrite each other.
// latest and previous name rounds by their place. Each is refused, with
// the directory's path in the message.
func TestRoundsReservedDirNames(t *testing.T) {
	for _, name := range []string{FirstRound, "latest", "previous"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "a--chat.json"), []byte(`{}`), 0o644); err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(dir, RoundsDir, name)
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, "a--chat.json"), []byte(`{}`), 0o644); err != nil {
			t.Fatal(err)
		}
		rs, err := Rounds(dir)
		if err == nil {
			t.Fatalf("rounds/%s: got rounds %+v, want an error", name, rs)
		}
		if !strings.Contains(err.Error(), sub) || !strings.Contains(err.Error(), "may not be named") {
			t.Errorf("rounds/%s: error %q does not name %s and say why", name, err, sub)
		}
	}
}

// TestParseRoundErrorLines: a round record whose id is not its
// directory's name (a round directory renamed by hand) or whose start is
// no time is an error naming the file, the field's line and the field
// (the line was missing).
func TestParseRoundErrorLines(t *testing.T) {
	dir := filepath.Join("results", "c", RoundsDir, "nightly-8")
	for _, tc := range []struct{ data, want string }{
		{"{\n  \"id\": \"nightly-7\",\n  \"start\": \"2026-11-28T06:00:00Z\"\n}\n",
			filepath.Join(dir, RoundFile) + `:2: field id: "nightly-7" is not the round's directory name "nightly-8"`},
		{"{\n  \"id\": \"nightly-8\",\n  \"campaign\": \"c\",\n  \"start\": \"yesterday\"\n}\n",
			filepath.Join(dir, RoundFile) + `:4: field start: "yesterday" is not an RFC 3339 time`},
	} {
		_, err := ParseRound(dir, []byte(tc.data))
		if err == nil || err.Error() != tc.want {
			t.Errorf("got %v\nwant %s", err, tc.want)
		}
	}
}
