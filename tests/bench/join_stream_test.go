package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/twmb/franz-go/pkg/kgo"
)

const (
	clicksTopic   = "clicks"
	viewsTopic    = "views"
	withinMS      = 60_000 // WITHIN 1 MINUTE
	viewLagMS     = 30_000 // view i comes 30 s after click i
	ssService     = "bench_ssjoin_"
	ssSink        = "CLICKED_VIEWS"
	ssBucketMS    = withinMS
	ssSideClicks  = 0
	ssSideViews   = 1
	ssNumSides    = 2
	ssEventsTotal = 2 * numEvents
)

// click and view are the hand loop's decoded records, clickedView its
// output (the engine's CLICKED_VIEWS value has the same fields).
type click struct {
	URL   string `json:"URL"`
	Agent string `json:"AGENT"`
}

type view struct {
	Page string `json:"PAGE"`
	Ref  string `json:"REF"`
}

type clickedView struct {
	URL  string `json:"URL"`
	Page string `json:"PAGE"`
	Ref  string `json:"REF"`
}

// clickRecord and viewRecord are event i of each side: user i%100k, so
// a user's events are 100 s apart; view i comes 30 s after click i.
// Within one minute, click i matches exactly view i: 1M results.
func clickRecord(i int) *kgo.Record {
	v := fmt.Sprintf(`{"URL":"/product/%d","AGENT":"Mozilla/5.0 (X11; Linux)"}`, i)
	return &kgo.Record{Key: []byte("user_" + strconv.Itoa(i%numKeys)), Value: []byte(v), Timestamp: time.UnixMilli(enrichBaseMS + int64(i))}
}

func viewRecord(i int) *kgo.Record {
	v := fmt.Sprintf(`{"PAGE":"page_%d","REF":"search"}`, i)
	return &kgo.Record{Key: []byte("user_" + strconv.Itoa(i%numKeys)), Value: []byte(v), Timestamp: time.UnixMilli(enrichBaseMS + viewLagMS + int64(i))}
}

// ssRow is one side's buffered row in the hand loop.
type ssRow struct {
	ts    int64
	click click
	view  view
}

// ssBuckets is one side's rows by one-minute bucket of their time, then
// by key.
type ssBuckets map[int64]map[string][]ssRow

func (s ssBuckets) add(key string, r ssRow) {
	b := r.ts / ssBucketMS
	m := s[b]
	if m == nil {
		m = map[string][]ssRow{}
		s[b] = m
	}
	m[key] = append(m[key], r)
}

// within calls fn for the rows of key whose time is within the window
// of ts (the buckets around it).
func (s ssBuckets) within(key string, ts int64, fn func(ssRow)) {
	for b := (ts - withinMS) / ssBucketMS; b <= (ts+withinMS)/ssBucketMS; b++ {
		for _, r := range s[b][key] {
			if d := r.ts - ts; d >= -withinMS && d <= withinMS {
				fn(r)
			}
		}
	}
}

// streamJoinLoop is what a developer would write without sqlstream: one
// consumer of both topics, each side's rows in a time-bucketed Go map;
// a row joins the other side's rows of its key within a minute and is
// buffered for the other side's later rows. Buckets are never evicted:
// the input spans ~17 minutes, less than the engine's default 24 h
// grace (which keeps every row too), and the maps write no changelog.
func (e *env) streamJoinLoop(b *testing.B) {
	out := "hand-clicked-views"
	e.createTopics(b, out)
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.b.Addrs()...), kgo.ConsumerGroup("ssjoin-loop"),
		kgo.ConsumeTopics(clicksTopic, viewsTopic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)), kgo.ProducerLinger(5*time.Millisecond),
		engineCompression())
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	var sides [ssNumSides]ssBuckets
	for i := range sides {
		sides[i] = ssBuckets{}
	}
	var produced int64
	emit := func(key []byte, c click, v view, ts int64) {
		val, _ := json.Marshal(clickedView{URL: c.URL, Page: v.Page, Ref: v.Ref})
		cl.Produce(ctx, &kgo.Record{Topic: out, Key: key, Value: val, Timestamp: time.UnixMilli(ts)}, nil)
		produced++
	}
	for produced < numEvents {
		fs := cl.PollRecords(ctx, 10_000)
		fs.EachRecord(func(r *kgo.Record) {
			row := ssRow{ts: r.Timestamp.UnixMilli()}
			key := string(r.Key)
			if r.Topic == clicksTopic {
				if json.Unmarshal(r.Value, &row.click) != nil {
					return
				}
				sides[ssSideViews].within(key, row.ts, func(o ssRow) { emit(r.Key, row.click, o.view, max(row.ts, o.ts)) })
				sides[ssSideClicks].add(key, row)
				return
			}
			if json.Unmarshal(r.Value, &row.view) != nil {
				return
			}
			sides[ssSideClicks].within(key, row.ts, func(o ssRow) { emit(r.Key, o.click, row.view, max(row.ts, o.ts)) })
			sides[ssSideViews].add(key, row)
		})
		if err := cl.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		cl.CommitUncommittedOffsets(ctx)
	}
	e.waitFor(b, out, numEvents)
}

