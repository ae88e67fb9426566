package props

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Set is a setting's value and whether it was set at all: an unset
// client setting keeps sqlstream's choice (its doc in clients.go says
// which).
type Set[T any] struct {
	V  T
	Ok bool
}

// Clients is what a query's Kafka clients read of the Kafka client
// settings (clients.go), parsed once with the query's other settings.
// A setting is read under the client's own prefix first
// (ksql.streams.producer.linger.ms), then bare (ksql.streams.linger.ms),
// as Kafka Streams reads it; each consumer's prefix (main.consumer.,
// restore.consumer., global.consumer.) before consumer., as Kafka
// Streams' getMainConsumerConfigs, getRestoreConsumerConfigs and
// getGlobalConsumerConfigs override the plain consumer settings.
type Clients struct {
	Producer ProducerSettings
	// Consumer is the main consumer's: the query's group member, which
	// reads its sources and repartition topics.
	Consumer ConsumerSettings
	// Restore is the restore consumer's: it reads the changelogs that
	// restore a task's stores and feed its standby replicas.
	Restore ConsumerSettings
	// Global is the global consumer's: it loads and follows the topics
	// of the query's global tables.
	Global ConsumerSettings
	Common CommonSettings
}

// ProducerSettings are the honoured producer settings.
type ProducerSettings struct {
	Acks            Set[string] // acks: "all", "1" or "0" (-1 read as all)
	Idempotence     Set[bool]   // enable.idempotence
	Compression     Set[string] // compression.type
	Linger          Set[time.Duration]
	BatchBytes      Set[int32] // batch.size
	MaxRequestBytes Set[int32] // max.request.size
	DeliveryTimeout Set[time.Duration]
	Retries         Set[int]
	RequestTimeout  Set[time.Duration] // request.timeout.ms, the producer's
}

// ConsumerSettings are the honoured consumer settings.
type ConsumerSettings struct {
	MaxPollRecords     Set[int]
	FetchMaxBytes      Set[int32]
	PartitionFetchMax  Set[int32] // max.partition.fetch.bytes
	FetchMinBytes      Set[int32]
	FetchMaxWait       Set[time.Duration]
	ReadUncommitted    Set[bool] // isolation.level=read_uncommitted
	HeartbeatInterval  Set[time.Duration]
	AutoCreateTopics   Set[bool] // allow.auto.create.topics
	RequestTimeout     Set[time.Duration]
	MetadataMaxAge     Set[time.Duration]
	ConnIdleTimeout    Set[time.Duration]
	ConnectionSetupMax Set[time.Duration] // socket.connection.setup.timeout.ms
}

// CommonSettings are the honoured settings of every client.
type CommonSettings struct {
	ClientID Set[string]
}

// clientReader reads a client setting of one role's prefixes.
type clientReader struct {
	p        *Parser
	prefixes []string
}

// raw is the setting's value under the first prefix that has it.
func (r clientReader) raw(name string) (string, string, bool) {
	for _, pre := range r.prefixes {
		full := "ksql.streams." + pre + name
		if v, ok := r.p.props[full]; ok {
			return full, strings.TrimSpace(v), true
		}
	}
	return "", "", false
}

// check validates a value read, keeping the parser's first error.
func (r clientReader) check(full, v string) bool {
	err := r.p.t.Check(full, v)
	if err != nil && r.p.err == nil {
		r.p.err = err
	}
	return err == nil
}

func (r clientReader) str(name string) Set[string] {
	full, v, ok := r.raw(name)
	if !ok || !r.check(full, v) {
		return Set[string]{}
	}
	if d, _ := r.p.t.Lookup(full); d != nil && d.kind == kindEnum {
		v = strings.ToLower(v)
	}
	return Set[string]{v, true}
}

