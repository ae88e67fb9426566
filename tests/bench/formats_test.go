package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	goruntime "runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	hamba "github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/types"
)

// fmtEvents is how many page views each format's input holds.
const fmtEvents = 300_000

// formatEnv is the broker, an external registry (franz-go's srfake over
// HTTP, as a Confluent one would be) and one input topic per format.
type formatEnv struct {
	*env
	reg  *srfake.Registry
	want int64 // product views: records passing the CSAS filter
}

var pageViewValueColumns = []types.Column{
	{Name: "PAGE", Type: types.StringType}, {Name: "MS", Type: types.BigintType}, {Name: "AGENT", Type: types.StringType},
}

// generateFormat writes fmtEvents page views to "pv-<format>" in the
// format's wire form (the schema registered under pv-<format>-value).
func (e *formatEnv) generateFormat(b *testing.B, f string) {
	topic := "pv-" + strings.ToLower(f)
	if _, err := e.adm.CreateTopic(context.Background(), partitions, 1, nil, topic); err != nil {
		b.Fatal(err)
	}
	client, err := format.NewRegistryClient(format.RegistryConfig{URLs: []string{e.reg.URL()}})
	if err != nil {
		b.Fatal(err)
	}
	codec, err := format.NewValueCodec(format.Spec{Name: f, Registry: client, Subject: format.ValueSubject(topic)}, pageViewValueColumns)
	if err != nil {
		b.Fatal(err)
	}
	e.want = 0
	e.produceN(b, topic, fmtEvents, func(i int) *kgo.Record {
		user := "user_" + strconv.Itoa(i%numKeys)
		page := "/home"
		if i%2 == 0 {
			page = "/product/" + strconv.Itoa(i%997)
			e.want++
		}
		v, err := codec.Encode(nil, []any{page, 1_700_000_000_000 + int64(i), "Mozilla/5.0 (X11; Linux)"})
		if err != nil {
			b.Fatal(err)
		}
		return &kgo.Record{Key: []byte(user), Value: v}
	})
}

// formatQuery runs sql (the source is pv_<format>) as a persistent query
// on a fresh engine using the registry, until sink holds want records or,
// for a table (whose updates collapse per key within a commit, as Kafka
// Streams' cache forwards them), until the query has committed want
// input records.
func (e *formatEnv) formatQuery(b *testing.B, f, sql, sink string, want int64, table bool) {
	ctx := context.Background()
	eng, err := runtime.New(ctx, runtime.WithBootstrap(e.b.Addrs()), runtime.WithDataDir(b.TempDir()),
		runtime.WithServiceID("fmt_"+strings.ToLower(sink)+"_"), runtime.WithLogger(slog.New(slog.DiscardHandler)),
		runtime.WithProperties(map[string]string{"ksql.schema.registry.url": e.reg.URL()}))
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	lf := strings.ToLower(f)
	ents, err := eng.Execute(ctx, api.KsqlRequest{
		Ksql: fmt.Sprintf(`CREATE STREAM pv_%s (USER_ID VARCHAR KEY, PAGE VARCHAR, MS BIGINT, AGENT VARCHAR)
		         WITH (KAFKA_TOPIC='pv-%s', VALUE_FORMAT='%s'); %s`, lf, lf, f, sql),
		StreamsProperties: map[string]any{"auto.offset.reset": "earliest"},
	})
	if err != nil {
		b.Fatal(err)
	}
	if table {
		waitCommitted(b, e.adm, "fmt_"+strings.ToLower(sink)+"_query_"+queryID(ents), "pv-"+lf, want)
		return
	}
	e.waitFor(b, sink, want)
}

// measureN runs fn and returns events (n) per CPU-second. The garbage
// of what ran before (the generator, the previous job's engine) is
// collected first, so its collection is not counted in fn's CPU time: on
// the shared machine that moved a job's figure by ±20% from run to run.
func measureN(n int64, fn func()) float64 {
	goruntime.GC()
	cpu0 := cpuTime()
	fn()
	return float64(n) / (cpuTime() - cpu0).Seconds()
}

// measureLabeled is measureN with fn (and the goroutines it starts, the
// engine's tasks) under pprof labels format and job, so one CPU profile of
// the benchmark splits by them: go tool pprof -tagfocus job=groupby.
func measureLabeled(n int64, f, job string, fn func()) float64 {
	var r float64
	pprof.Do(context.Background(), pprof.Labels("format", f, "job", job), func(context.Context) { r = measureN(n, fn) })
	return r
}

