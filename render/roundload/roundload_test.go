package roundload

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/schema"
	"github.com/perflab/perflab/render/inputs"
)

func result(id string, tput float64) *schema.Result {
	return &schema.Result{
		ID: id, Status: schema.StatusOK, Experiment: "e", Profile: "p" + id,
		Engine:    schema.Engine{Name: "vllm", Version: "0.13"},
		Load:      schema.Load{Dataset: "random", NumPrompts: 2},
		Summary:   &schema.Summary{Completed: 2, TotalTokenThroughput: tput, TTFT: &schema.Stats{MeanMs: schema.F(20), Percentiles: []schema.Percentile{{P: 99, ValueMs: 21}}}},
		Requests:  []schema.Request{{Index: 0, Success: true}},
		RawOutput: "raw text",
	}
}

// writeRounds writes round 1 (two results), round r2 (two results) and
// r3 (a record and no result: just started) into dir.
func writeRounds(t *testing.T, dir string) {
	t.Helper()
	for i, id := range []string{"a", "b"} {
		if err := schema.WriteFile(filepath.Join(dir, id+".json"), result(id, float64(100+i))); err != nil {
			t.Fatal(err)
		}
	}
	for k, id := range []string{"r2", "r3"} {
		rd, err := schema.CreateRound(dir, &schema.Round{ID: id, Start: fmt.Sprintf("2026-01-0%dT00:00:00Z", k+2)})
		if err != nil {
			t.Fatal(err)
		}
		if id == "r3" {
			continue
		}
		for i, rid := range []string{"a", "b"} {
			if err := schema.WriteFile(filepath.Join(rd.Dir, rid+".json"), result(rid, float64(200+i))); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestScan: Scan's rounds, latest round and listings are schema's
// (Rounds, Latest, RoundFiles), for flat rounds and a round with a
// subdirectory, which is recorded as a Tree (never stamped).
func TestScan(t *testing.T) {
	dir := t.TempDir()
	writeRounds(t, dir)
	check := func(wantTree bool) {
		t.Helper()
		in := inputs.NewReader(nil)
		d, err := Scan(in, dir)
		if err != nil {
			t.Fatal(err)
		}
		rds, err := schema.Rounds(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(d.Rounds, rds) {
			t.Errorf("rounds %+v, schema's %+v", d.Rounds, rds)
		}
		for _, rd := range rds {
			want, err := schema.RoundFiles(rd)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				want[i] = filepath.ToSlash(want[i])
			}
			if got := d.Files(rd); !reflect.DeepEqual(got, want) && len(got)+len(want) > 0 {
				t.Errorf("round %s: files %q, schema's %q", rd.ID, got, want)
			}
		}
		tree := false
		for _, rec := range in.Records() {
			tree = tree || rec.Kind == inputs.Tree
		}
		if tree != wantTree {
			t.Errorf("a Tree recorded: %v, want %v", tree, wantTree)
		}
	}
	check(false)
	sub := filepath.Join(dir, schema.RoundsDir, "r2", "more")
	if err := schema.WriteFile(filepath.Join(sub, "c.json"), result("c", 300)); err != nil {
		t.Fatal(err)
	}
	check(true)
}

// TestResults: an older round read through a Reader, then taken from
// the cache by the next build (its files neither read nor prepared again,
// the same results and records), then read again after one of its files
// was edited.
func TestResults(t *testing.T) {
	dir, cdir := t.TempDir(), t.TempDir()
	writeRounds(t, dir)
	files := []string{filepath.ToSlash(filepath.Join(dir, "a.json")), filepath.ToSlash(filepath.Join(dir, "b.json"))}
	build := func(during func(*Round)) ([]*schema.Result, [32]byte, int) {
		time.Sleep(30 * time.Millisecond) // the files are older than the build (the racy rule)
		st := inputs.OpenStats(cdir, "test")
		if st == nil {
			t.Skip("no input stat cache on this platform")
		}
		c := Open(cdir)
		in := inputs.NewReader(st)
		prepared := 0
		r, err := c.Results(in, files, "salt", func(res *schema.Result) { prepared++; res.Engine.Version = "redacted" })
		if err != nil {
			t.Fatal(err)
		}
		atResults := prepared // the files read by Results
		if during != nil {
			during(r)
		}
		results := load(t, r) // read again when known, before the build ends
		c.Finish(true)
		st.Save()
		return results, in.Key(0), atResults
	}
	r1, k1, p1 := build(nil)
	if p1 != 2 {
		t.Fatalf("first build prepared %d results, want 2", p1)
	}
	res1 := r1
	for _, res := range res1 {
		if res.Requests != nil || res.RawOutput != "" || res.Engine.Version != "redacted" {
			t.Fatalf("result %s kept requests or raw output, or was not prepared", res.ID)
		}
	}
	r2, k2, p2 := build(func(r *Round) { r.SetMemo("x", []byte("memo")) })
	if p2 != 0 {
		t.Errorf("second build read %d results, want 0 (their sums known)", p2)
	}
	if k1 != k2 {
		t.Error("the round's records differ between a read and a cached round")
	}
	// The files' identities are the round cache's, not the input stat
	// cache's (which would decode and rewrite them all in every build).
	if st := inputs.OpenStats(cdir, "test"); st.Len() != 0 {
		t.Errorf("the input stat cache holds %d entries; want none (the round's files are the round cache's)", st.Len())
	} else {
		st.Abandon()
	}
	if res2 := r2; !reflect.DeepEqual(res1, res2) {
		t.Errorf("cached results differ:\n%+v\n%+v", res1[0], res2[0])
	}
	build(func(r *Round) {
		if got := r.Memo("x"); string(got) != "memo" {
			t.Errorf("memo %q, want the last build's", got)
		}
	})
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"total_token_throughput_tok_per_s": 100`, `"total_token_throughput_tok_per_s": 900`, 1)
	if edited == string(data) {
		t.Fatal("no throughput to edit")
	}
	if err := os.WriteFile(files[0], []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	r3, k3, p3 := build(func(r *Round) {
		if r.Memo("x") != nil {
			t.Error("a memo of the round before the edit was given for the edited round")
		}
	})
	if res3 := r3; p3 != 2 || k3 == k2 || res3[0].Summary.TotalTokenThroughput != 900 {
		t.Errorf("after an edit: prepared %d, same key %v, throughput %v", p3, k3 == k2, res3[0].Summary.TotalTokenThroughput)
	}
}

// TestLoadShared: a round known by its sums is decoded once while its
// results are in use (the history and the round's data files of one
// page both load it): a second Load gives the same results; once no
// one holds them, they are collected and Load reads the files again.
func TestLoadShared(t *testing.T) {
	dir, cdir := t.TempDir(), t.TempDir()
	writeRounds(t, dir)
	files := []string{filepath.ToSlash(filepath.Join(dir, "a.json")), filepath.ToSlash(filepath.Join(dir, "b.json"))}
	var r *Round
	for i := 0; i < 2; i++ { // the second build knows the files by their sums
		time.Sleep(30 * time.Millisecond) // the files are older than the build (the racy rule)
		st := inputs.OpenStats(cdir, "test")
		if st == nil {
			t.Skip("no input stat cache on this platform")
		}
		c := Open(cdir)
		var err error
		if r, err = c.Results(inputs.NewReader(st), files, "salt", func(*schema.Result) {}); err != nil {
			t.Fatal(err)
		}
		c.Finish(true)
		st.Save()
	}
	if r.kept != nil {
		t.Fatal("the second build read the round's files; want them known by their sums")
	}
	before := Loads()
	first := load(t, r)
	second := load(t, r)
	if n := Loads() - before; n != 1 {
		t.Errorf("two Loads while the first's results are held decoded %d times; want 1", n)
	}
	if len(first) != 2 || len(second) != 2 || first[0] != second[0] || first[1] != second[1] {
		t.Errorf("the second Load gave other results than the first's, held: %p %p", first, second)
	}
	ids := []string{first[0].ID, first[1].ID}
	first, second = nil, nil
	runtime.GC()
	runtime.GC()
	before = Loads()
	again := load(t, r)
	if n := Loads() - before; n != 1 {
		t.Errorf("a Load after the results were dropped decoded %d times; want 1 (read again)", n)
	}
	if len(again) != 2 || again[0].ID != ids[0] || again[1].ID != ids[1] {
		t.Errorf("read again: %d results", len(again))
	}
}

func load(t *testing.T, r *Round) []*schema.Result {
	t.Helper()
	res, err := r.Load()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestDecode: decode gives schema.Unmarshal's result less its requests
// and raw output, on the demo's rounds (results with requests), and
// schema's error for a file it declines.
func TestDecode(t *testing.T) {
	files, err := filepath.Glob("../../results/demo-mock-rounds/rounds/*/*.json")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if filepath.Base(f) == schema.RoundFile {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := schema.Unmarshal(f, data)
		if err != nil {
			t.Fatal(err)
		}
		if len(want.Requests) == 0 {
			t.Fatalf("%s: no requests to pass over", f)
		}
		want.Requests, want.RawOutput = nil, ""
		got, err := decode(f, data)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: decoded\n%+v\nwant\n%+v", f, got, want)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("%d files compared", n)
	}
	_, err = decode("bad.json", []byte(`{"schema_version": 2, "status": 7}`))
	_, want := schema.Unmarshal("bad.json", []byte(`{"schema_version": 2, "status": 7}`))
	if err == nil || want == nil || err.Error() != want.Error() {
		t.Errorf("error %v, schema's %v", err, want)
	}
}

// TestDecodeStrict: what an older round's decode does not keep (the
// requests, the raw output) is checked as the latest round's decode
// (schema.Unmarshal) checks it: a field of the wrong type inside a
// request, a member Request does not have, a raw output that is no
// string are schema.Unmarshal's errors (file, line, field), not a
// result decoded without its requests.
func TestDecodeStrict(t *testing.T) {
	good, err := os.ReadFile("../../results/demo-mock-rounds/rounds/2/large-batch--chat--c4.json")
	if err != nil {
		t.Fatal(err)
	}
	request := func(m map[string]any) map[string]any { return m["requests"].([]any)[1].(map[string]any) }
	for _, tc := range []struct {
		name, field string
		edit        func(m map[string]any)
	}{
		{"a string for a number", "output_tokens", func(m map[string]any) { request(m)["output_tokens"] = "16" }},
		{"a string in event_s", "event_s", func(m map[string]any) { request(m)["event_s"] = []any{0.1, "0.2"} }},
		{"a member Request lacks", "output_tokns", func(m map[string]any) { request(m)["output_tokns"] = 16 }},
		{"requests an object", "requests", func(m map[string]any) { m["requests"] = map[string]any{"a": m["requests"]} }},
		{"raw_output a number", "raw_output", func(m map[string]any) { m["raw_output"] = 5 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal(good, &m); err != nil {
				t.Fatal(err)
			}
			tc.edit(m)
			data, err := json.MarshalIndent(m, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			_, want := schema.Unmarshal("r.json", data)
			if want == nil {
				t.Fatal("schema.Unmarshal took it")
			}
			got, err := decode("r.json", data)
			if err == nil {
				t.Fatalf("decoded (status %s) without an error; the latest round's decode says %v", got.Status, want)
			}
			if err.Error() != want.Error() {
				t.Errorf("error %v, schema's %v", err, want)
			}
			if !strings.HasPrefix(err.Error(), "r.json:") || !strings.Contains(err.Error(), tc.field) {
				t.Errorf("error %q names no file, line and field %s", err, tc.field)
			}
		})
	}
}

// TestPrefix: a prefix's entry is found by a later build whose rounds
// begin with the same rounds (the longest such prefix), and by no build
// whose input or any of whose rounds in it differ.
func TestPrefix(t *testing.T) {
	cdir := t.TempDir()
	rounds := func(c *Cache, keys ...string) []*Round {
		var out []*Round
		for _, k := range keys {
			out = append(out, &Round{c: c, key: []byte(k)})
		}
		return out
	}
	c := Open(cdir)
	p := NewPrefix("h", []byte("in"), rounds(c, "k1", "k2"))
	if n, b := p.Longest(); n != 0 || b != nil {
		t.Fatalf("empty cache: prefix of %d rounds", n)
	}
	NewPrefix("h", []byte("in"), rounds(c, "k1")).Set(1, []byte("a"))
	p.Set(2, []byte("ab"))
	c.Finish(true)

	for _, tc := range []struct {
		name  string
		input string
		keys  []string
		n     int
		want  string
	}{
		{"next round", "in", []string{"k1", "k2", "k3"}, 2, "ab"},
		{"same rounds", "in", []string{"k1", "k2"}, 2, "ab"},
		{"second round changed", "in", []string{"k1", "x2", "k3"}, 1, "a"},
		{"first round changed", "in", []string{"x1", "k2", "k3"}, 0, ""},
		{"other input", "other", []string{"k1", "k2", "k3"}, 0, ""},
	} {
		c := Open(cdir)
		n, b := NewPrefix("h", []byte(tc.input), rounds(c, tc.keys...)).Longest()
		if n != tc.n || string(b) != tc.want {
			t.Errorf("%s: prefix of %d rounds %q, want %d %q", tc.name, n, b, tc.n, tc.want)
		}
		c.Finish(false)
	}
	if p := NewPrefix("h", []byte("in"), rounds(nil, "k1")); p.Len() != 0 {
		t.Error("a round without a cache has a prefix")
	}
}

// BenchmarkDecode decodes the demo's older rounds' result files as an
// older round is decoded (decode: requests checked, not kept).
func BenchmarkDecode(b *testing.B) {
	files, err := filepath.Glob("../../results/demo-mock-rounds/rounds/*/*--r1.json")
	if err != nil || len(files) == 0 {
		b.Fatal("no files", err)
	}
	var data [][]byte
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, d := range data {
			if _, err := decode(files[j], d); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// knownRound is the demo's round 6 (27 result files) copied into a
// temporary directory, as a build finds it whose round cache knows the
// files' sums (Results reads none: Load will), and the files' bytes.
func knownRound(tb testing.TB) (*Round, int) {
	tb.Helper()
	src, err := filepath.Glob("../../results/demo-mock-rounds/rounds/6/*--*.json")
	if err != nil || len(src) == 0 {
		tb.Fatal("no files", err)
	}
	dir, cdir := tb.TempDir(), tb.TempDir()
	var files []string
	size := 0
	for _, f := range src {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		to := filepath.ToSlash(filepath.Join(dir, filepath.Base(f)))
		if err := os.WriteFile(to, data, 0o644); err != nil {
			tb.Fatal(err)
		}
		files = append(files, to)
		size += len(data)
	}
	time.Sleep(30 * time.Millisecond) // older than the builds (the racy rule)
	var r *Round
	for i := 0; i < 2; i++ { // the second build knows the files' sums
		st := inputs.OpenStats(cdir, "bench")
		if st == nil {
			tb.Skip("no input stat cache on this platform")
		}
		c := Open(cdir)
		if r, err = c.Results(inputs.NewReader(st), files, "salt", func(*schema.Result) {}); err != nil {
			tb.Fatal(err)
		}
		c.Finish(true)
		st.Save()
	}
	if r.kept != nil {
		tb.Fatal("the round was read by Results, not known")
	}
	return r, size
}

// TestLoadOneBuffer: Load reads a known round's files into one lent
// buffer: it allocates less than the files' bytes (the decoded results,
// less requests and raw output, are a tenth of them). Each file read
// into a buffer of its own allocated 2.7 MB for the round's 0.7 MB, and
// a build remaking a 306-round report's files after its output was
// deleted was slower than one without the cache.
func TestLoadOneBuffer(t *testing.T) {
	r, size := knownRound(t)
	load(t, r) // the lent buffer grown once
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	load(t, r)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got >= uint64(size) {
		t.Errorf("Load allocated %d bytes for a round of %d bytes of files", got, size)
	}
}

// BenchmarkLoadKnown loads an older round whose files' sums the round
// cache knows (read, checked and decoded by Load: a build remaking the
// round's files), the demo's round 6 (27 result files).
func BenchmarkLoadKnown(b *testing.B) {
	r, _ := knownRound(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := r.Load(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDecodeAgreesWithSchema: every field of a request (and the raw
// output) set to each kind of JSON value is taken by decode exactly when
// schema.Unmarshal takes it (the shape check may refuse more, and then
// hands the file to schema.Unmarshal: never less).
func TestDecodeAgreesWithSchema(t *testing.T) {
	good, err := os.ReadFile("../../results/demo-mock-rounds/rounds/2/large-batch--chat--c4.json")
	if err != nil {
		t.Fatal(err)
	}
	values := []any{nil, true, "x", "", 0, -3, 2.5, 1e300, json.Number("1e999"), json.Number("-0"), json.Number("12345678901234567890"),
		json.Number("9223372036854775807"), json.Number("-9223372036854775809"), json.Number("1.0"), json.Number("1E2"),
		[]any{}, []any{1.5, 2}, []any{"a"}, []any{nil}, map[string]any{}, map[string]any{"index": 1}}
	names := []string{"raw_output", "requests"}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[schema.Request]()) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		names = append(names, "requests.0."+name)
	}
	names = append(names, "requests.0.Index", "requests.0.nosuch")
	n := 0
	for _, name := range names {
		for _, v := range values {
			var m map[string]any
			d := json.NewDecoder(strings.NewReader(string(good)))
			d.UseNumber()
			if err := d.Decode(&m); err != nil {
				t.Fatal(err)
			}
			if field, ok := strings.CutPrefix(name, "requests.0."); ok {
				m["requests"].([]any)[0].(map[string]any)[field] = v
			} else {
				m[name] = v
			}
			data, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			_, want := schema.Unmarshal("r.json", data)
			_, got := decode("r.json", data)
			if (got == nil) != (want == nil) {
				t.Errorf("%s = %s: decode's error %v, schema.Unmarshal's %v", name, mustJSON(t, v), got, want)
			}
			n++
		}
	}
	if n < 300 {
		t.Fatalf("%d cases", n)
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestShapeOf: a type that decodes by its own rules (a method, base64,
// numbers in strings, embedded fields) is decoded whole, not checked
// token by token; Request's shape has each of its fields.
func TestShapeOf(t *testing.T) {
	type quoted struct {
		N int `json:"n,string"`
	}
	type embeds struct {
		schema.Engine
	}
	for _, typ := range []reflect.Type{reflect.TypeFor[time.Time](), reflect.TypeFor[[]byte](), reflect.TypeFor[quoted](),
		reflect.TypeFor[embeds](), reflect.TypeFor[map[string]int](), reflect.TypeFor[json.RawMessage]()} {
		if s := shapeOf(typ); s.kind != reflect.Invalid {
			t.Errorf("%v: checked as %v, want decoded whole", typ, s.kind)
		}
	}
	s := shapeOf(reflect.TypeFor[schema.Request]())
	if n := len(reflect.VisibleFields(reflect.TypeFor[schema.Request]())); s.kind != reflect.Struct || len(s.fields) != n || len(s.index) != n {
		t.Errorf("Request's shape: %v with %d fields, want a struct of %d", s.kind, len(s.fields), n)
	}
}
