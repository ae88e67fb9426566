package tests

import (
	be "encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	hamba "github.com/hamba/avro/v2"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// TestChangelogsReadByStandardDeserializers: the changelog records of an
// aggregate store (AVRO non-windowed, PROTOBUF tumbling) and of a join's
// table store carry the serialized value alone, Confluent's wire header
// first, so hamba/avro and protobuf-go (dynamicpb) read them by the
// record's schema id and find the accumulators and the table's row; the
// store's timestamp is the record's (the input records' times, not the
// producer's clock). After the server loses its local state the stores
// are rebuilt from those records: the pull queries answer as before, and
// a new bid continues the counts and still finds the table's row.
func TestChangelogsReadByStandardDeserializers(t *testing.T) {
	t.Parallel()
	fake, n := externalRegistry(t)
	createTopic(t, n.Kafka, "cbids", 1)
	createTopic(t, n.Kafka, "cpbids", 1)
	avroID := registerSchema(t, fake, "cbids-value", sr.TypeAvro, bidAvro)
	pbID := registerSchema(t, fake, "cpbids-value", sr.TypeProtobuf, bidProto)
	bidSchema, md := hamba.MustParse(bidAvro), compileMessage(t, bidProto)
	var h sr.ConfluentHeader
	// bid produces one bid to both streams at ts (epoch millis), through
	// a client of the node's broker as it is now (a restart moves it).
	bid := func(ts, auction, price int64, bidder string) {
		t.Helper()
		av, _ := h.AppendEncode(nil, avroID, nil)
		av, err := appendAvro(av, bidSchema, auction, price, bidder)
		if err != nil {
			t.Fatal(err)
		}
		m := dynamicpb.NewMessage(md)
		m.Set(md.Fields().ByName("auction"), protoreflect.ValueOfInt64(auction))
		m.Set(md.Fields().ByName("price"), protoreflect.ValueOfInt64(price))
		m.Set(md.Fields().ByName("bidder"), protoreflect.ValueOfString(bidder))
		pb, _ := h.AppendEncode(nil, pbID, []int{0})
		if pb, err = (proto.MarshalOptions{}).MarshalAppend(pb, m); err != nil {
			t.Fatal(err)
		}
		at := time.UnixMilli(ts)
		if err := kafkaClient(t, n.Kafka).ProduceSync(timeoutCtx(t), &kgo.Record{Topic: "cbids", Value: av, Timestamp: at},
			&kgo.Record{Topic: "cpbids", Value: pb, Timestamp: at}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}

	n.mustKsql(`CREATE STREAM cbids WITH (KAFKA_TOPIC='cbids', KEY_FORMAT='KAFKA', VALUE_FORMAT='AVRO');
	  CREATE STREAM cpbids WITH (KAFKA_TOPIC='cpbids', KEY_FORMAT='KAFKA', VALUE_FORMAT='PROTOBUF');
	  CREATE TABLE cbidders (name STRING PRIMARY KEY, city STRING) WITH (KAFKA_TOPIC='cbidders', KEY_FORMAT='KAFKA', VALUE_FORMAT='AVRO', PARTITIONS=1);
	  INSERT INTO cbidders (name, city) VALUES ('ann', 'Oslo');
	  SET 'auto.offset.reset'='earliest';
	  CREATE TABLE ctotals AS SELECT auction, COUNT(*) AS n, SUM(price) AS total FROM cbids GROUP BY auction;
	  CREATE TABLE cbest AS SELECT auction, COUNT(*) AS n, MAX(price) AS best FROM cpbids WINDOW TUMBLING (SIZE 1 HOUR) GROUP BY auction;
	  CREATE STREAM ccities AS SELECT b.bidder AS bidder, u.city AS city, b.price AS price FROM cbids b JOIN cbidders u ON b.bidder = u.name;`)

	// The join's table store: the row in Avro, its time the record's.
	joinLog := internalTopic(t, n, "CSAS_CCITIES_", "-KafkaTopic_Right-Reduce-changelog")
	r := consumeRecords(t, n, joinLog, 1)[0]
	if got := avroRecord(t, fake, joinLog, r.Value); string(r.Key) != "ann" || fmt.Sprint(got["CITY"]) != "map[string:Oslo]" && fmt.Sprint(got["CITY"]) != "Oslo" {
		t.Errorf("%s holds %q → %v, want ann's row (CITY Oslo)", joinLog, r.Key, got)
	}
	if r.Timestamp.UnixMilli() <= 0 {
		t.Errorf("%s record timestamp %v, want the row's time", joinLog, r.Timestamp)
	}

	bid(1000, 1, 5, "ann")
	bid(2000, 1, 50, "bob")
	bid(3000, 2, 30, "ann")

	// The aggregate stores: the accumulators by field name (COUNT's
	// before SUM's and MAX's), last record per key.
	totalsLog := internalTopic(t, n, "CTAS_CTOTALS_", "-Aggregate-Aggregate-Materialize-changelog")
	eventually(t, totalsLog+" read with hamba/avro", func() error {
		return lastPerKey(t, n, totalsLog, "[1 → 2 55 @2000 2 → 1 30 @3000]", func(r *kgo.Record) (string, error) {
			return accumulators(avroRecord(t, fake, totalsLog, r.Value)), nil
		})
	})
	bestLog := internalTopic(t, n, "CTAS_CBEST_", "-Aggregate-Aggregate-Materialize-changelog")
	eventually(t, bestLog+" read with protobuf-go", func() error {
		return lastPerKey(t, n, bestLog, "[1 → 2 50 @2000 2 → 1 30 @3000]", func(r *kgo.Record) (string, error) {
			m, err := protoRecord(t, fake, r.Value)
			if err != nil {
				return "", err
			}
			return accumulators(m), nil
		})
	})

	pulls := []string{"SELECT * FROM ctotals WHERE auction = 1;", "SELECT * FROM ctotals WHERE auction = 2;",
		"SELECT auction, n, best FROM cbest WHERE auction = 1;", "SELECT auction, n, best FROM cbest WHERE auction = 2;"}
	answers := func() string {
		var out []string
		for _, q := range pulls {
			out = append(out, fmt.Sprint(mustPull(t, n, q)))
		}
		return strings.Join(out, " ")
	}
	const before = "[[1 2 55]] [[2 1 30]] [[1 2 50]] [[2 1 30]]"
	eventually(t, "the pull queries", func() error {
		if got := answers(); got != before {
			return fmt.Errorf("got %s, want %s", got, before)
		}
		return nil
	})
	consumeValues(t, n, "CCITIES", 2)

	n.stop()
	if err := os.RemoveAll(filepath.Join(n.dataDir, "state")); err != nil {
		t.Fatal(err)
	}
	n.start()
	eventually(t, "the pull queries after restoring from the changelogs", func() error {
		if got := answers(); got != before {
			return fmt.Errorf("got %s, want %s", got, before)
		}
		return nil
	})
	bid(4000, 1, 7, "ann")
	const after = "[[1 3 62]] [[2 1 30]] [[1 3 50]] [[2 1 30]]"
	eventually(t, "the counts go on from the restored accumulators", func() error {
		if got := answers(); got != after {
			return fmt.Errorf("got %s, want %s", got, after)
		}
		return nil
	})
	var cities []string
	for _, v := range consumeValues(t, n, "CCITIES", 3) {
		row := avroRecord(t, fake, "CCITIES", v)
		cities = append(cities, fmt.Sprint(row["CITY"], "/", row["PRICE"]))
	}
	if got := cities[2]; !strings.Contains(got, "Oslo") || !strings.Contains(got, "7") {
		t.Errorf("CCITIES after the restore: %v, want the new bid (7) with ann's city from the restored table store", cities)
	}
}

// appendAvro appends a Bid's Avro binary encoding.
func appendAvro(b []byte, schema hamba.Schema, auction, price int64, bidder string) ([]byte, error) {
	v, err := hamba.Marshal(schema, map[string]any{"auction": auction, "price": price, "bidder": bidder})
	return append(b, v...), err
}

// avroRecord decodes a value in Confluent's wire format with hamba/avro
// and the schema its id names.
func avroRecord(t *testing.T, fake *srfake.Registry, topic string, value []byte) map[string]any {
	t.Helper()
	_, s := schemaOf(t, fake, value)
	if s.Type != sr.TypeAvro {
		t.Fatalf("%s value %q: schema of type %v, want Avro", topic, value, s.Type)
	}
	var out map[string]any
	if err := hamba.Unmarshal(hamba.MustParse(s.Schema), value[5:], &out); err != nil {
		t.Fatalf("hamba/avro cannot read %s's value %q with %s: %v", topic, value, s.Schema, err)
	}
	return out
}

// protoRecord decodes a value in Confluent's protobuf wire format with
// protobuf-go (dynamicpb) and the schema its id names, as field name →
// value (a wrapper message as its value).
func protoRecord(t *testing.T, fake *srfake.Registry, value []byte) (map[string]any, error) {
	t.Helper()
	_, s := schemaOf(t, fake, value)
	if s.Type != sr.TypeProtobuf {
		return nil, fmt.Errorf("value %q: schema of type %v, want Protobuf", value, s.Type)
	}
	var h sr.ConfluentHeader
	_, rest, _ := h.DecodeID(value)
	idx, payload, err := h.DecodeIndex(rest, 0)
	if err != nil {
		return nil, err
	}
	md := compileMessage(t, s.Schema)
	for _, i := range idx[1:] {
		md = md.Messages().Get(i)
	}
	if idx[0] != 0 {
		return nil, fmt.Errorf("message index %v", idx)
	}
	m := dynamicpb.NewMessage(md)
	if err := proto.Unmarshal(payload, m); err != nil {
		return nil, fmt.Errorf("protobuf-go cannot read %q: %v", value, err)
	}
	out := map[string]any{}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() != nil {
			v = v.Message().Get(fd.Message().Fields().ByName("value"))
		}
		out[string(fd.Name())] = v.Interface()
		return true
	})
	return out, nil
}

