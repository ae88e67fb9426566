package runtime

import (
	"reflect"
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
		props.NumThreads: "3", props.OffsetReset: "earliest", props.MaxTaskIdle: "-1", props.RecoveryLag: "77",
		"ksql.streams.consumer.max.poll.records": "50", "ksql.streams.producer.compression.type": "zstd", "ksql.streams.acks": "1"})
	if err != nil {
		t.Fatal(err)
	}
	got := execConfig(cfg)
	want := exec.Config{CommitInterval: props.EOSCommitInterval, Threads: 3, FromEarliest: true, CacheBytes: 4096,
		IdleCloseMs: 250, MaxTaskIdle: -time.Millisecond, LateTopic: "late", ThrowOnInvalid: true, ExactlyOnce: true,
		SessionTimeout: cfg.SessionTimeout, AcceptableLag: 77, MaxPollRecords: 50}
	// The client settings' options (kafkasec's TestClientOptions): under
	// exactly_once_v2 the compression's, not the acks'.
	if len(got.Clients) != 1 {
		t.Errorf("client options: %d, want 1 (compression.type)", len(got.Clients))
	}
	got.Clients = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("exec config\n got %+v\nwant %+v", got, want)
	}
}
