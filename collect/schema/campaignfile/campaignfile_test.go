package campaignfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/perflab/perflab/collect/schema"
)

const valid = `id: demo
model: {id: Qwen/Qwen3-32B}
profiles:
  - {id: sharegpt, name: ShareGPT, dataset: sharegpt, num_prompts: 10}
  - {id: long, name: Long, dataset: random, input_len: 100, output_len: 10, num_prompts: 10}
steps:
  - id: engine
    title: Engine
    experiments:
      - {id: vllm, name: vLLM, engine: vllm}
      - id: sglang
        name: SGLang
        engine: sglang
        profiles: [long]
    chosen: vllm
baseline: vllm
optimized: sglang
`

// TestParseErrors: decode errors name file:line in the author's words.
func TestParseErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"unknown top-level field", "id: x\nmodle: {id: m}\n", `c.yaml:2: unknown field "modle" in the campaign`},
		{"unknown nested field", strings.Replace(valid, "engine: sglang\n", "engine: sglang\n        gpu: 2\n", 1), `c.yaml:14: steps[0].experiments[1].gpu: unknown field "gpu" in an experiment`},
		{"wrong type", strings.Replace(valid, "num_prompts: 10}", "num_prompts: many}", 1), "c.yaml:4: profiles[0].num_prompts: cannot unmarshal !!str `many` into int"},
		// yaml.v3 alone would store 2 and 1 without a word
		{"fraction in an integer", strings.Replace(valid, "num_prompts: 10}", "num_prompts: 2.5}", 1), "c.yaml:4: profiles[0].num_prompts: cannot unmarshal !!float `2.5` into int (want an integer)"},
		{"fraction in a bench field", strings.Replace(valid, "output_len: 10,", "output_len: 10, ramp_up_strategy: linear, ramp_up_start_rps: 1.5, ramp_up_end_rps: 4,", 1),
			"c.yaml:5: profiles[1].ramp_up_start_rps: cannot unmarshal !!float `1.5` into int"},
		// ... or merged in from another mapping (<<)
		{"fraction through a merge key", strings.Replace(valid, "dataset: sharegpt, num_prompts: 10}", "dataset: sharegpt, <<: {num_prompts: 2.5}}", 1),
			"c.yaml:4: profiles[0].num_prompts: cannot unmarshal !!float `2.5` into int (want an integer)"},
		{"fraction through a merged alias", strings.Replace(strings.Replace(valid, "dataset: sharegpt, num_prompts: 10}", "dataset: sharegpt, num_prompts: 10, <<: &d {seed: 1.5}}", 1), "output_len: 10,", "output_len: 10, <<: [{input_len: 3}, *d],", 1),
			"cannot unmarshal !!float `1.5` into int64 (want an integer)"},
		{"malformed", "id: [x\n", "c.yaml:"},
		// yaml.v3 reports its parser's errors one line early (line 1
		// here); the line named is the one holding the unclosed bracket ...
		{"unclosed in the middle", "id: x\nprofiles: [p\nsteps: []\n", "c.yaml:2: did not find expected ',' or ']'"},
		// ... but never past the file's last line.
		{"unclosed at the end", "id: [", "c.yaml:1: did not find expected node content"},
		// yaml.v3 names no line for an error on its line 0 (found by
		// FuzzParse)
		{"lone quote", "\"", "c.yaml:1: found unexpected end of stream"},
		// a value with line breaks is quoted on one line, after the
		// line that yaml.v3's "line N:" gave (found by FuzzParse)
		{"multi-line value", "0\n\n0", "c.yaml:1: cannot unmarshal !!str `0\\n0` into schema.Campaign"},
		// yaml.v3 panics on a merge key beside a mapping used as a key
		// (found by FuzzParse)
		{"merge beside a mapping key", "id: x\nprofiles:\n  - {id: p, <<, &a {0}}\n", "c.yaml:1: malformed YAML the decoder cannot read"},
		{"empty", "", "c.yaml: empty campaign file"},
		// A comment only is an empty document too.
		{"comment only", "# nothing yet\n", "c.yaml: empty campaign file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestLine(t *testing.T) {
	f, err := Parse("c.yaml", []byte(valid))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path []any
		want int
	}{
		{[]any{"id"}, 1},
		{[]any{"profiles", 1, "id"}, 5},
		{[]any{"steps", 0, "experiments", 1, "profiles", 0}, 14},
		{[]any{"steps", 0, "chosen"}, 15},
		// Absent below the top: the nearest ancestor that exists.
		{[]any{"steps", 0, "experiments", 0, "command"}, 10},
		{[]any{"steps", 0, "experiments", 7}, 9},
		// Absent at the top: no line.
		{[]any{"results"}, 0},
	}
	for _, tt := range tests {
		if got := f.Line(tt.path...); got != tt.want {
			t.Errorf("Line(%v) = %d, want %d", tt.path, got, tt.want)
		}
	}
}

