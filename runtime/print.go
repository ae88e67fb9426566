package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/printer"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// startPrint runs PRINT topic: raw records rendered as ksqlDB prints them
// (package runtime/printer).
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
	p := e.printer()
	go func() {
		defer close(done)
		err := e.cluster.Read(rctx, st.Topic, from, false, p.Lines(rctx, st.Interval, func(line string) bool {
			return t.Row(&types.Row{Values: []any{line}})
		}))
		if err == context.Canceled {
			err = nil
		}
		t.finish(err)
	}()
	t.runner = exec.RunnerFunc(func() error { cancel(); <-done; return nil })
	return &printStream{t}, nil
}

// printer renders PRINT's records with the engine's registry.
func (e *Engine) printer() printer.Printer {
	return printer.Printer{Registry: e.planner.Defaults.SchemaRegistry}
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
