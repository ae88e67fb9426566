package runtime

import (
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/runtime/exec"
)

// TestExecConfigCarriesTheQueryConfig: the runner's configuration is the
// query's properties as parsed once (the environment every task is built
// from, exec's TestTaskEnvsCarryTheQueryConfig, starts here).
func TestExecConfigCarriesTheQueryConfig(t *testing.T) {
	cfg, err := newQueryConfig(newPropertyTable(), Properties{PropIdleClose: "250", PropLateTopic: "late",
		PropThrowOnInvalidTS: "true", PropCacheBytes: "4096", PropGuarantee: "exactly_once_v2",
		PropNumThreads: "3", PropOffsetReset: "earliest", PropMaxTaskIdle: "-1", PropRecoveryLag: "77"})
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.execConfig()
	want := exec.Config{CommitInterval: eosCommitInterval, Threads: 3, FromEarliest: true, CacheBytes: 4096,
		IdleCloseMs: 250, MaxTaskIdle: -time.Millisecond, LateTopic: "late", ThrowOnInvalid: true, ExactlyOnce: true,
		SessionTimeout: cfg.sessionTimeout, AcceptableLag: 77}
	if got != want {
		t.Errorf("exec config\n got %+v\nwant %+v", got, want)
	}
}
