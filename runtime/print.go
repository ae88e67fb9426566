package runtime

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// startPrint runs PRINT topic: raw records rendered as ksqlDB prints them,
// with the key and value formats found by the registry (wire-format
// bytes) or guessed from the bytes.
func (e *Engine) startPrint(ctx context.Context, st *ast.Print, s *session) (api.RowStream, error) {
	_, exists, err := e.cluster.Partitions(ctx, st.Topic)
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, sqlerr.New(sqlerr.Kafka, st.P, "Could not find topic '%s', or the KSQL user does not have permissions to list the topic. Topic names are case-sensitive.", st.Topic)
	}
	id := fmt.Sprintf("print_%s_%d", st.Topic, time.Now().UnixNano())
	t, err := newTransient(e, id, st.Text(), nil, nil, s.props, st.Limit)
	if err != nil {
		return nil, err
	}
	t.header.Print = true
	e.tmu.Lock()
	e.transients[id] = t
	e.tmu.Unlock()
	rctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	from := st.FromBeginning || t.cfg.FromEarliest
	go func() {
		defer close(done)
		n := 0
		err := e.cluster.Read(rctx, st.Topic, from, false, func(r *physical.InRecord) bool {
			n++
			if st.Interval > 1 && (n-1)%st.Interval != 0 {
				return true
			}
			line := e.printLine(rctx, r)
			if n == 1 {
				line = e.printHeader(rctx, r) + line
			}
			return t.Row(&types.Row{Values: []any{line}})
		})
		if err == context.Canceled {
			err = nil
		}
		t.finish(err)
	}()
	t.runner = exec.RunnerFunc(func() error { cancel(); <-done; return nil })
	return &printStream{t}, nil
}

// printStream turns the transient's one-column rows into PRINT lines.
type printStream struct{ *transient }

func (p *printStream) Next(ctx context.Context) (api.Row, error) {
	r, err := p.transient.Next(ctx)
	if err != nil {
		return r, err
	}
	return api.Row{Line: r.Values[0].(string)}, nil
}

func (p *printStream) FinalMessage() string { return "" }

// printHeader is ksqlDB's "Key format: … / Value format: …" lines, put
// in front of the first record PRINT shows (so LIMIT still counts
// records): the formats the first record's bytes could be in.
func (e *Engine) printHeader(ctx context.Context, r *physical.InRecord) string {
	return "Key format: " + e.printFormatOf(ctx, r.Key, true) + "\nValue format: " + e.printFormatOf(ctx, r.Value, false) + "\n"
}

// printFormatOf is printFormat with the registry asked first, as
// ksqlDB's PRINT tries its AVRO, PROTOBUF and JSON_SR deserializers:
// bytes in the wire format whose schema id the registry serves are in
// that schema's format (the bare-bytes guesses that still fit follow).
func (e *Engine) printFormatOf(ctx context.Context, b []byte, key bool) string {
	guess := printFormat(b, key)
	known := e.registryFormat(ctx, b)
	switch {
	case known == "":
		return guess
	case guess == "KAFKA_BYTES":
		return known
	}
	return known + " or " + guess
}

// registryFormat names the registry format of wire-format bytes ("" when
// they are not in the wire format, no registry is configured or it does
// not serve their schema id).
func (e *Engine) registryFormat(ctx context.Context, b []byte) string {
	reg := e.planner.Defaults.SchemaRegistry
	id, _, ok := format.SplitWireHeader(b)
	if !ok || reg == nil {
		return ""
	}
	rs, err := reg.SchemaByID(ctx, id)
	if err != nil {
		return ""
	}
	switch rs.Type {
	case format.AvroSchema:
		return "AVRO"
	case format.ProtobufSchema:
		return "PROTOBUF"
	case format.JSONSchema:
		return "JSON_SR"
	}
	return ""
}

// printFormat names the formats bytes could be, as renderBytes shows
// them, in ksqlDB's words.
func printFormat(b []byte, key bool) string {
	switch {
	case len(b) == 0:
		return "¯\\_(ツ)_/¯ - no data processed"
	case utf8.Valid(b) && printable(b):
		if json.Valid(b) {
			return "JSON or KAFKA_STRING"
		}
		return "KAFKA_STRING"
	case key && len(b) == 4:
		return "KAFKA_INT"
	case key && len(b) == 8:
		return "KAFKA_BIGINT or KAFKA_DOUBLE"
	}
	return "KAFKA_BYTES"
}

func (e *Engine) printLine(ctx context.Context, r *physical.InRecord) string {
	ts := time.UnixMilli(r.Timestamp).UTC().Format("2006/01/02 15:04:05.000 Z")
	return fmt.Sprintf("rowtime: %s, key: %s, value: %s, partition: %d", ts, e.renderRecord(ctx, r.Key, true), e.renderRecord(ctx, r.Value, false), r.Partition)
}

// renderRecord renders bytes in the schema registry's wire format by
// their schema (when a registry is configured and knows the id), others
// as renderBytes guesses.
func (e *Engine) renderRecord(ctx context.Context, b []byte, key bool) string {
	if s, ok := format.RenderRegistryRecord(ctx, e.planner.Defaults.SchemaRegistry, b); ok {
		return s
	}
	return renderBytes(b, key)
}

// renderBytes guesses how to show raw bytes: JSON or text as is, 4- and
// 8-byte keys as big-endian integers when they are not text, else hex.
func renderBytes(b []byte, key bool) string {
	switch {
	case b == nil:
		return "<null>"
	case utf8.Valid(b) && printable(b):
		if json.Valid(b) {
			return string(b)
		}
		return string(b)
	case key && len(b) == 4:
		return strconv.FormatInt(int64(int32(binary.BigEndian.Uint32(b))), 10)
	case key && len(b) == 8:
		return strconv.FormatInt(int64(binary.BigEndian.Uint64(b)), 10)
	}
	return "0x" + hex.EncodeToString(b)
}

func printable(b []byte) bool {
	for _, r := range string(b) {
		if r < 0x20 && r != '\n' && r != '\t' && r != '\r' {
			return false
		}
	}
	return true
}

// parseWithFunction parses a timestamp string through the registry's
// PARSE_TIMESTAMP, so TIMESTAMP_FORMAT behaves exactly like the function.
func parseWithFunction(e *Engine, value, pattern string) (int64, error) {
	fn, err := e.reg.Resolve("PARSE_TIMESTAMP", []*types.Type{types.StringType, types.StringType})
	if err != nil {
		return 0, err
	}
	v, err := fn.Fn([]any{value, pattern})
	if err != nil {
		return 0, err
	}
	switch t := v.(type) {
	case types.Timestamp:
		return int64(t), nil
	case int64:
		return t, nil
	}
	return 0, fmt.Errorf("cannot parse timestamp %q with format %q", value, pattern)
}
