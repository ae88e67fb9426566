package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/runtime/insert"
	"github.com/sqlstream/sqlstream/runtime/proclog"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/expr"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// insertsDisabled is ksqlDB's answer to INSERT INTO … VALUES and
// /inserts-stream when ksql.insert.into.values.enabled is false.
const insertsDisabled = "The server has disabled INSERT INTO ... VALUES functionality. " +
	"To enable it, restart your ksqlDB server with '" + props.InsertValues + "'=true"

// insertValues runs INSERT INTO … VALUES: the values are evaluated,
// coerced to the column types, serialized with the source's formats and
// produced to its topic (partitioned by key like any Kafka producer).
func (e *Engine) insertValues(ctx context.Context, st *ast.InsertValues, s *session) error {
	if !s.cfg.InsertValues {
		return sqlerr.New(sqlerr.Unsupported, st.P, "%s", insertsDisabled)
	}
	e.mu.Lock()
	src, ok := e.cat.Get(st.Target)
	e.mu.Unlock()
	if !ok {
		return sqlerr.New(sqlerr.Unknown, st.P, "Cannot insert values into an unknown stream/table: %s", st.Target)
	}
	if src.ReadOnly || src.Name == proclog.Stream {
		return sqlerr.New(sqlerr.Semantic, st.P, "Cannot insert values into read-only %s: %s", strings.ToLower(src.Kind.String()), src.Name)
	}
	scope := expr.SchemaScope(&types.Schema{}, nil, false)
	row, ts, err := insert.Values(src, st, func(x ast.Expr) (any, *types.Type, error) { return e.constant(x, scope) }, nowMillis())
	if err != nil {
		return err
	}
	rec, err := insert.Encode(src, row, ts)
	if err != nil {
		return err
	}
	return e.cluster.Produce(ctx, rec)
}

func (e *Engine) constant(x ast.Expr, scope expr.Scope) (any, *types.Type, error) {
	c, err := expr.Compile(x, scope, e.reg)
	if err != nil {
		return nil, nil, err
	}
	v, err := c.Eval(&types.Row{})
	if err != nil {
		return nil, nil, sqlerr.New(sqlerr.Type, x.Position(), "%v", err)
	}
	return v, c.Type(), nil
}

// Insert writes one /inserts-stream row (JSON-decoded with UseNumber) to
// a stream; column names match case-insensitively.
func (e *Engine) Insert(ctx context.Context, target string, row map[string]any) error {
	if !e.cfg.InsertValues {
		return errors.New(insertsDisabled)
	}
	e.mu.Lock()
	src, ok := e.cat.Get(target)
	if !ok {
		src, ok = e.cat.Get(strings.ToUpper(target))
	}
	e.mu.Unlock()
	if !ok {
		return fmt.Errorf("Cannot insert values into an unknown stream: %s", target)
	}
	if src.ReadOnly || src.Name == proclog.Stream {
		return fmt.Errorf("Cannot insert values into read-only source: %s", src.Name)
	}
	vals, ts, err := insert.JSONRow(src, row, nowMillis())
	if err != nil {
		return err
	}
	rec, err := insert.Encode(src, vals, ts)
	if err != nil {
		return err
	}
	return e.cluster.Produce(ctx, rec)
}

func nowMillis() int64 { return time.Now().UnixMilli() }

// ProcessingLogStream is the stream over the processing-log topic (package
// runtime/proclog), which INSERT never writes.
const ProcessingLogStream = proclog.Stream

// ProcessingLogTopic is the topic processing-log entries go to
// (<service id>ksql_processing_log).
func (e *Engine) ProcessingLogTopic() string { return e.procLog.Topic() }