// rowCodec is a hand loop's decoding and encoding of page views with a
// format's usual Go library (encoding/json, hamba/avro, protobuf-go
// dynamicpb), the Confluent header by franz-go's sr.ConfluentHeader.
type rowCodec struct {
	decode func(b []byte) (pageView, error)
	encode func(p productView) ([]byte, error)
	count  func(n int64) ([]byte, error) // a GROUP BY's {N} value
}

func (e *formatEnv) libraryCodec(b *testing.B, f string) rowCodec {
	topic := "pv-" + strings.ToLower(f)
	cl, err := sr.NewClient(sr.URLs(e.reg.URL()))
	if err != nil {
		b.Fatal(err)
	}
	var h sr.ConfluentHeader
	switch f {
	case format.Avro:
		ss, err := cl.SchemaByVersion(context.Background(), topic+"-value", -1)
		if err != nil {
			b.Fatal(err)
		}
		in := hamba.MustParse(ss.Schema.Schema)
		out := hamba.MustParse(`{"type":"record","name":"ProductView","fields":[{"name":"PAGE","type":["null","string"]},{"name":"DOUBLE_MS","type":["null","long"]},{"name":"AGENT","type":["null","string"]}]}`)
		type avroIn struct {
			Page  *string `avro:"PAGE"`
			MS    *int64  `avro:"MS"`
			Agent *string `avro:"AGENT"`
		}
		type avroOut struct {
			Page     *string `avro:"PAGE"`
			DoubleMS *int64  `avro:"DOUBLE_MS"`
			Agent    *string `avro:"AGENT"`
		}
		cnt := hamba.MustParse(countAvro)
		cntID := e.registerCount(b, cl, topic, sr.TypeAvro, countAvro)
		return rowCodec{
			count: func(n int64) ([]byte, error) {
				v, err := hamba.Marshal(cnt, struct {
					N *int64 `avro:"N"`
				}{&n})
				if err != nil {
					return nil, err
				}
				hdr, _ := h.AppendEncode(make([]byte, 0, 5+len(v)), cntID, nil)
				return append(hdr, v...), nil
			},
			decode: func(v []byte) (pageView, error) {
				var r avroIn
				_, payload, err := h.DecodeID(v)
				if err == nil {
					err = hamba.Unmarshal(in, payload, &r)
				}
				if err != nil || r.Page == nil || r.MS == nil || r.Agent == nil {
					return pageView{}, fmt.Errorf("bad record: %v", err)
				}
				return pageView{Page: *r.Page, MS: *r.MS, Agent: *r.Agent}, nil
			},
			encode: func(p productView) ([]byte, error) {
				v, err := hamba.Marshal(out, avroOut{Page: &p.Page, DoubleMS: &p.DoubleMS, Agent: &p.Agent})
				if err != nil {
					return nil, err
				}
				hdr, _ := h.AppendEncode(make([]byte, 0, 5+len(v)), ss.ID, nil)
				return append(hdr, v...), nil
			},
		}
	case format.Protobuf:
		ss, err := cl.SchemaByVersion(context.Background(), topic+"-value", -1)
		if err != nil {
			b.Fatal(err)
		}
		md := compileFirstMessage(b, ss.Schema.Schema)
		fPage, fMS, fAgent := md.Fields().ByName("PAGE"), md.Fields().ByName("MS"), md.Fields().ByName("AGENT")
		cmd := compileFirstMessage(b, countProto)
		cntID, fN := e.registerCount(b, cl, topic, sr.TypeProtobuf, countProto), cmd.Fields().ByName("N")
		return rowCodec{
			count: func(n int64) ([]byte, error) {
				m := dynamicpb.NewMessage(cmd)
				m.Set(fN, protoreflect.ValueOfInt64(n))
				hdr, _ := h.AppendEncode(nil, cntID, []int{0})
				return proto.MarshalOptions{}.MarshalAppend(hdr, m)
			},
			decode: func(v []byte) (pageView, error) {
				_, rest, err := h.DecodeID(v)
				if err != nil {
					return pageView{}, err
				}
				_, payload, err := h.DecodeIndex(rest, 0)
				if err != nil {
					return pageView{}, err
				}
				m := dynamicpb.NewMessage(md)
				if err := proto.Unmarshal(payload, m); err != nil {
					return pageView{}, err
				}
				return pageView{Page: m.Get(fPage).String(), MS: m.Get(fMS).Int(), Agent: m.Get(fAgent).String()}, nil
			},
			encode: func(p productView) ([]byte, error) {
				m := dynamicpb.NewMessage(md) // the input's message: PAGE, MS (holding DOUBLE_MS), AGENT
				m.Set(fPage, protoreflect.ValueOfString(p.Page))
				m.Set(fMS, protoreflect.ValueOfInt64(p.DoubleMS))
				m.Set(fAgent, protoreflect.ValueOfString(p.Agent))
				hdr, _ := h.AppendEncode(nil, ss.ID, []int{0})
				return proto.MarshalOptions{}.MarshalAppend(hdr, m)
			},
		}
	}
	return rowCodec{
		decode: func(v []byte) (pageView, error) {
			var pv pageView
			err := json.Unmarshal(v, &pv)
			return pv, err
		},
		encode: func(p productView) ([]byte, error) { return json.Marshal(p) },
		count:  func(n int64) ([]byte, error) { return json.Marshal(countValue{N: n}) },
	}
}

