package runtime

import (
	"context"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/global"
)

// startGlobalPull answers a pull query on a global table from a full
// local copy of it: the table's topic is read, every partition, up to
// the end offsets at the query's start into a store of the query's own
// (as a query joining the table fills its copy before it runs), the rows
// go through the pull query's filter and projection, and the copy is
// dropped. ksqlDB has no global tables; a pull query on an ordinary
// source table still needs CREATE TABLE … AS SELECT.
func (e *Engine) startGlobalPull(t *transient, src *planner.Source) (exec.Runner, error) {
	spec := physical.GlobalSpecOf(src, physical.Options{AppID: t.appID, ParseTimestamp: e.reg.ParseTimestamp})
	// a snapshot: the copy stops at the end offsets it started with
	s, done, err := global.Snapshot(context.Background(), spec, e.globalEnv(t.appID, t.cfg, e.procLog, t.finish))
	if err != nil {
		return nil, err
	}
	go func() {
		err := e.scanGlobal(t, spec, s)
		done()
		e.wipeStores(t.appID)
		t.finishWith(err, "")
	}()
	return exec.RunnerFunc(func() error { return nil }), nil
}

// scanGlobal feeds the copy's rows to the pull query's task.
func (e *Engine) scanGlobal(t *transient, spec physical.GlobalStoreSpec, s *global.Store) error {
	env := t.taskEnv(t.topo.SubTopologies[0], 0)
	task, err := t.topo.NewTask(0, env)
	if err != nil {
		return err
	}
	if err := spec.Rows(s, task.ProcessRow); err != nil && !physical.IsStopped(err) {
		return err
	}
	return nil
}
