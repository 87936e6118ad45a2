package roundload

import (
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/perflab/perflab/collect/schema"
)

// olderResult is a result of an older round as the history reads it:
// its per-request records and raw output, most of a result file's bytes,
// are passed over (their JSON checked for syntax, not decoded into
// values); the other fields are schema.Result's (inlined; the fields
// here hide its fields of the same names).
type olderResult struct {
	schema.Result `json:",inline"`
	Requests      passedOver `json:"requests,omitempty"`
	RawOutput     passedOver `json:"raw_output,omitempty"`
}

// passedOver is a JSON value read past without being decoded.
type passedOver struct{}

func (passedOver) UnmarshalJSONFrom(dec *jsontext.Decoder) error { return dec.SkipValue() }

// decode is schema.Unmarshal for a result of an older round, less its
// Requests and RawOutput, in one pass of json v2 that does not decode
// the requests (half the time of a full decode on the demo's files).
// What it declines (a version this perflab does not read, any error)
// goes to schema.Unmarshal, which decides as before and words the error.
// A requests array of the wrong shape inside valid JSON is not an error
// here: an older round shows its summaries only.
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
