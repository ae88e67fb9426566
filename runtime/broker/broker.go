package broker

import (
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
)

// Broker is a running embedded Kafka broker. Close it to persist its state
// and release its port.
type Broker struct {
	cluster  *kfake.Cluster
	shutdown *shutdownErrors
	stop     chan struct{}
	done     sync.WaitGroup
	once     sync.Once
	closeErr error
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
	shutdown := &shutdownErrors{}
	cluster, err := kfake.NewCluster(kfakeOptions(cfg, shutdown)...)
	if err != nil {
		return nil, fmt.Errorf("starting embedded broker on %s: %w", cfg.listen, err)
	}
	b := &Broker{cluster: cluster, shutdown: shutdown, stop: make(chan struct{})}
	b.done.Add(1)
	go b.clean(cfg.compaction)
	cfg.logger.Info("embedded kafka broker started", "addr", b.Addrs()[0], "data_dir", cfg.dataDir)
	return b, nil
}

func kfakeOptions(cfg config, shutdown *shutdownErrors) []kfake.Opt {
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.ClusterID("sqlstream"),
		kfake.DefaultNumPartitions(1),
		kfake.ListenFn(listenOn(cfg.listen)),
		kfake.WithLogger(slogAdapter{l: cfg.logger, shutdown: shutdown}),
		kfake.BrokerConfigs(map[string]string{
			"log.cleaner.backoff.ms":     strconv.FormatInt(cfg.compaction.Milliseconds(), 10),
			"log.retention.ms":           retentionMs(cfg.retention),
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
		b.shutdown.begin()
		b.cluster.Close()
		b.closeErr = b.shutdown.err()
	})
	return b.closeErr
}

// clean compacts compacted topics every interval. kfake only schedules
// compaction when a compacted topic is created or altered, not for topics
// reloaded from the data directory, so the broker drives it itself.
func (b *Broker) clean(interval time.Duration) {
	defer b.done.Done()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
			b.cluster.Compact()
		}
	}
}

// listenOn returns a kfake listen function that binds addr instead of the
// loopback address kfake would choose.
func listenOn(addr string) func(network, _ string) (net.Listener, error) {
	return func(network, _ string) (net.Listener, error) {
		ln, err := net.Listen(network, addr)
		if err != nil {
			return nil, err
		}
		return advertise(ln), nil
	}
}
