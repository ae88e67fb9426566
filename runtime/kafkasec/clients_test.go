package kafkasec

import (
	"reflect"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestClientOptions: each honoured Kafka client setting, as a client
// sets it, reaches the client franz-go builds (read back with OptValue),
// and one left unset adds no option.
func TestClientOptions(t *testing.T) {
	for _, c := range []struct {
		set  map[string]string
		opt  any
		want any
	}{
		{map[string]string{"acks": "1"}, kgo.RequiredAcks, kgo.LeaderAck()},
		{map[string]string{"producer.acks": "0"}, kgo.RequiredAcks, kgo.NoAck()},
		{map[string]string{"acks": "1"}, kgo.DisableIdempotentWrite, true},
		{map[string]string{"enable.idempotence": "false"}, kgo.DisableIdempotentWrite, true},
		{map[string]string{"producer.compression.type": "zstd"}, kgo.ProducerBatchCompression, []kgo.CompressionCodec{kgo.ZstdCompression()}},
		{map[string]string{"compression.type": "gzip"}, kgo.ProducerBatchCompression, []kgo.CompressionCodec{kgo.GzipCompression()}},
		{map[string]string{"ksql.streams.producer.linger.ms": "7"}, kgo.ProducerLinger, 7 * time.Millisecond},
		{map[string]string{"linger.ms": "9", "producer.linger.ms": "3"}, kgo.ProducerLinger, 3 * time.Millisecond},
		{map[string]string{"batch.size": "65536"}, kgo.ProducerBatchMaxBytes, int32(65536)},
		{map[string]string{"batch.size": "100"}, kgo.ProducerBatchMaxBytes, int32(512)},
		{map[string]string{"max.request.size": "2097152"}, kgo.BrokerMaxWriteBytes, int32(2097152)},
		{map[string]string{"delivery.timeout.ms": "30000"}, kgo.RecordDeliveryTimeout, 30 * time.Second},
		{map[string]string{"retries": "4"}, kgo.RecordRetries, int64(4)},
		{map[string]string{"producer.request.timeout.ms": "20000"}, kgo.ProduceRequestTimeout, 20 * time.Second},
		{map[string]string{"consumer.fetch.max.bytes": "1000000"}, kgo.FetchMaxBytes, int32(1000000)},
		{map[string]string{"max.partition.fetch.bytes": "65536"}, kgo.FetchMaxPartitionBytes, int32(65536)},
		{map[string]string{"fetch.min.bytes": "10"}, kgo.FetchMinBytes, int32(10)},
		{map[string]string{"fetch.max.wait.ms": "250"}, kgo.FetchMaxWait, 250 * time.Millisecond},
		{map[string]string{"isolation.level": "read_uncommitted"}, kgo.FetchIsolationLevel, int8(0)},
		{map[string]string{"heartbeat.interval.ms": "1000"}, kgo.HeartbeatInterval, time.Second},
		{map[string]string{"allow.auto.create.topics": "true"}, kgo.AllowAutoTopicCreation, true},
		{map[string]string{"consumer.request.timeout.ms": "20000"}, kgo.RequestTimeoutOverhead, 20 * time.Second},
		{map[string]string{"metadata.max.age.ms": "60000"}, kgo.MetadataMaxAge, time.Minute},
		{map[string]string{"connections.max.idle.ms": "60000"}, kgo.ConnIdleTimeout, time.Minute},
		{map[string]string{"socket.connection.setup.timeout.ms": "3000"}, kgo.DialTimeout, 3 * time.Second},
		{map[string]string{"client.id": "analytics"}, kgo.ClientID, "analytics"},
	} {
		cl := clientWith(t, c.set, false)
		if got := cl.OptValue(c.opt); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: %T %v, want %v", c.set, c.opt, got, c.want)
		}
		cl.Close()
	}
}

// TestClientOptionsUnderExactlyOnce: exactly_once_v2 keeps acks=all,
// idempotence and read_committed whatever was set, as Kafka Streams.
func TestClientOptionsUnderExactlyOnce(t *testing.T) {
	cl := clientWith(t, map[string]string{"acks": "1", "isolation.level": "read_uncommitted", "compression.type": "lz4"}, true)
	defer cl.Close()
	if got := cl.OptValue(kgo.RequiredAcks); got != kgo.AllISRAcks() {
		t.Errorf("acks %v, want all", got)
	}
	if got := cl.OptValue(kgo.DisableIdempotentWrite); got != false {
		t.Errorf("idempotence disabled: %v", got)
	}
	if got := cl.OptValue(kgo.ProducerBatchCompression); !reflect.DeepEqual(got, []kgo.CompressionCodec{kgo.Lz4Compression()}) {
		t.Errorf("compression %v, want lz4", got)
	}
	if n := len(ClientOptions(props.Clients{}, false)); n != 0 {
		t.Errorf("no setting set: %d options", n)
	}
}

func clientWith(t *testing.T, set map[string]string, eos bool) *kgo.Client {
	t.Helper()
	table := props.NewTable()
	for k, v := range set {
		if err := table.CheckOverride(k, v); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := props.NewQueryConfig(table, table.Defaults().Merge(set))
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers("127.0.0.1:1")}, ClientOptions(cfg.Clients, eos)...)...)
	if err != nil {
		t.Fatalf("%v: %v", set, err)
	}
	return cl
}

// TestReaderOptions: the restore and global consumers take their own
// prefix over consumer. and the bare name, and never a setting they do
// not apply (isolation.level: they always read committed).
func TestReaderOptions(t *testing.T) {
	set := map[string]string{"consumer.fetch.max.bytes": "1000000", "restore.consumer.fetch.max.bytes": "2000000",
		"isolation.level": "read_uncommitted", "global.consumer.connections.max.idle.ms": "60000", "client.id": "analytics"}
	table := props.NewTable()
	cfg, err := props.NewQueryConfig(table, table.Defaults().Merge(set))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		k    props.ConsumerSettings
		opt  any
		want any
	}{
		{"restore", cfg.Clients.Restore, kgo.FetchMaxBytes, int32(2000000)},
		{"global", cfg.Clients.Global, kgo.FetchMaxBytes, int32(1000000)},
		{"global", cfg.Clients.Global, kgo.ConnIdleTimeout, time.Minute},
		{"restore", cfg.Clients.Restore, kgo.ClientID, "analytics"},
		{"restore", cfg.Clients.Restore, kgo.FetchIsolationLevel, int8(1)}, // read_committed, as set first
	} {
		opts := append([]kgo.Opt{kgo.SeedBrokers("127.0.0.1:1"), kgo.FetchIsolationLevel(kgo.ReadCommitted())},
			ReaderOptions(c.k, cfg.Clients.Common)...)
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			t.Fatal(err)
		}
		if got := cl.OptValue(c.opt); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %T %v, want %v", c.name, c.opt, got, c.want)
		}
		cl.Close()
	}
}