// countAvro and countProto are the hand GROUP BY's value schemas, as the
// engine registers them for the table's N column.
const (
	countAvro  = `{"type":"record","name":"Count","fields":[{"name":"N","type":["null","long"],"default":null}]}`
	countProto = `syntax = "proto3"; message Count { int64 N = 1; }`
)

// registerCount registers the hand GROUP BY's value schema under its
// output's subject and returns its id.
func (e *formatEnv) registerCount(b *testing.B, cl *sr.Client, topic string, t sr.SchemaType, schema string) int {
	ss, err := cl.CreateSchema(context.Background(), "handcnt-"+strings.TrimPrefix(topic, "pv-")+"-value", sr.Schema{Schema: schema, Type: t})
	if err != nil {
		b.Fatal(err)
	}
	return ss.ID
}

func compileFirstMessage(b *testing.B, text string) protoreflect.MessageDescriptor {
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(map[string]string{"s.proto": text})})}
	fs, err := c.Compile(context.Background(), "s.proto")
	if err != nil {
		b.Fatalf("compile %q: %v", text, err)
	}
	return fs[0].Messages().Get(0)
}

// formatFilterLoop is the CSAS job by hand with the format's library.
func (e *formatEnv) formatFilterLoop(b *testing.B, f string) {
	rc := e.libraryCodec(b, f)
	e.formatHandLoop(b, f, "hand-", e.want, func(pv pageView, _ []byte) ([]byte, error) {
		if !strings.HasPrefix(pv.Page, "/product/") {
			return nil, nil
		}
		return rc.encode(productView{Page: pv.Page, DoubleMS: pv.MS * 2, Agent: pv.Agent})
	}, rc)
}

// formatCountLoop is the GROUP BY job by hand with the format's library:
// counts by user in a map, one output per input. Unlike the engine it
// keeps them in memory only, no store and no changelog.
func (e *formatEnv) formatCountLoop(b *testing.B, f string) {
	rc := e.libraryCodec(b, f)
	counts := make(map[string]int64)
	e.formatHandLoop(b, f, "handcnt-", fmtEvents, func(_ pageView, key []byte) ([]byte, error) {
		counts[string(key)]++
		return rc.count(counts[string(key)])
	}, rc)
}

// formatHandLoop consumes pv-<format> with franz-go, decodes each value
// with rc and produces step's value (none when nil) under the record's
// key to <prefix><format>, until want records are out.
func (e *formatEnv) formatHandLoop(b *testing.B, f, prefix string, want int64, step func(pv pageView, key []byte) ([]byte, error), rc rowCodec) {
	in, out := "pv-"+strings.ToLower(f), prefix+strings.ToLower(f)
	if _, err := e.adm.CreateTopic(context.Background(), partitions, 1, nil, out); err != nil {
		b.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(e.b.Addrs()...), kgo.ConsumerGroup(out),
		kgo.ConsumeTopics(in), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.RecordPartitioner(kgo.StickyKeyPartitioner(nil)), kgo.ProducerLinger(5*time.Millisecond),
		engineCompression())
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	ctx := context.Background()
	var produced int64
	for produced < want {
		fs := cl.PollRecords(ctx, 10_000)
		fs.EachRecord(func(r *kgo.Record) {
			pv, err := rc.decode(r.Value)
			if err != nil {
				return
			}
			v, err := step(pv, r.Key)
			if err != nil {
				b.Fatal(err)
			}
			if v != nil {
				cl.Produce(ctx, &kgo.Record{Topic: out, Key: r.Key, Value: v, Timestamp: r.Timestamp}, nil)
				produced++
			}
		})
		if err := cl.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		cl.CommitUncommittedOffsets(ctx)
	}
	e.waitFor(b, out, want)
}

