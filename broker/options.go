package broker

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"time"
)

// Option configures a Broker started by Start.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	listen     string
	dataDir    string
	logger     *slog.Logger
	compaction time.Duration
	retention  time.Duration
	// segmentBytes is log.segment.bytes.
	segmentBytes int64
	// maxPartitions: see WithMaxPartitions.
	maxPartitions int32
	// users: see WithUsers (nil: no authentication).
	users map[string]string
	// protected: see WithProtected.
	protected Protected
}

func defaultConfig() config {
	return config{
		listen:     "127.0.0.1:9092",
		logger:     slog.New(slog.DiscardHandler),
		compaction: 15 * time.Second,
		retention:  -1,
		// kfake's default; Kafka's is 1 GiB.
		segmentBytes:  100 << 20,
		maxPartitions: DefaultMaxPartitions,
	}
}

// WithListen sets the host:port the broker listens on and advertises to
// clients, overriding the default 127.0.0.1:9092. Port 0 picks a free port;
// Addrs reports the one chosen. An unspecified host (0.0.0.0, ::) listens on
// all interfaces and advertises 127.0.0.1. A listener beyond loopback
// without WithUsers serves anyone who reaches it: Start logs an error
// saying so, with the address bound.
func WithListen(addr string) Option {
	return optionFunc(func(c *config) { c.listen = addr })
}

// WithDataDir sets the directory where the broker persists topics, records
// and group offsets, so they survive a restart, overriding the default of
// keeping everything in memory. The directory is created if needed.
func WithDataDir(dir string) Option {
	return optionFunc(func(c *config) { c.dataDir = dir })
}

// WithLogger sets the logger for the broker's own messages, overriding the
// default of discarding them. Request-level chatter is logged at debug.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) { c.logger = l })
}

// WithCompactionInterval sets how often the cleaner looks at the topics
// (Kafka's log.cleaner.backoff.ms), overriding the default of 15s. Each
// time it enforces retention, and it compacts the topics with
// cleanup.policy=compact when one of their partitions is larger than a
// segment (segment.bytes, or the broker's WithSegmentBytes: Kafka never
// cleans the active segment) and has at least doubled since it was last
// compacted (Kafka's min.cleanable.dirty.ratio of 0.5).
func WithCompactionInterval(d time.Duration) Option {
	return optionFunc(func(c *config) { c.compaction = d })
}

// WithRetention sets how long records are kept in topics that set no
// retention.ms of their own (Kafka's log.retention.ms), overriding the
// default of keeping them forever. Retention goes by record timestamp and
// is enforced every compaction interval, so with a limit, records whose
// timestamps are older than it disappear within one interval. A negative
// duration means forever.
func WithRetention(d time.Duration) Option {
	return optionFunc(func(c *config) { c.retention = d })
}

// WithSegmentBytes sets the size at which a partition's log rolls to a
// new segment for topics that set no segment.bytes (Kafka's
// log.segment.bytes), overriding the default of 100 MiB. A compacted
// partition is compacted only once it holds more than one segment.
func WithSegmentBytes(n int64) Option {
	return optionFunc(func(c *config) { c.segmentBytes = n })
}

func (c *config) validate() error {
	if _, _, err := net.SplitHostPort(c.listen); err != nil {
		return fmt.Errorf("broker listen address %q: %w", c.listen, err)
	}
	if c.logger == nil {
		return errors.New("broker logger must not be nil")
	}
	if c.segmentBytes <= 0 {
		return fmt.Errorf("broker segment size %d must be positive", c.segmentBytes)
	}
	if c.maxPartitions <= 0 {
		return fmt.Errorf("broker partition limit %d must be positive", c.maxPartitions)
	}
	if c.compaction <= 0 {
		return fmt.Errorf("broker compaction interval %v must be positive", c.compaction)
	}
	return validateUsers(c.users)
}
