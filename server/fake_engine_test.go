package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/cockroachdb/apd/v3"
	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// fakeEngine answers with canned results chosen by the statement text. It
// tests HTTP framing only; the real engine is tested end to end elsewhere.
type fakeEngine struct {
	mu       sync.Mutex
	inserted []string
	pushOpen chan struct{} // receives when a push stream starts
	pushDone chan string   // receives the id when a push stream is closed
}

func newFakeEngine() *fakeEngine {
	return &fakeEngine{pushOpen: make(chan struct{}, 8), pushDone: make(chan string, 8)}
}

var _ Engine = (*fakeEngine)(nil)

func (f *fakeEngine) Execute(_ context.Context, req api.KsqlRequest) ([]api.Entity, error) {
	switch strings.TrimSpace(req.Ksql) {
	case "SHOW STREAMS;":
		return []api.Entity{&api.StreamsList{StatementText: req.Ksql, Streams: []api.SourceInfo{
			{Type: api.SourceStream, Name: "PAGEVIEWS", Topic: "pageviews", KeyFormat: "KAFKA", ValueFormat: "JSON"},
		}}}, nil
	case "SET 'a'='b';":
		return nil, nil
	case "SHOW PROPS;":
		return []api.Entity{&api.PropertiesList{StatementText: req.Ksql, Properties: propsOf(req.StreamsProperties)}}, nil
	case "SHOW STREAMS; DROP STREAM X;":
		return nil, &api.StatementError{ErrorCode: api.CodeBadStatement, Message: "Stream X does not exist.",
			StatementText: "DROP STREAM X;", Entities: []api.Entity{&api.StreamsList{StatementText: "SHOW STREAMS;"}}}
	case "SELEC 1;":
		return nil, &sqlerr.Error{Code: sqlerr.Syntax, Pos: ast.Pos{Line: 1, Col: 1}, Near: "SELEC", Msg: "mismatched input"}
	case "SHOW STREAMS; select * from pageviews emit changes;":
		return nil, queryEndpointError("select * from pageviews emit changes;")
	case "/* c */ PRINT 'pageviews';":
		return nil, queryEndpointError("PRINT 'pageviews';")
	case "BOOM;":
		return nil, errors.New("disk on fire")
	case "PANIC;":
		panic("engine bug")
	}
	return nil, &api.StatementError{ErrorCode: api.CodeBadStatement, Message: "unexpected " + req.Ksql, StatementText: req.Ksql}
}

// queryEndpointError is the engine's 40002 for a SELECT or PRINT sent to
// /ksql.
func queryEndpointError(stmt string) error {
	return &api.StatementError{ErrorCode: api.CodeQueryEndpoint, StatementText: stmt, Entities: []api.Entity{},
		Message: "The following statement types should be issued to the websocket endpoint '/query':\n\t* PRINT\n\t* SELECT"}
}

