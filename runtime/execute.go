package runtime

import (
	"context"
	"fmt"
	"slices"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/internal/version"
	"github.com/sqlstream/sqlstream/runtime/assert"
	"github.com/sqlstream/sqlstream/runtime/connectors"
	"github.com/sqlstream/sqlstream/runtime/describe"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/runtime/stmterr"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// session is the per-request state of statement execution: property
// overrides (SET) and variables (DEFINE).
type session struct {
	props props.Properties
	cfg   props.SessionConfig // parsed from props by setProps
	vars  map[string]string
	// only is set for a pull query a peer forwarded: the partitions to
	// read here, never forwarding again (package runtime/cluster).
	only []int32
	auth string // the request's Authorization header, for forwarding
}

func (e *Engine) newSession(given map[string]any, vars map[string]string) (*session, error) {
	over := map[string]string{}
	for k, v := range given {
		s := props.Text(v)
		if err := e.table.CheckOverride(k, s); err != nil {
			return nil, &api.ErrorMessage{ErrorCode: api.CodeBadRequest, Message: err.Error()}
		}
		over[k] = s
	}
	vs := map[string]string{}
	for k, v := range vars {
		vs[k] = v
	}
	return e.session(e.props.Merge(over), vs)
}

// session is a session over the properties p (the server's and the
// overrides), its typed settings parsed once.
func (e *Engine) session(p props.Properties, vars map[string]string) (*session, error) {
	s := &session{vars: vars}
	if err := s.setProps(e.table, p); err != nil {
		return nil, &api.ErrorMessage{ErrorCode: api.CodeBadRequest, Message: err.Error()}
	}
	return s, nil
}

// setProps makes p the session's properties and parses its settings
// from them (after each SET and UNSET).
func (s *session) setProps(t props.Table, p props.Properties) error {
	cfg, err := props.NewSessionConfig(t, p)
	if err != nil {
		return err
	}
	s.props, s.cfg = p, cfg
	return nil
}

// Execute runs the statements of a /ksql request in order and returns
// their entities. Every statement is parsed before the first runs (see
// parseBatch). On failure the error is an *api.StatementError that
// carries the entities of the statements that did run.
func (e *Engine) Execute(ctx context.Context, req api.KsqlRequest) ([]api.Entity, error) {
	s, err := e.newSession(req.StreamsProperties, req.SessionVariables)
	if err != nil {
		return nil, err
	}
	if req.CommandSequenceNumber != nil {
		if err := e.waitForSeq(ctx, *req.CommandSequenceNumber); err != nil {
			return nil, err
		}
	}
	stmts, err := e.parseBatch(ctx, req.Ksql, s)
	if err != nil {
		return nil, err
	}
	var out []api.Entity
	for _, stmt := range stmts {
		ent, err := e.executeOne(ctx, stmt, s)
		if err != nil {
			return out, stmterr.Wrap(err, ast.MaskedText(stmt), out)
		}
		if ent != nil {
			out = append(out, ent)
		}
	}
	return out, nil
}

// parseStatement substitutes the session's variables in and parses one
// statement, stopping when ctx is done.
func (e *Engine) parseStatement(ctx context.Context, text string, s *session) (ast.Statement, error) {
	sub, err := substituteUnless(!s.cfg.VarSubstitution, text, s.vars)
	if err != nil {
		return nil, err
	}
	return parseSingle(ctx, sub, e.cat.Types().Lookup)
}

// substituteUnless substitutes vars into text unless off is set, when
// ${name} stays as written (ksqlDB with substitution disabled).
func substituteUnless(off bool, text string, vars map[string]string) (string, error) {
	if off {
		return text, nil
	}
	return parser.Substitute(text, vars)
}

// parseSingle parses text, which must hold exactly one statement; a
// client that leaves (ctx done) stops the parse.
func parseSingle(ctx context.Context, text string, lookup func(string) (*types.Type, bool)) (ast.Statement, error) {
	stmts, err := parser.Parse(text, parser.WithTypes(lookup), parser.WithContext(ctx))
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, fmt.Errorf("expected one statement, got %d", len(stmts))
	}
	return stmts[0], nil
}