// accumulators lists the values of a store value's KSQL_AGG_* fields in
// the order of their names (a nullable Avro union as its value).
func accumulators(row map[string]any) string {
	var names []string
	for name := range row {
		if strings.HasPrefix(name, "KSQL_AGG_") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var out []string
	for _, name := range names {
		v := row[name]
		if u, ok := v.(map[string]any); ok {
			for _, x := range u {
				v = x
			}
		}
		out = append(out, fmt.Sprint(v))
	}
	return strings.Join(out, " ")
}

// lastPerKey reads topic to its end and checks the last record of each
// key (its leading 8 bytes, a KAFKA BIGINT: a windowed key's window
// follows) as "key → decoded @timestamp", in key order, against want.
func lastPerKey(t *testing.T, n *node, topic, want string, decode func(*kgo.Record) (string, error)) error {
	t.Helper()
	ends, err := kadm.NewClient(kafkaClient(t, n.Kafka)).ListEndOffsets(timeoutCtx(t), topic)
	if err != nil {
		return err
	}
	end, _ := ends.Lookup(topic, 0)
	last := map[int64]string{}
	if end.Offset > 0 {
		for _, r := range consumeRecords(t, n, topic, int(end.Offset)) {
			if len(r.Key) < 8 {
				return fmt.Errorf("%s key %q", topic, r.Key)
			}
			v, err := decode(r)
			if err != nil {
				return fmt.Errorf("%s: %w", topic, err)
			}
			last[int64(be.BigEndian.Uint64(r.Key))] = fmt.Sprintf("%s @%d", v, r.Timestamp.UnixMilli())
		}
	}
	var got []string
	keys := make([]int64, 0, len(last))
	for k := range last {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		got = append(got, fmt.Sprintf("%d → %s", k, last[k]))
	}
	if s := fmt.Sprint(got); s != want {
		return fmt.Errorf("got %s, want %s", s, want)
	}
	return nil
}
