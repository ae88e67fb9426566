package runtime

import (
	"context"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
)

// startGlobalPull answers a pull query on a global table from a full
// local copy of it: the table's topic is read, every partition, up to
// the end offsets at the query's start into a store of the query's own
// (as a query joining the table fills its copy before it runs), the rows
// go through the pull query's filter and projection, and the copy is
// dropped. ksqlDB has no global tables; a pull query on an ordinary
// source table still needs CREATE TABLE … AS SELECT.
func (e *Engine) startGlobalPull(t *transient, src *planner.Source) (runner, error) {
	spec := physical.GlobalSpecOf(src, physical.Options{AppID: t.appID, ParseTimestamp: e.parseTimestamp})
	g := &globalStores{stores: map[string]*globalStore{}}
	env := globalEnv{appID: t.appID, cache: t.cfg.CacheBytes, log: e.procLog, onErr: t.finish}
	if err := g.start(context.Background(), e, spec, env); err != nil {
		g.close()
		return nil, err
	}
	for _, stop := range g.stops {
		stop() // a snapshot: the copy stops at the end offsets it started with
	}
	g.stops = nil
	go func() {
		err := e.scanGlobal(t, spec, g.stores[spec.Name])
		g.close()
		e.wipeStores(t.appID)
		t.finishWith(err, "")
	}()
	return runnerFunc(func() error { return nil }), nil
}

// scanGlobal feeds the copy's rows to the pull query's task.
func (e *Engine) scanGlobal(t *transient, spec physical.GlobalStoreSpec, s *globalStore) error {
	env, _ := t.taskEnvs(nil, nil).build(t.topo.SubTopologies[0], 0)
	task, err := t.topo.NewTask(0, env)
	if err != nil {
		return err
	}
	if err := spec.Rows(s, task.ProcessRow); err != nil && !physical.IsStopped(err) {
		return err
	}
	return nil
}
