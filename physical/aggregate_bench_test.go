package physical_test

import (
	"fmt"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/functions"
	"github.com/sqlstream/sqlstream/sql/parser"
	"github.com/sqlstream/sqlstream/state"
)

// benchBids is the bid stream of Nexmark's q11, q15 and q16 (JSON, no key).
const benchBids = `CREATE STREAM bid (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, date_time BIGINT)
  WITH (KAFKA_TOPIC='bid', VALUE_FORMAT='JSON', TIMESTAMP='date_time');`

// pebbleStores opens a task's stores in a Pebble DB on an in-memory FS,
// with the default cache, as the runtime opens them (less the changelog).
type pebbleStores struct {
	db   *state.DB
	open []physical.Store
}

func (s *pebbleStores) Store(name string) (physical.Store, error) {
	st, err := s.db.Store(state.StoreID{App: "bench", Name: name})
	s.open = append(s.open, st)
	return st, err
}

// flush is a commit: every store's cached writes go down to Pebble.
func (s *pebbleStores) flush() error {
	for _, st := range s.open {
		if err := st.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// pipeline runs every sub-topology of a query in one goroutine: records
// emitted to a repartition topic go straight to the task that reads it.
type pipeline struct {
	tasks   map[string]*physical.Task // by input topic
	queue   []*physical.OutRecord
	emitted int                       // records emitted to other topics (the sink)
	observe func(*physical.OutRecord) // when set, sees every record emitted
}

func (p *pipeline) Emit(r *physical.OutRecord) {
	if p.observe != nil {
		p.observe(r)
	}
	if p.tasks[r.Topic] != nil {
		p.queue = append(p.queue, r)
		return
	}
	p.emitted++
}

// process feeds r to its task and then whatever it repartitions.
func (p *pipeline) process(r *physical.InRecord) error {
	if err := p.tasks[r.Topic].Process(r); err != nil {
		return err
	}
	for len(p.queue) > 0 {
		o := p.queue[0]
		p.queue = p.queue[1:]
		in := &physical.InRecord{Topic: o.Topic, Key: o.Key, Value: o.Value, Headers: o.Headers, Timestamp: o.Timestamp}
		if err := p.tasks[o.Topic].Process(in); err != nil {
			return err
		}
	}
	return nil
}

// benchPipeline plans query over benchBids and opens its tasks.
func benchPipeline(b testing.TB, query string) (*pipeline, *pebbleStores) {
	return pipelineOver(b, benchBids, query)
}

// pipelineOver plans query over the stream source creates and opens its
// tasks.
func pipelineOver(b testing.TB, source, query string) (*pipeline, *pebbleStores) {
	b.Helper()
	_, pl, stores := pipelineWith(b, source, query, physical.Options{AppID: "bench"})
	return pl, stores
}

// pipelineWith is pipelineOver with the builder's options, and the
// topology.
func pipelineWith(b testing.TB, source, query string, opts physical.Options) (*physical.Topology, *pipeline, *pebbleStores) {
	b.Helper()
	p := planner.New(planner.NewCatalog(), functions.NewRegistry(), planner.Defaults{})
	stmts, err := parser.Parse(source + query)
	if err != nil {
		b.Fatal(err)
	}
	src, err := p.CreateSource(stmts[0].(*ast.CreateSource))
	if err != nil {
		b.Fatal(err)
	}
	p.Catalog.Put(src)
	plan, err := p.PlanCreateAs(stmts[1].(*ast.CreateAsSelect))
	if err != nil {
		b.Fatal(err)
	}
	topo, err := physical.Build(plan, opts)
	if err != nil {
		b.Fatal(err)
	}
	db, err := state.OpenMem()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	stores := &pebbleStores{db: db}
	pl := &pipeline{tasks: map[string]*physical.Task{}}
	for i, sub := range topo.SubTopologies {
		tk, err := topo.NewTask(i, &physical.TaskEnv{Emit: pl, Stores: stores})
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range sub.Topics {
			pl.tasks[t] = tk
		}
	}
	return topo, pl, stores
}

// benchBid is bid n: bidders and auctions drawn from 10,000 and 5,000 by
// a multiplicative hash (so groups fill their distinct sets), prices
// spread over the three ranks, 10 ms apart.
func benchBid(n int) *physical.InRecord {
	h := uint64(n) * 0x9e3779b97f4a7c15
	v := fmt.Sprintf(`{"AUCTION":%d,"BIDDER":%d,"PRICE":%d,"CHANNEL":"c%d","DATE_TIME":%d}`,
		h>>40%5000, h>>20%10000, h%2_000_000, n%4, int64(n)*10)
	return &physical.InRecord{Topic: "bid", Value: []byte(v), Timestamp: int64(n) * 10}
}

// runBids feeds b.N bids to tk; the store is flushed every 1,000 as a
// commit would.
func runBids(b *testing.B, query string) {
	pl, stores := benchPipeline(b, query)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := pl.process(benchBid(i)); err != nil {
			b.Fatal(err)
		}
		if i%1000 == 999 {
			if err := stores.flush(); err != nil {
				b.Fatal(err)
			}
		}
	}
	if pl.emitted == 0 {
		b.Fatal("the query emitted nothing")
	}
}

// BenchmarkCountDistinctGroup is Nexmark's q16 shape: one group per
// channel (four), eight COUNT_DISTINCTs each, whose sets outgrow the
// exact phase after a few thousand bids.
func BenchmarkCountDistinctGroup(b *testing.B) {
	runBids(b, `CREATE TABLE q16 AS SELECT channel, COUNT(*) AS n,
	  COUNT_DISTINCT(bidder) AS b, COUNT_DISTINCT(CASE WHEN price < 10000 THEN bidder END) AS b1,
	  COUNT_DISTINCT(CASE WHEN price >= 10000 AND price < 1000000 THEN bidder END) AS b2,
	  COUNT_DISTINCT(CASE WHEN price >= 1000000 THEN bidder END) AS b3,
	  COUNT_DISTINCT(auction) AS a, COUNT_DISTINCT(CASE WHEN price < 10000 THEN auction END) AS a1,
	  COUNT_DISTINCT(CASE WHEN price >= 10000 AND price < 1000000 THEN auction END) AS a2,
	  COUNT_DISTINCT(CASE WHEN price >= 1000000 THEN auction END) AS a3
	  FROM bid GROUP BY channel EMIT CHANGES;`)
}

// BenchmarkSessionWindow is Nexmark's q11: bids per bidder in sessions
// with a 10 s gap.
func BenchmarkSessionWindow(b *testing.B) {
	runBids(b, `CREATE TABLE q11 AS SELECT bidder, COUNT(*) AS n FROM bid
	  WINDOW SESSION (10 SECONDS) GROUP BY bidder EMIT CHANGES;`)
}

// BenchmarkGroupCountSum is a plain re-keyed GROUP BY: 5,000 groups, three
// primitive accumulators each.
func BenchmarkGroupCountSum(b *testing.B) {
	runBids(b, `CREATE TABLE per_auction AS SELECT auction, COUNT(*) AS n, SUM(price) AS total, MAX(price) AS top
	  FROM bid GROUP BY auction EMIT CHANGES;`)
}

// BenchmarkTumblingCount is a tumbling-window count per bidder.
func BenchmarkTumblingCount(b *testing.B) {
	runBids(b, `CREATE TABLE per_minute AS SELECT bidder, COUNT(*) AS n, SUM(price) AS total FROM bid
	  WINDOW TUMBLING (SIZE 1 MINUTE) GROUP BY bidder EMIT CHANGES;`)
}

// BenchmarkLatestByOffsetGroup is Nexmark's q18 shape: the last bid per
// (bidder, auction), re-keyed, four LATEST_BY_OFFSET columns, most
// groups updated a few times.
func BenchmarkLatestByOffsetGroup(b *testing.B) {
	runBids(b, `CREATE TABLE q18 WITH (KEY_FORMAT='JSON') AS SELECT bidder, auction, LATEST_BY_OFFSET(price) AS price,
	  LATEST_BY_OFFSET(channel) AS channel, LATEST_BY_OFFSET(date_time) AS date_time
	  FROM bid GROUP BY bidder, auction EMIT CHANGES;`)
}

// BenchmarkRekeyedManyArgs is Nexmark q17's shape: re-keyed by auction
// and day, seven arguments through the repartition topic (three CASEs,
// the price four times).
func BenchmarkRekeyedManyArgs(b *testing.B) {
	runBids(b, `CREATE TABLE q17 WITH (KEY_FORMAT='JSON') AS SELECT auction,
	  FORMAT_TIMESTAMP(FROM_UNIXTIME(date_time), 'yyyy-MM-dd') AS day, COUNT(*) AS total_bids,
	  SUM(CASE WHEN price < 10000 THEN 1 ELSE 0 END) AS rank1_bids,
	  SUM(CASE WHEN price >= 10000 AND price < 1000000 THEN 1 ELSE 0 END) AS rank2_bids,
	  SUM(CASE WHEN price >= 1000000 THEN 1 ELSE 0 END) AS rank3_bids, MIN(price) AS min_price,
	  MAX(price) AS max_price, AVG(price) AS avg_price, SUM(price) AS sum_price FROM bid
	  GROUP BY auction, FORMAT_TIMESTAMP(FROM_UNIXTIME(date_time), 'yyyy-MM-dd') EMIT CHANGES;`)
}
