package runtime

import (
	"context"
	"errors"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/global"
	"github.com/sqlstream/sqlstream/runtime/peer"
	"github.com/sqlstream/sqlstream/runtime/pull"
	"github.com/sqlstream/sqlstream/runtime/stmterr"
	"github.com/sqlstream/sqlstream/sql/ast"
)

// Query runs a SELECT (push or pull) or PRINT for /query and
// /query-stream and returns its row stream.
func (e *Engine) Query(ctx context.Context, sql string, props map[string]any, vars map[string]string) (api.RowStream, error) {
	return e.query(ctx, sql, props, vars, nil)
}

// PeerQuery runs a pull query a peer forwarded (its signature checked by
// the server): it reads only the given partitions of this server's own
// state and forwards nothing.
func (e *Engine) PeerQuery(ctx context.Context, sql string, props map[string]any, partitions string) (api.RowStream, error) {
	only, err := peer.ParsePartitions(partitions)
	if err != nil {
		return nil, &api.ErrorMessage{ErrorCode: api.CodeBadRequest, Message: err.Error()}
	}
	return e.query(ctx, sql, props, nil, only)
}

func (e *Engine) query(ctx context.Context, sql string, props map[string]any, vars map[string]string, only []int32) (api.RowStream, error) {
	s, err := e.newSession(props, vars)
	if err != nil {
		return nil, err
	}
	s.only, s.auth = only, api.AuthorizationFrom(ctx)
	text, err := stmterr.OnlyStatement(sql)
	if err != nil {
		return nil, err
	}
	stmt, err := e.parseStatement(ctx, text, s)
	if err != nil {
		return nil, stmterr.Wrap(err, text, nil)
	}
	var rs api.RowStream
	switch st := stmt.(type) {
	case *ast.Query:
		rs, err = e.startSelect(st, s)
	case *ast.Print:
		if only != nil {
			return nil, stmterr.ForwardedPull()
		}
		rs, err = e.startPrint(ctx, st, s)
	default:
		err = &api.ErrorMessage{ErrorCode: api.CodeBadStatement, Message: "Only SELECT and PRINT statements can be run on this endpoint; use /ksql for: " + stmterr.FirstWords(stmt.Text())}
	}
	var limit *api.ErrorMessage
	switch {
	case errors.As(err, &limit) && limit.ErrorCode == api.CodeMaxPushQueries:
		return nil, limit // about the server, not the statement: ksqlDB's generic_error
	case err != nil:
		return nil, stmterr.Wrap(err, stmt.Text(), nil)
	}
	return rs, nil
}

func (e *Engine) startSelect(st *ast.Query, s *session) (api.RowStream, error) {
	e.mu.Lock()
	plan, err := e.planner.PlanQuery(st)
	e.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if s.only != nil && (plan.Kind != planner.Pull || plan.Sources[0].Kind != ast.Table) {
		return nil, stmterr.ForwardedPull()
	}
	if err := pull.CheckLimit(plan, s.cfg.PullLimit, st.P); err != nil {
		return nil, err
	}
	if err := e.topics().CheckCopartitioned(context.Background(), plan, st.P); err != nil {
		return nil, err
	}
	id := e.transientID(st, plan, s)
	appID := e.names.TransientAppID(id)
	topo, err := physical.Build(plan, physical.Options{AppID: appID, ParseTimestamp: e.reg.ParseTimestamp})
	if err != nil {
		return nil, err
	}
	if err := e.topics().CreateInternal(context.Background(), plan, topo); err != nil {
		return nil, err
	}
	t, err := newTransient(e, id, st.Text(), topo, plan.Root.Schema().Columns, s.props, plan.Limit)
	if err != nil {
		return nil, err
	}
	t.appID = appID
	t.plan = plan
	t.only, t.auth = s.only, s.auth
	// Pull queries on tables mark key columns in their header; pull
	// queries on streams (topic scans) do not, as in ksqlDB.
	t.header.Pull = plan.Kind == planner.Pull && plan.Sources[0].Kind == ast.Table
	if plan.Limit == 0 {
		t.finishWith(nil, t.limitMessage()) // LIMIT 0: nothing to read
		return t, nil
	}
	t.push = plan.Kind != planner.Pull
	if err := e.register(t); err != nil {
		if len(topo.Internal) > 0 {
			e.deleteInternalTopics(topo)
		}
		return nil, err
	}
	var r exec.Runner
	switch {
	case plan.Kind == planner.Pull && plan.Sources[0].Global:
		r, err = e.startGlobalPull(t, plan.Sources[0])
	case plan.Kind == planner.Pull && plan.Sources[0].Kind == ast.Table:
		r, err = e.startTablePull(t, plan, st.P)
	case plan.Kind == planner.Pull:
		r = pull.ScanStream(e.cluster.Read, t.topo, t.taskEnv, func(err error) { t.finishWith(err, api.FinalQueryCompleted) })
	default:
		r, err = e.startPush(t)
	}
	if err != nil {
		e.forgetTransient(id)
		return nil, err
	}
	t.mu.Lock()
	t.runner = r
	t.mu.Unlock()
	return t, nil
}

// startPush runs a push query, its global tables' stores filled first.
func (e *Engine) startPush(t *transient) (exec.Runner, error) {
	g, err := global.Start(context.Background(), t.topo.Globals, e.globalEnv(t.appID, t.cfg, e.procLog, t.finish))
	if err != nil {
		return nil, err
	}
	t.globals = g
	r, err := e.cluster.StartPush(t.spec())
	if err != nil {
		g.Close()
		return nil, err
	}
	return global.WithStores(r, g), nil
}