func propsOf(m map[string]any) []api.Property {
	var out []api.Property
	for k, v := range m {
		out = append(out, api.Property{Name: k, Scope: "KSQL", Value: ptr(fmt.Sprintf("%v (%T)", v, v)), Level: "QUERY"})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func pageviewColumns(withKey bool) []types.Column {
	ns := types.ValueNS
	if withKey {
		ns = types.KeyNS
	}
	return []types.Column{
		{Name: "USERID", Type: types.StringType, NS: ns},
		{Name: "VIEWTIME", Type: types.BigintType},
		{Name: "PRICE", Type: types.DecimalOf(4, 2)},
		{Name: "TS", Type: types.TimestampType},
		{Name: "TAGS", Type: types.ArrayOf(types.StringType)},
	}
}

func dec(s string) *apd.Decimal {
	d, _, err := apd.NewFromString(s)
	if err != nil {
		panic(err)
	}
	return d
}

func (f *fakeEngine) Query(ctx context.Context, sql string, props map[string]any, vars map[string]string) (api.RowStream, error) {
	row1 := api.Row{Values: []any{"USER_1", int64(1), dec("10.50"), types.Timestamp(943959600000), []any{"a<b"}}}
	row2 := api.Row{Values: []any{"USER_2", int64(2), dec("0.01"), types.Timestamp(0), []any{}}}
	switch strings.TrimSpace(sql) {
	case "SELECT * FROM PAGEVIEWS EMIT CHANGES LIMIT 2;":
		return &cannedStream{header: api.QueryHeader{QueryID: "transient_PAGEVIEWS_1", Columns: pageviewColumns(false)},
			rows: []api.Row{row1, row2}, final: api.FinalLimitReached}, nil
	case "SELECT * FROM PAGEVIEWS_TABLE EMIT CHANGES LIMIT 2;":
		tomb := api.Row{Values: []any{"USER_1", nil, nil, nil, nil}, Tombstone: true}
		return &cannedStream{header: api.QueryHeader{QueryID: "transient_PAGEVIEWS_TABLE_2", Columns: pageviewColumns(false)},
			rows: []api.Row{row1, tomb}, final: api.FinalLimitReached}, nil
	case "SELECT * FROM PAGEVIEWS_TABLE WHERE USERID='USER_1';":
		return &cannedStream{header: api.QueryHeader{QueryID: "query_3", Columns: pageviewColumns(true), Pull: true},
			rows: []api.Row{row1}}, nil
	case "SELECT * FROM EMPTY_TABLE;":
		return &cannedStream{header: api.QueryHeader{QueryID: "query_4", Columns: pageviewColumns(true), Pull: true}}, nil
	case "SELECT * FROM BROKEN EMIT CHANGES;":
		return &cannedStream{header: api.QueryHeader{QueryID: "transient_BROKEN_5", Columns: pageviewColumns(false)},
			rows: []api.Row{row1}, err: &api.ErrorMessage{ErrorCode: 50000, Message: "deserialization failed"}}, nil
	case "PRINT 'pageviews' LIMIT 2;":
		return &cannedStream{header: api.QueryHeader{QueryID: "print_6", Print: true}, rows: []api.Row{
			{Line: "rowtime: 2022/12/02 17:22:02.556 Z, key: 18, value: {\"a\":1}, partition: 0"},
			{Line: "rowtime: 2022/12/02 17:22:03.000 Z, key: 19, value: {\"a\":2}, partition: 0"},
		}}, nil
	case "SELECT * FROM FIREHOSE EMIT CHANGES;":
		return &firehoseStream{f: f, header: api.QueryHeader{QueryID: "transient_FIREHOSE_8", Columns: pageviewColumns(false)},
			row: row1}, nil
	case "SELECT * FROM PAGEVIEWS EMIT CHANGES;":
		f.pushOpen <- struct{}{}
		return &blockingStream{f: f, header: api.QueryHeader{QueryID: "transient_PAGEVIEWS_7", Columns: pageviewColumns(false)},
			first: row1}, nil
	}
	return nil, &sqlerr.Error{Code: sqlerr.Unknown, Pos: ast.Pos{Line: 1, Col: 15}, Msg: "unknown source in " + sql}
}

func (f *fakeEngine) CloseQuery(id string) error {
	if id == "transient_PAGEVIEWS_7" {
		return nil
	}
	return fmt.Errorf("No query with id %s", id)
}

func (f *fakeEngine) Insert(_ context.Context, target string, row map[string]any) error {
	if _, bad := row["FAIL"]; bad {
		return &api.ErrorMessage{ErrorCode: api.CodeBadRequest, Message: "Can't insert into " + target}
	}
	keys := make([]string, 0, len(row))
	for k, v := range row {
		keys = append(keys, fmt.Sprintf("%s=%v(%T)", k, v, v))
	}
	sort.Strings(keys)
	f.mu.Lock()
	f.inserted = append(f.inserted, target+": "+strings.Join(keys, " "))
	f.mu.Unlock()
	return nil
}

func (f *fakeEngine) Info() api.ServerInfo {
	return api.ServerInfo{Version: "0.29.0", KafkaClusterID: "j3tOi6E_RtO_TMH3gBmK7A", KsqlServiceID: "default_", ServerStatus: "RUNNING"}
}

func (f *fakeEngine) Health(context.Context) api.HealthCheckResponse {
	ok := api.HealthCheck{IsHealthy: true}
	return api.HealthCheckResponse{IsHealthy: true, ServerState: api.ServerReady,
		Details: api.HealthDetails{Metastore: ok, Kafka: ok, CommandRunner: ok}}
}

func (f *fakeEngine) CommandStatuses() map[string]string {
	return map[string]string{"stream/PAGEVIEWS/create": api.StatusSuccess}
}

// cannedStream returns fixed rows, then err or io.EOF.
type cannedStream struct {
	header api.QueryHeader
	rows   []api.Row
	final  string
	err    error
	next   int
}

func (c *cannedStream) Header() api.QueryHeader { return c.header }
func (c *cannedStream) FinalMessage() string    { return c.final }
func (c *cannedStream) Close() error            { return nil }

func (c *cannedStream) Next(context.Context) (api.Row, error) {
	if c.next < len(c.rows) {
		c.next++
		return c.rows[c.next-1], nil
	}
	if c.err != nil {
		return api.Row{}, c.err
	}
	return api.Row{}, io.EOF
}

// blockingStream returns one row and then blocks until ctx is done, like
// an unbounded push query with no new input.
type blockingStream struct {
	f      *fakeEngine
	header api.QueryHeader
	first  api.Row
	sent   bool
}

func (b *blockingStream) Header() api.QueryHeader { return b.header }
func (b *blockingStream) FinalMessage() string    { return "" }

func (b *blockingStream) Next(ctx context.Context) (api.Row, error) {
	if !b.sent {
		b.sent = true
		return b.first, nil
	}
	<-ctx.Done()
	return api.Row{}, ctx.Err()
}

func (b *blockingStream) Close() error {
	b.f.pushDone <- b.header.QueryID
	return nil
}

// firehoseStream returns the same row forever, like a push query on a busy
// topic.
type firehoseStream struct {
	f      *fakeEngine
	header api.QueryHeader
	row    api.Row
}

func (h *firehoseStream) Header() api.QueryHeader               { return h.header }
func (h *firehoseStream) FinalMessage() string                  { return "" }
func (h *firehoseStream) Next(context.Context) (api.Row, error) { return h.row, nil }

func (h *firehoseStream) Close() error {
	h.f.pushDone <- h.header.QueryID
	return nil
}

// ptr is a pointer to v.
func ptr[T any](v T) *T { return &v }
