package runtime

import (
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// TestExecConfigCarriesTheQueryConfig: the runner's configuration is the
// query's properties as parsed once (the environment every task is built
// from, exec's TestTaskEnvsCarryTheQueryConfig, starts here).
func TestExecConfigCarriesTheQueryConfig(t *testing.T) {
	cfg, err := props.NewQueryConfig(props.NewTable(), props.Properties{props.IdleClose: "250", props.LateTopic: "late",
		props.ThrowOnInvalidTS: "true", props.CacheBytes: "4096", props.Guarantee: "exactly_once_v2",
		props.NumThreads: "3", props.OffsetReset: "earliest", props.MaxTaskIdle: "-1", props.RecoveryLag: "77"})
	if err != nil {
		t.Fatal(err)
	}
	got := execConfig(cfg)
	want := exec.Config{CommitInterval: props.EOSCommitInterval, Threads: 3, FromEarliest: true, CacheBytes: 4096,
		IdleCloseMs: 250, MaxTaskIdle: -time.Millisecond, LateTopic: "late", ThrowOnInvalid: true, ExactlyOnce: true,
		SessionTimeout: cfg.SessionTimeout, AcceptableLag: 77}
	if got != want {
		t.Errorf("exec config\n got %+v\nwant %+v", got, want)
	}
}
