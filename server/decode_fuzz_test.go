package server

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/api"
)

// FuzzRequestDecoders feeds arbitrary bodies to every REST request
// decoder. None may panic; each either decodes or answers a 40000 whose
// message says what is wrong with the JSON; a decoded /ksql request
// encodes and decodes back to the same statements. Seeds are in
// testdata/fuzz/FuzzRequestDecoders; `make test` runs it for a few
// seconds.
func FuzzRequestDecoders(f *testing.F) {
	for _, seed := range []string{
		`{"ksql":"SHOW STREAMS;","streamsProperties":{"auto.offset.reset":"earliest","n":1e400}}`,
		`{"sql":"SELECT * FROM s EMIT CHANGES;","properties":{},"sessionVariables":{"a":1}}`,
		`{"queryId":"transient_S_1"}`,
		"{\"target\":\"S\"}\n{\"A\":1}\n",
		`{"ksql":"a"} trailing`,
		`{"ksql":null}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if req, bad := parseKsqlRequest(body); bad != nil {
			checkDecodeError(t, "ksql", bad)
		} else {
			checkKsqlRoundTrip(t, req)
		}
		if _, _, bad := parseQueryStreamArgs(body); bad != nil {
			checkDecodeError(t, "query-stream", bad)
		}
		if _, bad := parseCloseQuery(body); bad != nil {
			checkDecodeError(t, "close-query", bad)
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if _, bad := decodeInsertsArgs(dec); bad != nil {
			checkDecodeError(t, "inserts-stream", bad)
		}
	})
}

func checkDecodeError(t *testing.T, endpoint string, bad *api.ErrorMessage) {
	t.Helper()
	if bad.ErrorCode != api.CodeBadRequest || !strings.HasPrefix(bad.Message, "Invalid JSON in request") {
		t.Fatalf("%s decoder answered %d %q", endpoint, bad.ErrorCode, bad.Message)
	}
}

func checkKsqlRoundTrip(t *testing.T, req *api.KsqlRequest) {
	t.Helper()
	again, err := json.Marshal(req)
	if err != nil {
		return // a json.Number property that does not re-encode is no decoder bug
	}
	back, bad := parseKsqlRequest(again)
	if bad != nil || back.Ksql != req.Ksql {
		t.Fatalf("round trip of %s: %v, ksql %q", again, bad, back.Ksql)
	}
}
