package broker

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl/plain"
)

// Broker is a running embedded Kafka broker. Close it to persist its state
// and release its port.
type Broker struct {
	cluster *kfake.Cluster
	dataDir string       // "" when in memory
	adm     *kadm.Client // the cleaner's view of the topic list
	// segmentBytes is log.segment.bytes, the segment size of topics that
	// set none: a partition no larger is all active segment.
	segmentBytes int64
	// gate holds back transactional produce while the cleaner compacts;
	// quietWait is how long a tick waits for no open transaction.
	gate      *txnGate
	quietWait time.Duration
	shutdown  *shutdownErrors
	// internalPassword is InternalUser's password ("" without WithUsers).
	internalPassword string
	stop             chan struct{}
	done             sync.WaitGroup
	once             sync.Once
	closeErr         error
}

// Start starts a broker configured by opts and returns once it accepts
// connections.
func Start(opts ...Option) (*Broker, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o.apply(&cfg)
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if cfg.dataDir != "" {
		if err := skipUnloadableTopics(cfg.dataDir, cfg.logger); err != nil {
			return nil, fmt.Errorf("starting embedded broker: data directory %s: %w", cfg.dataDir, err)
		}
		if err := checkMissingData(cfg.dataDir, cfg.logger); err != nil {
			return nil, fmt.Errorf("starting embedded broker: data directory %s: %w", cfg.dataDir, err)
		}
		if err := abortOpenTxns(cfg); err != nil {
			return nil, fmt.Errorf("starting embedded broker: data directory %s: ending the transactions an unclean shutdown or a torn segment left open: %w "+
				"(starting again retries it)", cfg.dataDir, err)
		}
		if err := markRunning(cfg.dataDir); err != nil {
			return nil, fmt.Errorf("starting embedded broker: data directory %s: %w", cfg.dataDir, err)
		}
		// After the crash recovery, whose own kfake persists credentials.
		if err := forgetCredentials(cfg.dataDir); err != nil {
			return nil, fmt.Errorf("starting embedded broker: data directory %s: removing persisted credentials: %w", cfg.dataDir, err)
		}
	}
	shutdown := &shutdownErrors{}
	var bound string
	kopts := kfakeOptions(cfg, shutdown, &bound)
	var standIns map[string]string
	internalPassword := ""
	if cfg.users != nil {
		internalPassword = rand.Text()
		var sasl []kfake.Opt
		sasl, standIns = saslOptions(cfg, internalPassword)
		kopts = append(kopts, sasl...)
	}
	cluster, err := kfake.NewCluster(kopts...)
	if err != nil {
		return nil, fmt.Errorf("starting embedded broker on %s: %w", cfg.listen, err)
	}
	if cfg.users != nil {
		plainCheck(cluster, cfg.users, standIns)
	}
	guardTopicNames(cluster, cfg.maxPartitions)
	guardPartitions(cluster, cfg.maxPartitions)
	guardInternalTopics(cluster)
	guardCleanerBackoff(cluster)
	gate := &txnGate{}
	gate.install(cluster)
	b := &Broker{cluster: cluster, dataDir: cfg.dataDir, segmentBytes: cfg.segmentBytes, internalPassword: internalPassword,
		gate: gate, quietWait: min(cfg.compaction, time.Second), shutdown: shutdown, stop: make(chan struct{})}
	cl, err := kgo.NewClient(b.ClientOpts()...)
	if err != nil {
		cluster.Close()
		return nil, fmt.Errorf("starting embedded broker on %s: %w", cfg.listen, err)
	}
	if cfg.users != nil {
		if err := advertiseHandshakeV0(cluster, cl); err != nil {
			cl.Close()
			cluster.Close()
			return nil, fmt.Errorf("starting embedded broker on %s: %w", cfg.listen, err)
		}
	}
	b.adm = kadm.NewClient(cl)
	b.done.Add(1)
	go b.clean(cfg.compaction)
	logStarted(cfg, bound, b.Addrs()[0])
	return b, nil
}

// logStarted logs the address bound and the one advertised, and an error
// when the broker listens beyond loopback without authentication.
func logStarted(cfg config, bound, advertised string) {
	cfg.logger.Info("embedded kafka broker started", "listen", bound, "advertised", advertised,
		"authentication", cfg.users != nil, "data_dir", cfg.dataDir)
	if cfg.users == nil && !loopbackAddr(bound) {
		cfg.logger.Error("the embedded kafka broker listens beyond loopback without authentication: anyone who reaches "+
			bound+" reads, writes and deletes every topic; set authentication.method=BASIC (the broker then takes "+
			"SASL/PLAIN or SCRAM with the API's users) or listen on 127.0.0.1", "listen", bound)
	}
}

func loopbackAddr(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || (ip != nil && ip.IsLoopback())
}

// ClientOpts are the franz-go options a client of this process needs to
// reach the broker: its address and, with WithUsers, SASL/PLAIN as
// InternalUser.
func (b *Broker) ClientOpts() []kgo.Opt {
	opts := []kgo.Opt{kgo.SeedBrokers(b.Addrs()...)}
	if user, password := b.InternalCredentials(); user != "" {
		opts = append(opts, kgo.SASL(plain.Auth{User: user, Pass: password}.AsMechanism()))
	}
	return opts
}

