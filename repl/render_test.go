package repl

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/sqlstream/sqlstream/api"
)

// TestRender pins the CLI layouts, from api entities to text.
//
//	entities [width=N] [json]   input: a /ksql response body
//	error [status=N]     input: an error response body
//	query [width=N] [wrap=off] [colwidth=N] [json]   input: a /query response body
//	cells                input: one JSON value per line
func TestRender(t *testing.T) {
	datadriven.RunTest(t, "testdata/render", func(t *testing.T, d *datadriven.TestData) string {
		var out, errOut bytes.Buffer
		s := &session{con: testConsole(t, d, &out, &errOut)}
		switch d.Cmd {
		case "entities":
			ents, err := api.DecodeEntities([]byte(d.Input))
			if err != nil {
				t.Fatal(err)
			}
			s.con.printEntities(ents)
		case "error":
			status := 400
			d.MaybeScanArgs(t, "status", &status)
			s.printFailure(api.DecodeError(status, []byte(d.Input)))
		case "query":
			s.streamRows(t.Context(), strings.NewReader(d.Input))
		case "cells":
			for _, line := range strings.Split(d.Input, "\n") {
				out.WriteString(cellText(json.RawMessage(line)) + "\n")
			}
		default:
			t.Fatalf("unknown command %s", d.Cmd)
		}
		return joinOutput(out.String(), errOut.String())
	})
}

func testConsole(t *testing.T, d *datadriven.TestData, out, errOut *bytes.Buffer) *console {
	c := &console{out: out, errOut: errOut, width: 120, wrap: true, clipTables: true}
	d.MaybeScanArgs(t, "width", &c.width)
	d.MaybeScanArgs(t, "colwidth", &c.colWidth)
	c.jsonOutput = d.HasArg("json")
	if d.HasArg("wrap") {
		var wrap string
		d.ScanArgs(t, "wrap", &wrap)
		c.wrap = wrap == "on"
	}
	return c
}

// joinOutput shows stdout, then stderr lines prefixed "stderr: ", with
// trailing spaces made visible as "·" at the end of a line.
func joinOutput(out, errOut string) string {
	var b strings.Builder
	b.WriteString(markTrailingSpaces(out))
	for _, l := range strings.Split(strings.TrimSuffix(errOut, "\n"), "\n") {
		if errOut != "" {
			b.WriteString("stderr: " + l + "\n")
		}
	}
	return b.String()
}

func markTrailingSpaces(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasSuffix(l, " ") {
			lines[i] = l + "·"
		}
	}
	return strings.Join(lines, "\n")
}
