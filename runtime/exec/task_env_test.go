package exec

import (
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/state"
)

type nopSink struct{}

func (nopSink) sendChangelog(string, int32, []byte, []byte, int64) {}

type nopEmitter struct{}

func (nopEmitter) Emit(*physical.OutRecord) {}

// TestTaskEnvsCarryTheQueryConfig: whichever path builds a task, its
// environment has the query's configuration; stores are opened only for
// a stateful sub-topology with a changelog sink, and the late-records
// topic only where records can be emitted.
func TestTaskEnvsCarryTheQueryConfig(t *testing.T) {
	db, err := state.OpenMem()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg := Config{IdleCloseMs: 250, LateTopic: "late", ThrowOnInvalid: true, CacheBytes: 4096}
	stateful := &physical.SubTopology{ID: 1, Stores: []physical.StoreSpec{{Name: "agg", Changelog: "app-agg-changelog"}}}
	stateless := &physical.SubTopology{ID: 0}
	b := &taskEnvs{cfg: cfg, emit: nopEmitter{}, db: db, appID: "app", sink: nopSink{}, times: &StreamTimes{}}

	env, stores := b.build(stateful, 3)
	if env.IdleCloseMs != 250 || env.LateTopic != "late" || !env.ThrowOnInvalidTimestamp || env.Partition != 3 ||
		env.StreamTime == nil || env.OpenWindows == nil {
		t.Errorf("stateful env %+v", env)
	}
	if stores == nil || env.Stores == nil || stores.cache != 4096 {
		t.Errorf("stateful task stores %+v", stores)
	}
	if _, stores := b.build(stateless, 0); stores != nil {
		t.Error("a stateless task got stores")
	}
	pull := &taskEnvs{cfg: cfg, db: db, appID: "app"}
	if env, stores := pull.build(stateful, 0); stores != nil || env.Stores != nil || env.LateTopic != "" || env.IdleCloseMs != 250 {
		t.Errorf("pull env %+v, stores %v", env, stores)
	}
}