func (r clientReader) int(name string) Set[int64] {
	full, v, ok := r.raw(name)
	if !ok || !r.check(full, v) {
		return Set[int64]{}
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	return Set[int64]{n, true}
}

func (r clientReader) bool(name string) Set[bool] {
	full, v, ok := r.raw(name)
	if !ok || !r.check(full, v) {
		return Set[bool]{}
	}
	b, _ := strconv.ParseBool(v)
	return Set[bool]{b, true}
}

func (r clientReader) int32(name string) Set[int32] {
	n := r.int(name)
	return Set[int32]{int32(n.V), n.Ok}
}

func (r clientReader) millis(name string) Set[time.Duration] {
	n := r.int(name)
	return Set[time.Duration]{time.Duration(n.V) * time.Millisecond, n.Ok}
}

// parseClients reads the honoured client settings; an acks of 0 or 1
// with enable.idempotence=true is an Error, as Kafka's producer refuses
// it.
func parseClients(p *Parser) Clients {
	prod := clientReader{p, []string{"producer.", ""}}
	cons := clientReader{p, []string{"main.consumer.", "consumer.", ""}}
	restore := clientReader{p, []string{"restore.consumer.", "consumer.", ""}}
	global := clientReader{p, []string{"global.consumer.", "consumer.", ""}}
	c := Clients{Common: CommonSettings{ClientID: clientReader{p, []string{""}}.str("client.id")}}
	c.Producer = ProducerSettings{Acks: prod.str("acks"), Idempotence: prod.bool("enable.idempotence"),
		Compression: prod.str("compression.type"), Linger: prod.millis("linger.ms"),
		BatchBytes: prod.int32("batch.size"), MaxRequestBytes: prod.int32("max.request.size"),
		DeliveryTimeout: prod.millis("delivery.timeout.ms"), RequestTimeout: prod.millis("request.timeout.ms")}
	if n := prod.int("retries"); n.Ok {
		c.Producer.Retries = Set[int]{int(n.V), true}
	}
	if c.Producer.Acks.V == "-1" {
		c.Producer.Acks.V = "all"
	}
	c.Consumer, c.Restore, c.Global = parseConsumer(cons), readerSettings(parseConsumer(restore)), readerSettings(parseConsumer(global))
	checkIdempotence(p, c.Producer)
	return c
}

func parseConsumer(r clientReader) ConsumerSettings {
	c := ConsumerSettings{FetchMaxBytes: r.int32("fetch.max.bytes"), PartitionFetchMax: r.int32("max.partition.fetch.bytes"),
		FetchMinBytes: r.int32("fetch.min.bytes"), FetchMaxWait: r.millis("fetch.max.wait.ms"),
		HeartbeatInterval: r.millis("heartbeat.interval.ms"), AutoCreateTopics: r.bool("allow.auto.create.topics"),
		RequestTimeout: r.millis("request.timeout.ms"), MetadataMaxAge: r.millis("metadata.max.age.ms"),
		ConnIdleTimeout: r.millis("connections.max.idle.ms"), ConnectionSetupMax: r.millis("socket.connection.setup.timeout.ms")}
	if n := r.int("max.poll.records"); n.Ok {
		c.MaxPollRecords = Set[int]{int(n.V), true}
	}
	if l := r.str("isolation.level"); l.Ok {
		c.ReadUncommitted = Set[bool]{l.V == "read_uncommitted", true}
	}
	return c
}

// readerSettings are the settings a consumer outside the group (the
// restore and global consumers) applies: not those of a group member
// (heartbeat.interval.ms), of a poll loop (max.poll.records: a reader
// applies whole fetches) or of a query's sources
// (allow.auto.create.topics), nor isolation.level (a reader always reads
// committed, so a store never holds an aborted write).
func readerSettings(c ConsumerSettings) ConsumerSettings {
	c.HeartbeatInterval, c.AutoCreateTopics, c.ReadUncommitted = Set[time.Duration]{}, Set[bool]{}, Set[bool]{}
	c.MaxPollRecords = Set[int]{}
	return c
}

// checkIdempotence refuses enable.idempotence=true with acks other than
// all, in the words of Kafka's producer.
func checkIdempotence(p *Parser, s ProducerSettings) {
	if s.Idempotence.Ok && s.Idempotence.V && s.Acks.Ok && s.Acks.V != "all" && p.err == nil {
		p.err = &Error{Name: "ksql.streams.acks", Value: s.Acks.V, Problem: ProblemInvalid,
			Reason: "Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence."}
	}
}

// String lists the settings set, as client.Field=value ({} for none).
func (c Clients) String() string {
	var parts []string
	v := reflect.ValueOf(c)
	for i := range v.NumField() {
		group := v.Field(i)
		for j := range group.NumField() {
			if f := group.Field(j); f.FieldByName("Ok").Bool() {
				parts = append(parts, fmt.Sprintf("%s.%s=%v", v.Type().Field(i).Name, group.Type().Field(j).Name, f.FieldByName("V")))
			}
		}
	}
	return "{" + strings.Join(parts, " ") + "}"
}
