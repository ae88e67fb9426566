package runtime_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestALOSChangelogNotBehindSink: under at_least_once, with no commit in
// sight (a 10-minute interval), 40 keys counted once each, fetched in one
// batch and so absorbed by the store's cache, fill the 1 KiB the cache
// may hold, so their outputs are released before the commit, but only
// with the cached counts in the changelog ahead of them: once the sink
// shows the last key's count the changelog already holds records, though
// no offset was committed (before issue 16 point 6 the changelog was
// empty until the commit, and a crash restored an older count than the
// sink showed). The keys are distinct: one key's 40 updates would now
// stay one cached update (output_cache_kafka_test.go), under the bound.
func TestALOSChangelogNotBehindSink(t *testing.T) {
	r := newRig(t, runtime.WithProperties(map[string]string{props.CommitInterval: "600000", props.CacheBytes: "1024"}))
	r.exec(`CREATE STREAM ev (k VARCHAR KEY, v INT) WITH (KAFKA_TOPIC='ev', VALUE_FORMAT='JSON', PARTITIONS=1);
	SET 'auto.offset.reset'='earliest';
	CREATE TABLE counts AS SELECT k, COUNT(*) AS n FROM ev GROUP BY k EMIT CHANGES;`)
	cl, err := kgo.NewClient(kgo.SeedBrokers(r.b.Addrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var batch []*kgo.Record
	for i := range 40 {
		batch = append(batch, &kgo.Record{Topic: "ev", Key: fmt.Appendf(nil, "k%d", i), Value: fmt.Appendf(nil, `{"V":%d}`, i)})
	}
	if err := cl.ProduceSync(context.Background(), batch...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	out := r.consume("COUNTS", 40)
	if last := out[len(out)-1]; string(last.Key) != "k39" || string(last.Value) != `{"N":1}` {
		t.Fatalf("last record %s %s, want k39's count 1", last.Key, last.Value)
	}
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	topics, err := adm.ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var changelog string
	for _, name := range topics.Names() {
		if strings.HasSuffix(name, "-changelog") {
			changelog = name
		}
	}
	if changelog == "" {
		t.Fatalf("no changelog topic among %v", topics.Names())
	}
	ends, err := adm.ListEndOffsets(ctx, changelog)
	if err != nil {
		t.Fatal(err)
	}
	if end, _ := ends.Lookup(changelog, 0); end.Offset < 1 {
		t.Fatalf("%s is empty while the sink shows every key: the sink is ahead of restorable state", changelog)
	}
	qs := r.exec(`SHOW QUERIES;`)[0].(api.QueriesList)
	groups, err := adm.FetchOffsetsForTopics(ctx, "default_query_"+qs.Queries[0].ID, "ev")
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := groups.Lookup("ev", 0); ok && o.At >= 0 {
		t.Fatalf("ev/0 committed at %d: the test means to look before the first commit", o.At)
	}
}