func kfakeOptions(cfg config, shutdown *shutdownErrors, bound *string) []kfake.Opt {
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.ClusterID("sqlstream"),
		kfake.DefaultNumPartitions(1),
		kfake.ListenFn(listenOn(cfg.listen, bound)),
		kfake.WithLogger(slogAdapter{l: cfg.logger, shutdown: shutdown}),
		kfake.BrokerConfigs(map[string]string{
			// kfake's own compaction timer stays (practically) off: the
			// broker's cleaner decides when to compact (see doc.go).
			"log.cleaner.backoff.ms":     cleanerBackoffMs,
			"log.retention.ms":           retentionMs(cfg.retention),
			"log.segment.bytes":          strconv.FormatInt(cfg.segmentBytes, 10),
			"default.replication.factor": "1",
			"min.insync.replicas":        "1",
		}),
	}
	if cfg.dataDir != "" {
		opts = append(opts, kfake.DataDir(cfg.dataDir))
	}
	return opts
}

// retentionMs renders a retention for log.retention.ms; -1 is forever.
func retentionMs(d time.Duration) string {
	if d < 0 {
		return "-1"
	}
	return strconv.FormatInt(d.Milliseconds(), 10)
}

// Addrs returns the host:port clients should bootstrap from.
func (b *Broker) Addrs() []string { return b.cluster.ListenAddrs() }

// Close stops the broker, writing its state to the data directory when one
// is set, and reports a failure to persist it. It is safe to call more than
// once; later calls return the first call's result.
func (b *Broker) Close() error {
	b.once.Do(func() {
		close(b.stop)
		b.done.Wait()
		b.adm.Close()
		b.shutdown.begin()
		b.cluster.Close()
		b.closeErr = b.shutdown.err()
		if b.dataDir != "" {
			// The stand-in passwords kfake persisted die with this run.
			b.closeErr = errors.Join(b.closeErr, forgetCredentials(b.dataDir))
		}
		if b.closeErr == nil && b.dataDir != "" {
			// Only a clean persistence counts as a clean shutdown.
			if err := markStopped(b.dataDir); err != nil {
				b.closeErr = fmt.Errorf("embedded broker shutdown: %w", err)
			}
		}
	})
	return b.closeErr
}

// clean is the broker's log cleaner. Every interval it enforces retention
// on every topic and compacts the topics with cleanup.policy=compact when
// one of their partitions is cleanable, as Kafka's cleaner would find it:
// larger than one segment (segment.bytes; Kafka never cleans the active
// segment) and at least half dirty (bytes written since it was last
// compacted, Kafka's default min.cleanable.dirty.ratio of 0.5). kfake
// only schedules compaction for topics created or altered in this run,
// not for topics reloaded from the data directory, and its compaction
// rewrites whole partitions, so compacting on every tick would cost time
// proportional to everything stored, every interval; with the ratio the
// total work is proportional to what is written.
func (b *Broker) clean(interval time.Duration) {
	defer b.done.Done()
	t := time.NewTicker(interval)
	defer t.Stop()
	cleaned := map[string]int64{} // partition ("topic/p") → bytes after its last compaction
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			b.cleanOnce(cleaned)
		}
	}
}

// cleanOnce is one tick of the cleaner: compaction when some compacted
// partition is cleanable and none has an open transaction (which defers
// it to a later tick), else retention only.
func (b *Broker) cleanOnce(cleaned map[string]int64) {
	if b.dirty(cleaned) && b.compactStable() {
		b.record(cleaned)
		return
	}
	b.cluster.ApplyRetention()
}

// compactedPartitions calls fn for every partition of every topic whose
// cleanup.policy includes compact, with the topic's segment size. It
// fails when the topics cannot be listed.
func (b *Broker) compactedPartitions(fn func(key string, p *kfake.PartitionInfo, segment int64)) error {
	topics, err := b.topics()
	if err != nil {
		return err
	}
	for _, topic := range topics {
		ti := b.cluster.TopicInfo(topic)
		if ti == nil || !isCompacted(ti.Configs["cleanup.policy"]) {
			continue
		}
		segment := b.segmentBytes
		if v := ti.Configs["segment.bytes"]; v != nil {
			if n, err := strconv.ParseInt(*v, 10, 64); err == nil && n > 0 {
				segment = n
			}
		}
		for _, p := range b.cluster.PartitionInfos(topic) {
			fn(topic+"/"+strconv.Itoa(int(p.Partition)), p, segment)
		}
	}
	return nil
}

// dirty reports whether some compacted partition is cleanable: more than
// one segment, and at least twice its size after its last compaction.
func (b *Broker) dirty(cleaned map[string]int64) bool {
	dirty := false
	err := b.compactedPartitions(func(key string, p *kfake.PartitionInfo, segment int64) {
		if p.NumBytes > segment && p.NumBytes-min(cleaned[key], p.NumBytes) >= p.NumBytes/2 {
			dirty = true
		}
	})
	return err == nil && dirty
}

// record remembers the size of every compacted partition after a
// compaction.
func (b *Broker) record(cleaned map[string]int64) {
	clear(cleaned)
	_ = b.compactedPartitions(func(key string, p *kfake.PartitionInfo, _ int64) { cleaned[key] = p.NumBytes })
}

// topics lists the broker's topics through its own Kafka API (kfake has
// no in-process listing).
func (b *Broker) topics() ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	td, err := b.adm.ListTopics(ctx)
	if err != nil {
		return nil, err
	}
	return td.Names(), nil
}

func isCompacted(policy *string) bool {
	if policy == nil {
		return false
	}
	for _, p := range strings.Split(*policy, ",") {
		if strings.TrimSpace(p) == "compact" {
			return true
		}
	}
	return false
}

// listenOn returns a kfake listen function that binds addr instead of the
// loopback address kfake would choose, and sets bound to the address
// bound (which advertise may hide from kfake).
func listenOn(addr string, bound *string) func(network, _ string) (net.Listener, error) {
	return func(network, _ string) (net.Listener, error) {
		ln, err := net.Listen(network, addr)
		if err != nil {
			return nil, err
		}
		*bound = ln.Addr().String()
		return advertise(ln), nil
	}
}
