package wire

import (
	"bytes"
	"html/template"
	"reflect"
	"testing"
	"testing/quick"
)

type inner struct {
	Sum  [32]byte
	Size int64
	Ok   bool
}

type rich struct {
	Title   string
	Body    template.HTML
	Data    []byte
	N       int
	U       uint64
	F       float64
	Inner   inner
	Ptr     *inner
	List    []inner
	Strings []string
	Map     map[string]inner
	IntMap  map[int]string
	Arr     [3]uint16
}

// TestRoundTrip: every field of a value of every kind comes back, for
// values quick generates, and equal values encode alike (map order).
func TestRoundTrip(t *testing.T) {
	Version(rich{})
	f := func(v rich) bool {
		b := Append(nil, v)
		if !bytes.Equal(b, Append(nil, v)) {
			t.Error("two encodings of one value differ")
		}
		var got rich
		if err := Decode(b, &got); err != nil {
			t.Error(err)
			return false
		}
		// nil and empty slices and maps encode alike.
		norm := func(r *rich) {
			if len(r.Data) == 0 {
				r.Data = nil
			}
			if len(r.List) == 0 {
				r.List = nil
			}
			if len(r.Strings) == 0 {
				r.Strings = nil
			}
			if len(r.Map) == 0 {
				r.Map = nil
			}
			if len(r.IntMap) == 0 {
				r.IntMap = nil
			}
		}
		norm(&v)
		norm(&got)
		if !reflect.DeepEqual(v, got) {
			t.Errorf("got %+v, want %+v", got, v)
			return false
		}
		return true
	}
	if err := quick.Check(f, &quick.Config{MaxCount: 200}); err != nil {
		t.Fatal(err)
	}
}

// TestMalformed: truncated or extended bytes are errors, never values.
func TestMalformed(t *testing.T) {
	v := rich{Title: "t", Data: []byte("data"), List: []inner{{Size: 3}}, Map: map[string]inner{"a": {Ok: true}}}
	b := Append(nil, v)
	for n := 0; n < len(b); n++ {
		var got rich
		if err := Decode(b[:n], &got); err == nil {
			t.Errorf("%d of %d bytes decoded", n, len(b))
		}
	}
	var got rich
	if err := Decode(append(b, 0), &got); err == nil {
		t.Error("a byte too many decoded")
	}
}

// TestVersionFollowsType: adding a field, renaming one or changing its
// type gives another version; the same type gives the same.
func TestVersionFollowsType(t *testing.T) {
	type entry struct {
		Title string
		N     int
	}
	base := Version(entry{})
	if Version(entry{}) != base {
		t.Fatal("version of one type changed")
	}
	variants := []any{
		func() any {
			type entry struct {
				Title string
				N     int
				Extra bool
			}
			return entry{}
		}(),
		func() any {
			type entry struct {
				Name string
				N    int
			}
			return entry{}
		}(),
		func() any {
			type entry struct {
				Title string
				N     int64
			}
			return entry{}
		}(),
		func() any {
			type entry struct {
				Title string
				N     int
				In    inner
			}
			return entry{}
		}(),
	}
	for i, v := range variants {
		if Version(v) == base {
			t.Errorf("variant %d (%T) has the base version", i, v)
		}
	}
}

// TestRefusesHidden: a struct with an unexported field cannot be
// encoded (it would lose the field): Version panics.
func TestRefusesHidden(t *testing.T) {
	type hidden struct {
		Title string
		n     int
	}
	defer func() {
		if recover() == nil {
			t.Error("Version accepted a struct with an unexported field")
		}
	}()
	Version(hidden{n: 1})
}

// TestSkipped: a field tagged wire:"-" is neither encoded nor in the
// version, and may be unexported.
func TestSkipped(t *testing.T) {
	type withIndex struct {
		Title string
		index map[string]int `wire:"-"`
	}
	type plain struct {
		Title string
	}
	v := withIndex{Title: "t", index: map[string]int{"a": 1}}
	var got withIndex
	if err := Decode(Append(nil, v), &got); err != nil || got.Title != "t" || got.index != nil {
		t.Errorf("got %+v, %v", got, err)
	}
	if len(Append(nil, v)) != len(Append(nil, plain{Title: "t"})) {
		t.Error("the skipped field was encoded")
	}
}
