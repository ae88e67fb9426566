package rest

import (
	"bytes"
	"encoding/json"

	"github.com/sqlstream/sqlstream/qtt"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// restTest is one test of a REST query-validation (RQTT) file: a QTT test
// plus the REST responses expected per statement.
type restTest struct {
	qtt.Test
	// Responses holds one object per statement, keyed "admin", "query"
	// or "queryProto"; statements past the end are not checked.
	Responses []map[string]any `json:"responses"`
	// ExpectedError marks a negative test: some statement must fail.
	ExpectedError *qtt.ExpectedException `json:"expectedError"`
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
	*qtt.Variant
	Responses     []map[string]any
	WaitForHeader bool
}

// Format is the RQTT file format, for qtt.Main: a JSON test file one of
// whose tests has "responses".
type Format struct{}

var _ qtt.Format = Format{}

// Name implements qtt.Format.
func (Format) Name() string { return "RQTT" }

// Detect implements qtt.Format.
func (Format) Detect(_ string, src []byte) bool { return isRestFile(src) }

// Parse implements qtt.Format: one job per variant.
func (Format) Parse(name, _ string, src []byte) ([]qtt.Job, error) {
	vs, err := parseRestFile(name, src)
	if err != nil {
		return nil, err
	}
	jobs := make([]qtt.Job, len(vs))
	for i, v := range vs {
		jobs[i] = v.job()
	}
	return jobs, nil
}

// isRestFile reports whether src (a JSON test file with comments) is an
// RQTT file: one of its tests has "responses".
func isRestFile(src []byte) bool {
	var doc struct {
		Tests []struct {
			Responses json.RawMessage `json:"responses"`
		} `json:"tests"`
	}
	dec := json.NewDecoder(bytes.NewReader(qtt.StripComments(src)))
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

// parseRestFile parses an RQTT file and expands its tests into variants
// (one per "format" entry, as QTT tests).
func parseRestFile(name string, src []byte) ([]*restVariant, error) {
	var doc struct {
		Tests []restTest `json:"tests"`
	}
	if err := qtt.DecodeStrict(name, src, &doc); err != nil {
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
	for _, v := range qtt.ExpandTest(file, &t.Test) {
		addInferredTopics(v)
		addServerConfig(v)
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

// serverConfig is what ksqlDB's RQTT harness (RestQueryTranslationTest)
// configures its server with, beyond the defaults, that sqlstream reads;
// a test's own properties win.
var serverConfig = map[string]string{
	props.PushV2: "true", // scalable push queries
}

func addServerConfig(v *qtt.Variant) {
	if v.Properties == nil {
		v.Properties = map[string]string{}
	}
	for k, val := range serverConfig {
		if _, set := v.Properties[k]; !set {
			v.Properties[k] = val
		}
	}
}

func hasProtoResponses(rs []map[string]any) bool {
	for _, r := range rs {
		if _, ok := r["queryProto"]; ok {
			return true
		}
	}
	return false
}