// TestCheckIDs: each broken id is reported with its line and field path;
// all problems at once, in line order.
func TestCheckIDs(t *testing.T) {
	tests := []struct{ name, old, new, want string }{
		{"valid", "", "", ""},
		{"no campaign id", "id: demo\n", "", `c.yaml: id: missing`},
		{"duplicate profile", "{id: long,", "{id: sharegpt,", `c.yaml:5: profiles[1].id: duplicate profile id "sharegpt"`},
		{"duplicate experiment", "id: sglang\n", "id: vllm\n", `c.yaml:11: steps[0].experiments[1].id: duplicate experiment id "vllm"`},
		{"unknown profile", "profiles: [long]", "profiles: [longer]", `c.yaml:14: steps[0].experiments[1].profiles[0]: unknown profile "longer"`},
		{"chosen elsewhere", "chosen: vllm", "chosen: trt", `c.yaml:15: steps[0].chosen: "trt" is not an experiment of this step`},
		{"unknown baseline", "baseline: vllm", "baseline: vlm", `c.yaml:16: baseline: unknown experiment "vlm"`},
		{"unknown optimized", "optimized: sglang", "optimized: sg", `c.yaml:17: optimized: unknown experiment "sg"`},
		// Absent references are the caller's business (import allows them).
		{"no baseline", "baseline: vllm\n", "", ""},
		{"two problems in line order", "baseline: vllm\noptimized: sglang", "optimized: sg\nbaseline: vlm", "c.yaml:16: optimized: unknown experiment \"sg\"\nc.yaml:17: baseline: unknown experiment \"vlm\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := valid
			if tt.old != "" {
				in = strings.Replace(valid, tt.old, tt.new, 1)
			}
			f, err := Parse("c.yaml", []byte(in))
			if err != nil {
				t.Fatal(err)
			}
			err = Errors(f.Path, f.CheckIDs())
			if tt.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestDecodeError: offset shifts yaml's lines; a type-specific noun.
func TestDecodeError(t *testing.T) {
	type spec struct {
		Block string `yaml:"block"`
	}
	var s spec
	err := DecodeStrict([]byte("block: a\ncolour: red\n"), &s)
	if err == nil {
		t.Fatal("unknown field accepted")
	}
	noun := func(typ string) string { return "block " + typ }
	got := DecodeError("p.md", 7, []byte("block: a\ncolour: red\n"), err, noun).Error()
	if want := `p.md:9: unknown field "colour" in block campaignfile.spec`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// A parser error at the end of the YAML names its last line, not the
	// line after it (the front matter's closing ---).
	data := []byte("block: [a\n")
	err = DecodeStrict(data, &s)
	got = DecodeError("p.md", 1, data, err, nil).Error()
	if want := "p.md:2: did not find expected ',' or ']'"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if err := DecodeStrict(nil, &s); err != nil {
		t.Errorf("empty document: %v", err)
	}
}

// TestParseWholeFloats: a float without a fraction (10.0, 1e2) still fills
// an integer field, as yaml.v3 allows, and float fields keep fractions.
func TestParseWholeFloats(t *testing.T) {
	in := strings.Replace(valid, "num_prompts: 10}", "num_prompts: 1e2, multi_turn_prefix_global_ratio: 0.25}", 1)
	in = strings.Replace(in, "output_len: 10,", "output_len: 10.0,", 1)
	f, err := Parse("c.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	p := f.Campaign.Profiles
	if p[0].NumPrompts != 100 || p[0].MultiTurnPrefixGlobalRatio != 0.25 || p[1].OutputLen != 10 {
		t.Errorf("profiles %+v", p)
	}
}

// Parse decodes a clean file without the node tree unless a word could be
// a fractional float; every spelling yaml.v3 reads as one must take the
// checked path.
func TestMayHoldFraction(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"num_prompts: 2.5", true}, {"n: .5", true}, {"n: -1.5\n", true}, {"n: 2e-1", true}, {"n: 1_0.5", true},
		{"l: [1, 2.5]", true}, {"m: {a: 1.5}", true},
		{"num_prompts: 10", false}, {"image: vllm/vllm-openai:v0.11.0", false}, {"version: 0.11.0", false}, {"id: x", false},
	} {
		if got := mayHoldFraction([]byte(tt.in)); got != tt.want {
			t.Errorf("mayHoldFraction(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
	for _, in := range []string{"n: .5", "n: 2e-1", "n: 1_0.5"} {
		var v struct{ N int }
		if err := DecodeStrict([]byte(in), &v); err == nil {
			t.Errorf("DecodeStrict(%q) = nil (N = %d), want a type error", in, v.N)
		}
	}
}

// TestParseTaggedFraction: a float spelled with a tag and an escape, which
// no word scan recognises, is still a type error in an integer field.
func TestParseTaggedFraction(t *testing.T) {
	for _, v := range []string{`!!float "1\x2e5"`, `!!float 2.5`, `!!float "2.5"`} {
		in := strings.Replace(valid, "num_prompts: 10}", "num_prompts: "+v+"}", 1)
		if in == valid {
			t.Fatal("the fixture changed")
		}
		f, err := Parse("c.yaml", []byte(in))
		if err == nil {
			t.Errorf("num_prompts: %s accepted as %d", v, f.Campaign.Profiles[0].NumPrompts)
		} else if !strings.Contains(err.Error(), "c.yaml:") {
			t.Errorf("num_prompts: %s: %v (no file:line)", v, err)
		}
	}
}

// TestParseFractionAliasOnce: a fraction anchored in one profile and used
// in another (*alias) is reported once, at the anchor's line.
func TestParseFractionAliasOnce(t *testing.T) {
	in := strings.Replace(strings.Replace(valid, "dataset: sharegpt, num_prompts: 10}", "dataset: sharegpt, num_prompts: &n 2.5}", 1),
		"output_len: 10, num_prompts: 10}", "output_len: 10, num_prompts: *n}", 1)
	_, err := Parse("c.yaml", []byte(in))
	if err == nil {
		t.Fatal("no error")
	}
	if n := strings.Count(err.Error(), "`2.5`"); n != 1 {
		t.Errorf("the fraction is reported %d times: %v", n, err)
	}
}

// mayHoldFractionRegexp is mayHoldFraction as it was before its byte
// prefilter: every word through bytes.ReplaceAll and floatWord.
func mayHoldFractionRegexp(data []byte) bool {
	start := -1
	for i := 0; i <= len(data); i++ {
		// (and at non-ASCII bytes, which yaml.v3's line breaks NEL, U+2028
		// and U+2029 are made of: TestDecodeStrictUnicodeBreaks)
		if i < len(data) && data[i] < 0x80 && !strings.ContainsRune(" \t\r\n,[]{}:#\"'", rune(data[i])) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && floatWord.Match(bytes.ReplaceAll(data[start:i], []byte("_"), nil)) {
			return true
		}
		start = -1
	}
	return false
}

// TestMayHoldFractionSame: the prefiltered mayHoldFraction answers as the
// plain regexp scan did, on the repository's campaigns and pages (the
// seeds' reports, the demos, the test sites), on every one-byte edit of
// float-like words, and on random inputs drawn from the bytes that matter.
func TestMayHoldFractionSame(t *testing.T) {
	check := func(what string, in []byte) {
		t.Helper()
		if got, want := mayHoldFraction(in), mayHoldFractionRegexp(in); got != want {
			t.Fatalf("%s: mayHoldFraction(%q) = %v, the regexp scan says %v", what, in, got, want)
		}
	}
	files := 0
	for _, root := range []string{"../../../content", "../../../render/testdata", "../../../results"} {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".md") && !strings.HasSuffix(p, ".txt") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files++
			check(p, data)
			// Each line on its own too: a file answers true at its first float.
			for _, line := range bytes.Split(data, []byte("\n")) {
				check(p, line)
			}
			return nil
		})
	}
	if files < 5 {
		t.Fatalf("only %d files checked", files)
	}
	words := []string{"1.5", ".5", "-1.5", "+2e-1", "1_0.5", "_1.5_", "1e5", "1E+5", "1.", "1.e3", "e5", "E", ".", "-", "+", "_", "__",
		"1..5", "1.5.5", "1e", "1e+", "1.5e5e5", "0x1.5", "1.5x", "inf", ".inf", "nan", "1_000", "v0.11.0", "-.5", "+.5", ".e5", "1__.__5"}
	var edits []string
	for _, w := range words {
		edits = append(edits, w)
		for i := 0; i <= len(w); i++ {
			for _, c := range []byte("0159.eE+-_ x:#\"'\t\n,[]{}\xc3\x80") {
				edits = append(edits, w[:i]+string(c)+w[i:])
				if i < len(w) {
					edits = append(edits, w[:i]+string(c)+w[i+1:], w[:i]+w[i+1:])
				}
			}
		}
	}
	for _, e := range edits {
		check("edit", []byte(e))
		check("edit", []byte("n: "+e))
		check("edit", []byte("l: ["+e+", x]\n"))
	}
	rng := rand.New(rand.NewPCG(15, 1))
	alphabet := []byte("0123456789.eE+-_ :,#\"'[]{}\t\r\nax\x80\xff")
	for n := 0; n < 200000; n++ {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		check("random", b)
	}
	for n := 0; n < 2000; n++ {
		b := make([]byte, rng.IntN(64))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		check("random bytes", b)
	}
}

// decodeStrictFull is DecodeStrict as it was before it skipped the node
// tree for documents without a float word or a tag.
func decodeStrictFull(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 {
		return nil
	}
	var errs []string
	fractionalInts(root.Content[0], reflect.TypeOf(v), &errs, 0)
	if len(errs) > 0 {
		return &yaml.TypeError{Errors: errs}
	}
	return nil
}

// TestDecodeStrictSame: DecodeStrict decodes and errs as it did when it
// always walked the node tree, for integer fields given every spelling of
// a number (floats, tags, quoted and escaped, anchors and merges, hex,
// infinities), on the repository's campaigns, and into a page's front
// matter's shape (an integer weight).
func TestDecodeStrictSame(t *testing.T) {
	type inner struct {
		N int     `yaml:"n"`
		F float64 `yaml:"f"`
	}
	type doc struct {
		Weight int            `yaml:"weight"`
		Title  string         `yaml:"title"`
		List   []int          `yaml:"list"`
		Map    map[string]int `yaml:"map"`
		In     inner          `yaml:"in"`
		Any    any            `yaml:"any"`
	}
	check := func(in string) {
		t.Helper()
		var got, want doc
		gerr := DecodeStrict([]byte(in), &got)
		werr := decodeStrictFull([]byte(in), &want)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", want) { // NaN ≠ NaN for DeepEqual
			t.Errorf("DecodeStrict(%q) = %+v, %v; the full walk gives %+v, %v", in, got, gerr, want, werr)
		}
		var gc, wc schema.Campaign
		gerr = DecodeStrict([]byte(in), &gc)
		werr = decodeStrictFull([]byte(in), &wc)
		if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(gc, wc) {
			t.Errorf("DecodeStrict(%q) into a campaign: %v; the full walk: %v", in, gerr, werr)
		}
	}
	values := []string{"1", "1.5", "2.0", "1_0.5", ".5", "1e3", "1.5e-1", "-1.5", `"1.5"`, `'1.5'`, `!!float 1.5`, `!!float "1.5"`,
		`!!float "1\x2e5"`, `!!float '1.5'`, `!!float 2`, `!!int 3`, `!!float 0x1.8p0`, `!<tag:yaml.org,2002:float> "2.5"`, `.inf`, `-.inf`,
		`.nan`, `0x10`, `0o17`, `1_000`, `&a 2.5`, `"x"`, `~`, `null`, `|\n  1.5`, `>-\n  2.5`, `"\x31"`}
	for _, v := range values {
		check("weight: " + v + "\ntitle: t\n")
		check("title: t\nlist: [1, " + v + "]\n")
		check("map: {a: " + v + "}\n")
		check("in: {n: " + v + ", f: " + v + "}\n")
		check("any: " + v + "\nweight: 2\n")
		check("in: &x {n: " + v + "}\nany: *x\n")
		check("any: &x {n: " + v + "}\nin: {<<: *x}\n")
		check("%TAG !! tag:yaml.org,2002:\n---\nweight: !!float \"2.5\"\n")
		check("weight: !f \"2.5\"\n")
	}
	// yaml.v3's other line breaks end a plain scalar too: a fraction
	// right after one is a word of its own (it was taken for part of the
	// word before, the node tree was skipped and the value truncated).
	for _, br := range []string{"\u0085", "\u2028", "\u2029"} {
		check("{weight:" + br + "2.5}")
		check("{list: [1," + br + "2.5]}")
		check("{title: é,weight:" + br + "2.5}")
	}
	files, _ := filepath.Glob("../../../content/*/*/campaign.yaml")
	more, _ := filepath.Glob("../../../content/*/*/*.md")
	files = append(files, more...)
	if len(files) < 5 {
		t.Fatalf("only %d files", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if fm, _, ok := bytes.Cut(bytes.TrimPrefix(data, []byte("---\n")), []byte("\n---\n")); ok && bytes.HasPrefix(data, []byte("---\n")) {
			data = fm
		}
		check(string(data))
	}
}

// TestDecodeStrictUnicodeBreaks: a fraction in an integer field after one
// of the line breaks yaml.v3 knows besides \n and \r (NEL, U+2028,
// U+2029) is refused, in a page's front matter (DecodeStrict) and in a
// campaign (Parse), like one after a newline. They were taken for part of
// a word, the word for no float, and the value was truncated into the
// field without an error.
func TestDecodeStrictUnicodeBreaks(t *testing.T) {
	for _, br := range []string{"\u0085", "\u2028", "\u2029"} {
		var fm struct {
			Weight int `yaml:"weight"`
		}
		in := "{weight:" + br + "2.5}"
		err := DecodeStrict([]byte(in), &fm)
		if err == nil || !strings.Contains(err.Error(), "cannot unmarshal !!float `2.5` into int") {
			t.Errorf("DecodeStrict(%q) = %v (weight %d); want the float refused", in, err, fm.Weight)
		}
		camp := "{id: c, profiles: [{id: p, num_prompts:" + br + "2.5}]}"
		_, err = Parse("c.yaml", []byte(camp))
		if err == nil || !strings.Contains(err.Error(), "cannot unmarshal !!float `2.5` into int") {
			t.Errorf("Parse(%q) = %v; want the float refused", camp, err)
		}
	}
}

// TestParseSuggestsAndSaysUnits: an unknown field names the key it most
// likely misspells; a type error of a field with a unit says the unit
// (slo.ttft_p99: 500ms is "a number of milliseconds").
func TestParseSuggestsAndSaysUnits(t *testing.T) {
	y := `id: x
model: {id: m}
slo: {ttft_p99: 500ms}
profiles:
  - {id: p, dataset: random, num_prompts: 1, concurency: [1, 2]}
  - {id: q, dataset: random, num_prompts: 1, input_lenght: 8}
steps:
  - {id: s, title: S, chosn: a, experiments: [{id: a, engine: mock, comand: x}]}
bogus_thing: 1
baseline: a
optimized: a
`
	_, err := Parse("c.yaml", []byte(y))
	if err == nil {
		t.Fatal("parsed")
	}
	for _, want := range []string{
		"c.yaml:3: slo.ttft_p99: cannot unmarshal !!str `500ms` into float64 (want a number of milliseconds, as slo: {ttft_p99: 500})",
		`c.yaml:5: profiles[0].concurency: unknown field "concurency" in a profile (did you mean concurrency?)`,
		`c.yaml:6: profiles[1].input_lenght: unknown field "input_lenght" in a profile (did you mean input_len?)`,
		`c.yaml:8: steps[0].chosn: unknown field "chosn" in a step (did you mean chosen?)`,
		`unknown field "comand" in an experiment (did you mean command?)`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	// A word near nothing gets no guess.
	if strings.Contains(err.Error(), `"bogus_thing" in the campaign (did you mean`) {
		t.Errorf("a guess for a word near no field:\n%v", err)
	}
	// A fraction for a count says what it wants once.
	_, err = Parse("c.yaml", []byte("id: x\nmodel: {id: m}\nprofiles:\n  - {id: p, dataset: random, num_prompts: 8.5}\n"))
	want := "c.yaml:4: profiles[0].num_prompts: cannot unmarshal !!float `8.5` into int (want an integer)"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Count(err.Error(), "(want") != 1 {
		t.Errorf("num_prompts: 8.5: %v\nwant %q, one (want …)", err, want)
	}
}
