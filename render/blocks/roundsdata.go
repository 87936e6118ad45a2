package blocks

import (
	"bytes"
	"encoding/csv"
	"fmt"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
	"github.com/perflab/perflab/render/wire"
)

// A report with rounds offers every round's runs in data.json ("rounds")
// and data.csv (a row per run of every round): a hundred rounds are a
// hundred times the encoding of one. roundsData encodes a round at a
// time and keeps an older round's part of both files in the round cache
// (render/roundload: a memo of the round, under the round's key, which
// is made of its files and the report's campaign, and a name that
// carries the rest of what the part is made of: the round's id, start
// and commit), so that the build of round 100 encodes round 100's. The
// bytes are those of ReportTables' value encoded whole
// (TestReportDataJSON, TestRoundCache).

// dataFragment is a round's part of data.json and data.csv.
type dataFragment struct {
	// JSON is the round's element of "rounds", indented as at its place
	// (its first line unindented, the others by four spaces).
	JSON []byte
	// CSV is the round's rows of data.csv.
	CSV []byte
}

// roundsData returns data.json and data.csv of a report with two rounds
// or more, as ReportData does for any report.
func roundsData(r *Report) ([]byte, []byte, error) {
	d, rows := latestTables(r)
	head, err := marshalDataJSON(d) // "rounds" is empty: left out
	if err != nil {
		return nil, nil, fmt.Errorf("data.json: %w", err)
	}
	frags := make([]dataFragment, len(r.Rounds))
	ok := bytes.HasSuffix(head, []byte("\n}\n"))
	for i := range r.Rounds {
		if !ok {
			break
		}
		frags[i], ok = roundFragment(r, i)
	}
	if !ok { // a value json v2 declines: encoding/json encodes the whole
		return wholeData(r)
	}
	js := bytes.NewBuffer(make([]byte, 0, len(head)+len(frags)*len(frags[len(frags)-1].JSON)+64))
	js.Write(head[:len(head)-3])
	js.WriteString(",\n  \"rounds\": [\n    ")
	cs := bytes.NewBuffer(csvRows([][]string{append([]string{"round"}, rows[0]...)}))
	for i, f := range frags {
		if i > 0 {
			js.WriteString(",\n    ")
		}
		js.Write(f.JSON)
		cs.Write(f.CSV)
	}
	js.WriteString("\n  ]\n}\n")
	return js.Bytes(), cs.Bytes(), nil
}

// roundFragment returns round ri's part of data.json and data.csv (withRounds'
// value for the round); ok is false when json v2 declines a value or the
// round cannot be read again (withRounds says why).
func roundFragment(r *Report, ri int) (f dataFragment, ok bool) {
	rr := r.Rounds[ri]
	x := roundHead(r, ri)
	name := "data " + x.ID + "\x00" + x.Start + "\x00" + x.GitCommit
	if b := rr.Cached.Memo(name); b != nil && wire.Decode(b, &f) == nil {
		return f, true
	}
	results, err := rr.Load()
	if err != nil {
		return f, false
	}
	rd, rows := roundTables(r, results)
	x.Runs = rd.Runs
	js := dataBufs.Get()
	defer dataBufs.Put(js)
	if err := jsonv2.MarshalWrite(js, x, jsonv1.DefaultOptionsV1(), jsonv2.Deterministic(true), jsontext.WithIndent("  "), jsontext.WithIndentPrefix("    "), jsontext.AllowInvalidUTF8(false)); err != nil {
		return f, false
	}
	for i := range rows[1:] {
		rows[i+1] = append([]string{rr.ID}, rows[i+1]...)
	}
	f = dataFragment{JSON: bytes.Clone(js.Bytes()), CSV: csvRows(rows[1:])}
	rr.Cached.SetMemo(name, wire.Append(nil, f))
	return f, true
}

// csvRows is rows as data.csv writes them.
func csvRows(rows [][]string) []byte {
	cs := dataBufs.Get()
	defer dataBufs.Put(cs)
	w := csv.NewWriter(cs)
	w.WriteAll(rows) // a bytes.Buffer does not fail
	return bytes.Clone(cs.Bytes())
}
