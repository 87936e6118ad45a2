package roundload

import (
	"fmt"

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

// checkedRequests are a result's requests decoded as strictly as
// schema.Unmarshal decodes them, each into one schema.Request reused
// (its type is the check: a field of the wrong type, or one Request does
// not have, is an error), and dropped. Reading them past as any JSON
// value (what it replaces) took a requests array holding a string where
// a number belongs, which the latest round's decode refuses, so that an
// older round's result was shown without the error a newer one gave.
type checkedRequests struct{}

func (checkedRequests) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() == 'n' {
		_, err := dec.ReadToken()
		return err
	}
	if k := dec.PeekKind(); k != '[' {
		// As schema.Result's []Request would say it; decode falls back to
		// schema.Unmarshal, which words the error.
		return fmt.Errorf("requests: JSON %v where an array belongs", k)
	}
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	// Every request into one Request, not reset: nothing of it is kept,
	// and what it held is reused (its event times' array, its pointed-to
	// ints), so the check allocates next to nothing. decode's options
	// (unknown members rejected) hold.
	var one schema.Request
	for dec.PeekKind() != ']' {
		if err := jsonv2.UnmarshalDecode(dec, &one); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken()
	return err
}

// checkedString is a string (or null) read past without being kept.
type checkedString struct{}

func (checkedString) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	v, err := dec.ReadValue()
	if err != nil {
		return err
	}
	if k := v.Kind(); k != '"' && k != 'n' {
		return fmt.Errorf("raw_output: JSON %v where a string belongs", k)
	}
	return nil
}

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