// streamJoinQuery runs the join as a persistent query on an engine whose
// state lives in dir and waits for its 1M results.
func (e *env) streamJoinQuery(b *testing.B, dir string) {
	ctx := context.Background()
	eng, err := e.engine(ctx, ssService, dir)
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	ents, err := eng.Execute(ctx, api.KsqlRequest{
		Ksql: `CREATE STREAM clicks (USER_ID VARCHAR KEY, URL VARCHAR, AGENT VARCHAR)
		         WITH (KAFKA_TOPIC='clicks', VALUE_FORMAT='JSON');
		       CREATE STREAM views (USER_ID VARCHAR KEY, PAGE VARCHAR, REF VARCHAR)
		         WITH (KAFKA_TOPIC='views', VALUE_FORMAT='JSON');
		       CREATE STREAM clicked_views AS SELECT c.USER_ID, URL, PAGE, REF
		         FROM clicks c JOIN views v WITHIN 1 MINUTE ON c.USER_ID = v.USER_ID EMIT CHANGES;`,
		StreamsProperties: map[string]any{"auto.offset.reset": "earliest"},
	})
	if err != nil {
		b.Fatal(err)
	}
	if queryID(ents) == "" {
		b.Fatalf("CSAS %s returned no query id: %#v", ssSink, ents)
	}
	e.waitFor(b, ssSink, numEvents)
}

// checkClickedViews reads CLICKED_VIEWS and requires click i joined with
// view i, once each, at view i's time.
func (e *env) checkClickedViews(b *testing.B) {
	seen := make(map[int]bool, numEvents)
	bad := 0
	e.consumeTopic(b, ssSink, func(r *kgo.Record) {
		var v clickedView
		err := json.Unmarshal(r.Value, &v)
		i, _ := strconv.Atoi(v.URL[min(len("/product/"), len(v.URL)):])
		want := clickedView{URL: "/product/" + strconv.Itoa(i), Page: "page_" + strconv.Itoa(i), Ref: "search"}
		vr := viewRecord(i)
		if (err != nil || v != want || string(r.Key) != string(vr.Key) || !r.Timestamp.Equal(vr.Timestamp) || seen[i]) && bad < 5 {
			bad++
			b.Errorf("%s record %s=%s at %d: want key %s, value %+v at %d, once", ssSink, r.Key, r.Value,
				r.Timestamp.UnixMilli(), vr.Key, want, vr.Timestamp.UnixMilli())
		}
		seen[i] = true
	})
	if len(seen) != numEvents {
		b.Errorf("%s holds %d distinct results, want %d", ssSink, len(seen), numEvents)
	}
}

// BenchmarkStreamStreamJoin is issue 10's windowed-join benchmark:
// clicks ⋈ views WITHIN 1 MINUTE over 1M + 1M JSON events (4 partitions,
// 100k users, both window stores changelogged) vs the hand loop with
// time-bucketed Go maps. Figures are input events (2M) per CPU-second.
// Run with -benchtime 1x.
func BenchmarkStreamStreamJoin(b *testing.B) {
	e := joinSetup(b)
	defer e.b.Close()
	defer e.cl.Close()
	e.createTopics(b, clicksTopic, viewsTopic)
	e.produceN(b, clicksTopic, numEvents, clickRecord)
	e.produceN(b, viewsTopic, numEvents, viewRecord)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		base := procStatus("VmRSS:")
		resets := resetPeakRSS()
		settle()
		_, hcpu, hwall := measure(phase("hand", func() { e.streamJoinLoop(b) }))
		hrss := peakRSS()
		resetPeakRSS()
		settle()
		_, ecpu, ewall := measure(phase("stream-stream", func() { e.streamJoinQuery(b, b.TempDir()) }))
		erss := peakRSS()
		b.StopTimer()
		e.checkClickedViews(b)
		b.StartTimer()

		hand, eng := float64(ssEventsTotal)/hcpu.Seconds(), float64(ssEventsTotal)/ecpu.Seconds()
		b.ReportMetric(hand, "hand-events/cpu-s")
		b.ReportMetric(eng, "engine-events/cpu-s")
		b.ReportMetric(eng/hand, "ratio")
		b.ReportMetric(kiB(hrss)/1024, "hand-peak-MiB")
		b.ReportMetric(kiB(erss)/1024, "engine-peak-MiB")
		peak := "peak RSS"
		if !resets {
			peak = "peak RSS so far" // VmHWM could not be reset: it only grows
		}
		fmt.Printf("\nstream–stream JOIN WITHIN 1 MINUTE: %d clicks ⋈ %d views (%d partitions, %d users), %d results, changelogs on:\n",
			numEvents, numEvents, partitions, numKeys, numEvents)
		fmt.Printf("  hand-written loop (bucketed Go maps): %9.0f events/CPU-s  (cpu %v, wall %v, %s %s)\n", hand, hcpu.Round(time.Millisecond), hwall.Round(time.Millisecond), peak, hrss)
		fmt.Printf("  sqlstream CSAS … JOIN … WITHIN:       %9.0f events/CPU-s  (cpu %v, wall %v, %s %s)\n", eng, ecpu.Round(time.Millisecond), ewall.Round(time.Millisecond), peak, erss)
		fmt.Printf("  ratio engine/hand: %.2f (issue 21: ≥ 0.6); every click joined once with its view, at the view's time.\n", eng/hand)
		fmt.Printf("  RSS is the whole process's: the embedded broker holds every topic in it too; %s after generating the input.\n", base)
	}
}
