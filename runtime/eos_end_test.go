package runtime_test

import (
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestEOSGroupLosesMemberInTransaction: the coordinator answers the
// query's regular heartbeat UNKNOWN_MEMBER_ID (it forgot the member, as a
// broker restarted after a crash does) while a transaction is open: the
// commit interval (5 s) outlasts the heartbeat interval (3 s) and input
// keeps arriving. franz-go's group manager then waits for the rebalance
// the query holds back, and End for a forced heartbeat only that manager
// would answer: before eos_end.go the query stalled for good, silently.
// Now the runner lets the rebalance through, the transaction aborts and
// is redone, and every count is exact, none repeated (awaitCounts).
func TestEOSGroupLosesMemberInTransaction(t *testing.T) {
	t.Parallel()
	f := newEOSRig(t)
	f.exec(`CREATE STREAM s (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='s', VALUE_FORMAT='JSON', PARTITIONS=2);
	  SET 'auto.offset.reset'='earliest';
	  SET 'processing.guarantee'='exactly_once_v2';
	  SET 'commit.interval.ms'='5000';
	  CREATE TABLE counts WITH (KAFKA_TOPIC='counts') AS SELECT k, COUNT(*) AS n FROM s GROUP BY k;`)
	want := map[string]int{}
	add := func(m map[string]int) {
		for k, n := range m {
			want[k] += n
		}
	}
	add(f.produceEvents(20, 5))
	f.awaitCounts("counts", want)
	refused := f.failTimes(kmsg.Heartbeat, 1, func(req kmsg.Request) bool {
		return strings.Contains(req.(*kmsg.HeartbeatRequest).Group, "CTAS_COUNTS_1")
	}, func(req kmsg.Request) kmsg.Response {
		resp := req.ResponseKind().(*kmsg.HeartbeatResponse)
		resp.Version = req.GetVersion()
		resp.ErrorCode = kerr.UnknownMemberID.Code
		return resp
	})
	for deadline := time.Now().Add(20 * time.Second); refused.Load() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("no heartbeat of the query within 20 s")
		}
		add(f.produceEvents(10, 20))
		time.Sleep(50 * time.Millisecond)
	}
	add(f.produceEvents(10, 20))
	f.awaitCounts("counts", want)
}
