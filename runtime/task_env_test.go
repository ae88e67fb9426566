package runtime

import (
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/state"
)

type nopSink struct{}

func (nopSink) sendChangelog(string, int32, []byte, []byte) {}

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
	cfg, err := props.NewQueryConfig(props.NewTable(), props.Properties{props.IdleClose: "250", props.LateTopic: "late",
		props.ThrowOnInvalidTS: "true", props.CacheBytes: "4096"})
	if err != nil {
		t.Fatal(err)
	}
	stateful := &physical.SubTopology{ID: 1, Stores: []physical.StoreSpec{{Name: "agg", Changelog: "app-agg-changelog"}}}
	stateless := &physical.SubTopology{ID: 0}
	b := &taskEnvs{cfg: cfg, emit: nopEmitter{}, db: db, appID: "app", sink: nopSink{}, times: &streamTimes{}}

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
