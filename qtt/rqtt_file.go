package qtt

import (
	"bytes"
	"encoding/json"
	"os"
)

// restTest is one test of a REST query-validation (RQTT) file: a QTT test
// plus the REST responses expected per statement.
type restTest struct {
	Test
	// Responses holds one object per statement, keyed "admin", "query"
	// or "queryProto"; statements past the end are not checked.
	Responses []map[string]any `json:"responses"`
	// ExpectedError marks a negative test: some statement must fail.
	ExpectedError *ExpectedException `json:"expectedError"`
	// InputConditions: with waitForQueryHeader (or, in newer files,
	// waitForActivePushQuery) the inputs are produced once the first
	// query runs and its header is out, not before the queries.
	InputConditions *struct {
		WaitForQueryHeader     bool `json:"waitForQueryHeader"`
		WaitForActivePushQuery bool `json:"waitForActivePushQuery"`
	} `json:"inputConditions"`
}

// restVariant is one runnable expansion of a restTest.
type restVariant struct {
	*Variant
	Responses     []map[string]any
	WaitForHeader bool
}

// isRestFile reports whether src (a JSON test file with comments) is an
// RQTT file: one of its tests has "responses".
func isRestFile(src []byte) bool {
	var doc struct {
		Tests []struct {
			Responses json.RawMessage `json:"responses"`
		} `json:"tests"`
	}
	dec := json.NewDecoder(bytes.NewReader(StripComments(src)))
	if dec.Decode(&doc) != nil {
		return false
	}
	for _, t := range doc.Tests {
		if len(t.Responses) > 0 {
			return true
		}
	}
	return false
}

// readRestFile parses an RQTT file and expands its tests into variants
// (one per "format" entry, as QTT tests).
func readRestFile(path, name string) ([]*restVariant, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseRestFile(name, src)
}

func parseRestFile(name string, src []byte) ([]*restVariant, error) {
	var doc struct {
		Tests []restTest `json:"tests"`
	}
	if err := decodeStrict(name, src, &doc); err != nil {
		return nil, err
	}
	var out []*restVariant
	for i := range doc.Tests {
		out = append(out, expandRestTest(name, &doc.Tests[i])...)
	}
	return out, nil
}

func expandRestTest(file string, t *restTest) []*restVariant {
	if t.Test.ExpectedException == nil && t.ExpectedError != nil {
		t.Test.ExpectedException = t.ExpectedError
	}
	var out []*restVariant
	for _, v := range expandTest(file, &t.Test) {
		rv := &restVariant{Variant: v, Responses: t.Responses}
		if t.InputConditions != nil {
			rv.WaitForHeader = t.InputConditions.WaitForQueryHeader || t.InputConditions.WaitForActivePushQuery
		}
		if hasProtoResponses(t.Responses) {
			v.Hard = sortStrings(append(v.Hard, "PROTOBUF query responses"))
		}
		out = append(out, rv)
	}
	return out
}

func hasProtoResponses(rs []map[string]any) bool {
	for _, r := range rs {
		if _, ok := r["queryProto"]; ok {
			return true
		}
	}
	return false
}
