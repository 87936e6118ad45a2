package roundload

import (
	"reflect"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/perflab/perflab/collect/schema"
)

// olderResult is a result of an older round as the history reads it:
// its per-request records and raw output, most of a result file's bytes,
// are checked but not kept (checkedRequests, checkedString); the other
// fields are schema.Result's (inlined; the fields here hide its fields of
// the same names).
type olderResult struct {
	schema.Result `json:",inline"`
	Requests      checkedRequests `json:"requests,omitempty"`
	RawOutput     checkedString   `json:"raw_output,omitempty"`
}

// checkedRequests are a result's requests checked as strictly as
// schema.Unmarshal decodes them, against the shape of []schema.Request
// (shape.go: its fields and their types; a member Request does not
// have is an error), and not kept. Reading them past as any JSON value
// (what this replaces) took a requests array holding a string where a
// number belongs, which the latest round's decode refuses, so that an
// older round's result was shown without the error a newer one gave.
type checkedRequests struct{}

var requestsShape = shapeOf(reflect.TypeFor[[]schema.Request]())

func (checkedRequests) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return requestsShape.check(dec)
}

// checkedString is a string (or null) checked and not kept.
type checkedString struct{}

var stringShape = shapeOf(reflect.TypeFor[string]())

func (checkedString) UnmarshalJSONFrom(dec *jsontext.Decoder) error { return stringShape.check(dec) }

// decode is schema.Unmarshal for a result of an older round, less its
// Requests and RawOutput, in one pass of json v2 that does not keep the
// requests. What it declines (a version this perflab does not read, any
// error: a field of the wrong type in a request too) goes to
// schema.Unmarshal, which decides as for the latest round and words the
// error (file, line, column and field).
func decode(name string, data []byte) (*schema.Result, error) {
	var o olderResult
	if jsonv2.Unmarshal(data, &o, jsonv2.RejectUnknownMembers(true)) == nil && o.SchemaVersion >= 1 && o.SchemaVersion <= schema.Version {
		return &o.Result, nil
	}
	res, err := schema.Unmarshal(name, data)
	if err != nil {
		return nil, err
	}
	res.Requests, res.RawOutput = nil, ""
	return res, nil
}
