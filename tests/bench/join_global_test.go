package bench

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/twmb/franz-go/pkg/kgo"
)

const usersTopic = "users"

// produceUsers writes one row per user (numKeys) to the users topic,
// with the page views' partitioner and partition count, so a plain
// table over it is co-partitioned with them.
func (e *env) produceUsers(b *testing.B) {
	ctx := context.Background()
	if _, err := e.adm.CreateTopic(ctx, partitions, 1, nil, usersTopic); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < numKeys; i++ {
		v := fmt.Sprintf(`{"NAME":"name_%d","TIER":"tier_%d"}`, i, i%5)
		e.cl.Produce(ctx, &kgo.Record{Topic: usersTopic, Key: []byte("user_" + strconv.Itoa(i)), Value: []byte(v)}, nil)
	}
	if err := e.cl.Flush(ctx); err != nil {
		b.Fatal(err)
	}
}

// enrichQuery runs the page-view enrichment as a LEFT JOIN with the users
// table declared by tableDDL (TABLE or GLOBAL TABLE named users_x), on
// an engine of its own, and waits for one output per page view. LEFT,
// so that every page view has an output whatever the order in which a
// stream–table join's task reads its two topics.
func (e *env) enrichQuery(b *testing.B, service, tableDDL, sink string) {
	ctx := context.Background()
	eng, err := e.engine(ctx, service, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	_, err = eng.Execute(ctx, api.KsqlRequest{
		Ksql: `CREATE STREAM pv (USER_ID VARCHAR KEY, PAGE VARCHAR, MS BIGINT, AGENT VARCHAR)
		         WITH (KAFKA_TOPIC='page-views', VALUE_FORMAT='JSON');
		       CREATE ` + tableDDL + ` users_x (USER_ID VARCHAR PRIMARY KEY, NAME VARCHAR, TIER VARCHAR)
		         WITH (KAFKA_TOPIC='users', VALUE_FORMAT='JSON');
		       CREATE STREAM ` + sink + ` AS SELECT p.USER_ID, p.PAGE, u.NAME, u.TIER
		         FROM pv p LEFT JOIN users_x u ON p.USER_ID = u.USER_ID;`,
		StreamsProperties: map[string]any{"auto.offset.reset": "earliest"},
	})
	if err != nil {
		b.Fatal(err)
	}
	e.waitFor(b, sink, numEvents)
}

// BenchmarkGlobalTableJoin is issue 10's global-table benchmark: the
// same enrichment of the page views with 100k users as a join with a
// GLOBAL table (every task reads the whole table, no co-partitioning)
// and as the co-partitioned stream–table join. Run with -benchtime 1x;
// one iteration processes the 1M events once per join.
func BenchmarkGlobalTableJoin(b *testing.B) {
	e := setupUsers(b)
	defer e.b.Close()
	defer e.cl.Close()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, scpu, swall := measure(func() { e.enrichQuery(b, "bench_st_join_"+strconv.Itoa(i)+"_", "TABLE", "ENRICHED_T"+strconv.Itoa(i)) })
		gl, gcpu, gwall := measure(func() {
			e.enrichQuery(b, "bench_global_join_"+strconv.Itoa(i)+"_", "GLOBAL TABLE", "ENRICHED_G"+strconv.Itoa(i))
		})
		b.ReportMetric(st, "stream-table-events/cpu-s")
		b.ReportMetric(gl, "global-events/cpu-s")
		b.ReportMetric(gl/st, "ratio")
		fmt.Printf("\nLEFT JOIN of %d JSON page views (%d partitions) with %d users:\n", numEvents, partitions, numKeys)
		fmt.Printf("  stream-table join (co-partitioned): %9.0f events/CPU-s  (cpu %v, wall %v)\n", st, scpu.Round(time.Millisecond), swall.Round(time.Millisecond))
		fmt.Printf("  global-table join:                  %9.0f events/CPU-s  (cpu %v, wall %v)\n", gl, gcpu.Round(time.Millisecond), gwall.Round(time.Millisecond))
		fmt.Printf("  ratio global/stream-table: %.2f\n", gl/st)
	}
}

// setupUsers is setup with the users table produced before the page
// views (so its records are older).
func setupUsers(b *testing.B) *env {
	e := setupBroker(b)
	e.produceUsers(b)
	e.generate(b)
	return e
}