// BenchmarkFormats is issue 17's benchmark: CSAS … WHERE and COUNT(*)
// GROUP BY over the same page views in JSON, AVRO and PROTOBUF (sinks in
// the input's format), against hand-written franz-go loops doing each job
// with the format's usual library (hand loop: the CSAS's; hand GROUP: the
// GROUP BY's, counts in a map). The broker runs in a child process, so it
// prints two tables: events per CPU-second of the engine (or hand loop)
// alone, as make nexmark counts, and of engine and broker together, as
// the single sqlstream process with its embedded broker would spend them.
// Run with -benchtime 1x.
// BENCH_FORMAT_JOBS (a comma list of hand, handgroup, csas, groupby; all
// unless set) runs only those jobs, for a profile of one.
func BenchmarkFormats(b *testing.B) {
	jobs := os.Getenv("BENCH_FORMAT_JOBS")
	run := func(job string, fn func()) {
		if jobs == "" || slices.Contains(strings.Split(jobs, ","), job) {
			fn()
		}
	}
	be, child := setupBrokerProcess(b)
	e := &formatEnv{env: be, reg: srfake.New()}
	defer e.b.Close()
	defer e.cl.Close()
	defer e.reg.Close()
	formats := []string{format.JSON, format.Avro, format.Protobuf}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		type row struct{ csas, group, hand, handGroup float64 }
		engine, whole := map[string]row{}, map[string]row{}
		// split runs fn under labels and returns its events per
		// CPU-second: this process's alone, and with the broker's.
		split := func(f, job string, fn func()) (float64, float64) {
			var own, brokerCPU time.Duration
			measureLabeled(fmtEvents, f, job, func() {
				c0, b0 := cpuTime(), child.cpu(b)
				fn()
				own, brokerCPU = cpuTime()-c0, child.cpu(b)-b0
			})
			return fmtEvents / own.Seconds(), fmtEvents / (own + brokerCPU).Seconds()
		}
		for _, f := range formats {
			e.generateFormat(b, f)
			lf := strings.ToLower(f)
			var r, w row
			run("hand", func() {
				r.hand, w.hand = split(f, "hand", func() { e.formatFilterLoop(b, f) })
			})
			run("handgroup", func() {
				r.handGroup, w.handGroup = split(f, "handgroup", func() { e.formatCountLoop(b, f) })
			})
			run("csas", func() {
				r.csas, w.csas = split(f, "csas", func() {
					e.formatQuery(b, f, fmt.Sprintf(`CREATE STREAM out_%s AS SELECT USER_ID, PAGE, MS * 2 AS DOUBLE_MS, AGENT
					  FROM pv_%s WHERE PAGE LIKE '/product/%%' EMIT CHANGES;`, lf, lf), "OUT_"+strings.ToUpper(lf), e.want, false)
				})
			})
			run("groupby", func() {
				r.group, w.group = split(f, "groupby", func() {
					e.formatQuery(b, f, fmt.Sprintf(`CREATE TABLE cnt_%s AS SELECT USER_ID, COUNT(*) AS N FROM pv_%s GROUP BY USER_ID EMIT CHANGES;`, lf, lf),
						"CNT_"+strings.ToUpper(lf), fmtEvents, true)
				})
			})
			engine[f], whole[f] = r, w
			b.ReportMetric(r.csas, lf+"-csas-events/cpu-s")
			b.ReportMetric(r.group, lf+"-groupby-events/cpu-s")
			b.ReportMetric(r.hand, lf+"-hand-events/cpu-s")
			b.ReportMetric(r.handGroup, lf+"-hand-groupby-events/cpu-s")
		}
		for _, t := range []struct {
			title string
			rows  map[string]row
		}{{"engine or hand loop alone, broker excluded", engine}, {"engine or hand loop and the broker together", whole}} {
			fmt.Printf("\n%d page views, %d partitions, %d keys, events per CPU-second (%s):\n", fmtEvents, partitions, numKeys, t.title)
			fmt.Printf("  %-9s %12s %12s %12s %12s %10s %10s\n", "format", "CSAS", "GROUP BY", "hand loop", "hand GROUP", "CSAS/JSON", "GROUP/JSON")
			for _, f := range formats {
				r, j := t.rows[f], t.rows[format.JSON]
				fmt.Printf("  %-9s %12.0f %12.0f %12.0f %12.0f %10.2f %10.2f\n", f, r.csas, r.group, r.hand, r.handGroup, r.csas/j.csas, r.group/j.group)
			}
		}
	}
}
