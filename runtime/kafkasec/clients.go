package kafkasec

import (
	"time"

	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ClientOptions maps a query's Kafka client settings (props.Clients,
// parsed once with the query's properties) to franz-go options, added
// after the runner's own so a setting set wins over sqlstream's choice.
// Only settings that were set add an option. Under exactly_once_v2 the
// settings its transactions depend on (acks, enable.idempotence,
// isolation.level) are left alone, as Kafka Streams overrides them.
// Values outside franz-go's bounds are clamped to them (see clamp).
func ClientOptions(c props.Clients, exactlyOnce bool) []kgo.Opt {
	var opts []kgo.Opt
	add := func(ok bool, o kgo.Opt) {
		if ok {
			opts = append(opts, o)
		}
	}
	if id := c.Common.ClientID; id.Ok {
		opts = append(opts, kgo.ClientID(id.V))
	}
	opts = append(opts, producerOptions(c.Producer, exactlyOnce)...)
	k := c.Consumer
	opts = append(opts, fetchOptions(k)...)
	add(k.HeartbeatInterval.Ok, kgo.HeartbeatInterval(k.HeartbeatInterval.V))
	add(k.AutoCreateTopics.Ok && k.AutoCreateTopics.V, kgo.AllowAutoTopicCreation())
	if r := k.ReadUncommitted; r.Ok && !exactlyOnce {
		level := kgo.ReadCommitted()
		if r.V {
			level = kgo.ReadUncommitted()
		}
		opts = append(opts, kgo.FetchIsolationLevel(level))
	}
	return opts
}

// ReaderOptions maps the settings of a consumer outside the query's
// group (props.Clients.Restore: the restore consumer, which reads the
// changelogs that restore a task's stores and feed its standbys;
// props.Clients.Global: the global consumer, which loads the query's
// global tables) to franz-go options, added after the reader's own:
// the fetch sizes and wait, the request, metadata, idle and connection
// timeouts and client.id. The settings of a group member
// (heartbeat.interval.ms) and allow.auto.create.topics do not apply;
// isolation.level is not taken either: those readers always read
// committed, so a store never holds an aborted write.
func ReaderOptions(k props.ConsumerSettings, common props.CommonSettings) []kgo.Opt {
	var opts []kgo.Opt
	if id := common.ClientID; id.Ok {
		opts = append(opts, kgo.ClientID(id.V))
	}
	return append(opts, fetchOptions(k)...)
}

// fetchOptions are the options every consumer takes: what a fetch asks
// for and how the connections behave.
func fetchOptions(k props.ConsumerSettings) []kgo.Opt {
	var opts []kgo.Opt
	add := func(ok bool, o kgo.Opt) {
		if ok {
			opts = append(opts, o)
		}
	}
	add(k.FetchMaxBytes.Ok, kgo.FetchMaxBytes(clamp(k.FetchMaxBytes.V, 1, 1<<30)))
	if k.FetchMaxBytes.Ok && k.FetchMaxBytes.V > 100<<20 {
		// franz-go refuses a fetch bound above the largest response it reads.
		opts = append(opts, kgo.BrokerMaxReadBytes(clamp(k.FetchMaxBytes.V, 1<<10, 1<<30)))
	}
	add(k.PartitionFetchMax.Ok, kgo.FetchMaxPartitionBytes(clamp(k.PartitionFetchMax.V, 1, 1<<30)))
	add(k.FetchMinBytes.Ok, kgo.FetchMinBytes(k.FetchMinBytes.V))
	add(k.FetchMaxWait.Ok, kgo.FetchMaxWait(clamp(k.FetchMaxWait.V, 10*time.Millisecond, time.Hour)))
	add(k.RequestTimeout.Ok, kgo.RequestTimeoutOverhead(clamp(k.RequestTimeout.V, 100*time.Millisecond, 15*time.Minute)))
	add(k.MetadataMaxAge.Ok, kgo.MetadataMaxAge(clamp(k.MetadataMaxAge.V, 10*time.Millisecond, time.Hour)))
	add(k.ConnIdleTimeout.Ok, kgo.ConnIdleTimeout(clamp(k.ConnIdleTimeout.V, 100*time.Millisecond, 15*time.Minute)))
	add(k.ConnectionSetupMax.Ok && k.ConnectionSetupMax.V > 0, kgo.DialTimeout(k.ConnectionSetupMax.V))
	return opts
}

// producerOptions are the producer's part of ClientOptions.
func producerOptions(p props.ProducerSettings, exactlyOnce bool) []kgo.Opt {
	var opts []kgo.Opt
	add := func(ok bool, o kgo.Opt) {
		if ok {
			opts = append(opts, o)
		}
	}
	if !exactlyOnce {
		acks := p.Acks.Ok && p.Acks.V != "all"
		add(p.Acks.Ok, kgo.RequiredAcks(requiredAcks(p.Acks.V)))
		// Kafka's producer turns idempotence off for acks 0 and 1 unless
		// it was asked for (props refuses enable.idempotence=true with them).
		add(acks || (p.Idempotence.Ok && !p.Idempotence.V), kgo.DisableIdempotentWrite())
	}
	add(p.Compression.Ok, kgo.ProducerBatchCompression(compression(p.Compression.V)))
	add(p.Linger.Ok, kgo.ProducerLinger(clamp(p.Linger.V, 0, time.Minute)))
	batch := clamp(p.BatchBytes.V, 512, 1<<30)
	add(p.BatchBytes.Ok, kgo.ProducerBatchMaxBytes(batch))
	if p.MaxRequestBytes.Ok {
		// franz-go refuses a request bound below its batch bound.
		floor := int32(1 << 10)
		if p.BatchBytes.Ok {
			floor = max(floor, batch)
		}
		opts = append(opts, kgo.BrokerMaxWriteBytes(clamp(p.MaxRequestBytes.V, floor, 1<<30)))
	}
	add(p.DeliveryTimeout.Ok && p.DeliveryTimeout.V > 0, kgo.RecordDeliveryTimeout(max(p.DeliveryTimeout.V, time.Second)))
	add(p.Retries.Ok, kgo.RecordRetries(p.Retries.V))
	add(p.RequestTimeout.Ok, kgo.ProduceRequestTimeout(max(p.RequestTimeout.V, 100*time.Millisecond)))
	return opts
}

func requiredAcks(v string) kgo.Acks {
	switch v {
	case "0":
		return kgo.NoAck()
	case "1":
		return kgo.LeaderAck()
	}
	return kgo.AllISRAcks()
}

func compression(v string) kgo.CompressionCodec {
	switch v {
	case "gzip":
		return kgo.GzipCompression()
	case "snappy":
		return kgo.SnappyCompression()
	case "lz4":
		return kgo.Lz4Compression()
	case "zstd":
		return kgo.ZstdCompression()
	}
	return kgo.NoCompression()
}

// clamp bounds a setting Kafka accepts to what franz-go accepts (its
// client refuses to start otherwise: batches of at least 512 bytes,
// requests of at least 1 KiB, a linger of at most a minute, …).
func clamp[T int32 | time.Duration](v, lo, hi T) T {
	return min(max(v, lo), hi)
}