// executeOne runs one statement under the engine lock.
func (e *Engine) executeOne(ctx context.Context, stmt ast.Statement, s *session) (api.Entity, error) {
	switch st := stmt.(type) {
	case *ast.SetProperty:
		if err := e.table.CheckOverride(st.Name, st.Value); err != nil {
			return nil, err
		}
		return nil, s.setProps(e.table, s.props.Merge(map[string]string{props.Normalize(st.Name): st.Value}))
	case *ast.UnsetProperty:
		if _, err := e.table.Lookup(st.Name); err != nil {
			return nil, err
		}
		name := props.Normalize(st.Name)
		next := s.props.Merge(nil)
		if def, ok := e.props[name]; ok {
			next[name] = def
		} else {
			delete(next, name)
		}
		return nil, s.setProps(e.table, next)
	case *ast.AlterSystem:
		// ksqlDB's ValidatedCommandFactory applies ALTER SYSTEM only with
		// shared runtimes (Confluent Cloud); open-source ksqlDB refuses it
		// in these words, before it reaches the command topic.
		return nil, &api.ErrorMessage{ErrorCode: api.CodeBadRequest, Message: stmterr.AlterSystemRefusal}
	case *ast.Define:
		s.vars[st.Name] = st.Value
		return nil, nil
	case *ast.Undefine:
		delete(s.vars, st.Name)
		return nil, nil
	case *ast.Query, *ast.Print:
		return nil, &api.ErrorMessage{ErrorCode: api.CodeQueryEndpoint, Message: stmterr.QueryEndpoint}
	case *ast.InsertValues:
		return nil, e.insertValues(ctx, st, s)
	case *ast.AssertSchema:
		return assert.Schema(ctx, e.planner.Defaults.SchemaRegistry, st, s.cfg.AssertSchemaTimeout)
	case *ast.AssertTopic:
		return assert.Topic(ctx, e.cluster, st, s.cfg.AssertTopicTimeout)
	case *ast.CreateConnector, *ast.DropConnector, *ast.DescribeConnector, *ast.ListConnectors, *ast.ListConnectorPlugins:
		return connectors.Run(ctx, st, e.connectConfig(ctx, s), e.sourcesOver)
	}
	e.mu.Lock()
	defer e.unlock()
	if e.cmdLog != nil && recordsCommand(stmt) {
		return e.remember(e.execSerialized(ctx, stmt, s))
	}
	return e.execLocked(ctx, stmt, s, nil)
}

// execLocked runs a catalog-changing or informational statement and
// remembers the command status it answers with. cmd is non-nil when the
// statement is replayed from the command log.
func (e *Engine) execLocked(ctx context.Context, stmt ast.Statement, s *session, cmd *command) (api.Entity, error) {
	return e.remember(e.dispatchLocked(ctx, stmt, s, cmd))
}

// remember keeps the command status a statement answers with.
func (e *Engine) remember(ent api.Entity, err error) (api.Entity, error) {
	if cs, ok := ent.(api.CommandStatusEntity); ok && err == nil {
		e.commands[cs.CommandID] = cs.CommandStatus
	}
	return ent, err
}

func (e *Engine) dispatchLocked(ctx context.Context, stmt ast.Statement, s *session, cmd *command) (api.Entity, error) {
	switch st := stmt.(type) {
	case *ast.CreateSource:
		return e.createSource(ctx, st, s, cmd)
	case *ast.CreateAsSelect:
		return e.createAsSelect(ctx, st, s, cmd)
	case *ast.InsertInto:
		return e.insertInto(ctx, st, s, cmd)
	case *ast.Drop:
		return e.drop(ctx, st, s, cmd)
	case *ast.CreateType:
		return e.createType(ctx, st, s, cmd)
	case *ast.DropType:
		return e.dropType(ctx, st, s, cmd)
	case *ast.Terminate:
		return e.terminate(ctx, st, s, cmd)
	case *ast.Pause:
		return e.pauseOrResume(ctx, st, pauseTarget{pos: st.P, id: st.QueryID, all: st.All}, s, cmd)
	case *ast.Resume:
		return e.pauseOrResume(ctx, st, pauseTarget{pos: st.P, id: st.QueryID, all: st.All, resume: true}, s, cmd)
	case *ast.Show:
		return e.show(ctx, st, s)
	case *ast.Describe:
		return describe.Describe(st, e.cat, e.views())
	case *ast.DescribeFunction:
		return describe.Function(st, e.reg, version.String())
	case *ast.Explain:
		return e.explain(ctx, st, s)
	case *ast.AlterSource:
		return e.alterSource(ctx, st, s, cmd)
	}
	return nil, sqlerr.New(sqlerr.Unsupported, ast.Pos{}, "statement not supported: %s", stmterr.FirstWords(stmt.Text()))
}

// connectConfig is the engine's Kafka Connect clients (package
// runtime/connectors) with the request's Authorization header.
func (e *Engine) connectConfig(ctx context.Context, s *session) connectors.Config {
	return connectors.Config{Factory: e.connect, DefaultURL: s.cfg.ConnectDefault, Auth: api.AuthorizationFrom(ctx)}
}

// sourcesOver describes the streams and tables over the topics (DESCRIBE
// CONNECTOR's), under the engine lock.
func (e *Engine) sourcesOver(_ context.Context, topics []string) []api.SourceDescription {
	e.mu.Lock()
	defer e.unlock()
	var out []api.SourceDescription
	views := e.views()
	for _, src := range e.cat.List() {
		if slices.Contains(topics, src.Topic) {
			out = append(out, describe.Source(src, views, false))
		}
	}
	return out
}
