package schemaregistry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Registry is a Confluent-compatible schema registry kept in a _schemas
// topic. Handler serves its REST API.
type Registry struct {
	log    *kafkaLog
	logger *slog.Logger
	opts   options

	mu      sync.Mutex
	changed *sync.Cond // broadcast when next moves or the tail stops
	st      *state
	next    int64                 // offset after the last applied record
	results map[int64]applyResult // outcome of this process's own appends, by offset
	waiting map[int64]bool
	stopped error // set when the tail ends

	writeMu sync.Mutex // one write at a time from this process

	// beforeAppend, when set (by tests only), runs between choosing a
	// registration's id and version and appending it: where another
	// server's write can win the race.
	beforeAppend func()
	cancel       context.CancelFunc
	done         chan struct{}
}

// New opens the log (creating the topic), replays it to its end and
// starts following it. The registry serves only once it has caught up.
func New(ctx context.Context, opts ...Option) (*Registry, error) {
	o := defaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	l, err := openLog(ctx, o.topic, o.kafka)
	if err != nil {
		return nil, err
	}
	r := &Registry{log: l, logger: o.logger, opts: o, st: newState(),
		results: map[int64]applyResult{}, waiting: map[int64]bool{}, done: make(chan struct{})}
	r.changed = sync.NewCond(&r.mu)
	tailCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel = cancel
	go r.run(tailCtx)
	if err := r.sync(ctx); err != nil {
		r.Close()
		return nil, fmt.Errorf("schema registry: replaying %s: %w", o.topic, err)
	}
	return r, nil
}

func (o *options) validate() error {
	if len(o.kafka) == 0 {
		return errors.New("schema registry: no Kafka client options (WithKafka)")
	}
	if o.topic == "" {
		return errors.New("schema registry: empty kafkastore.topic")
	}
	return nil
}

// Close stops following the log and closes its client.
func (r *Registry) Close() {
	r.cancel()
	<-r.done
	r.log.close()
}

func (r *Registry) run(ctx context.Context) {
	defer close(r.done)
	r.log.tail(ctx, r.applyRecord, func(err error) {
		r.logger.Warn("schema registry: reading the log", "topic", r.log.topic, "err", err)
	})
	r.mu.Lock()
	r.stopped = errors.New("schema registry stopped")
	r.changed.Broadcast()
	r.mu.Unlock()
}

func (r *Registry) applyRecord(rec *kgo.Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	res, err := r.st.apply(rec.Key, rec.Value, r.identityLocked)
	if err != nil {
		r.logger.Warn("schema registry: skipping a record it cannot read", "topic", rec.Topic,
			"partition", rec.Partition, "offset", rec.Offset, "err", err)
	}
	if r.waiting[rec.Offset] {
		r.results[rec.Offset] = res
	}
	r.next = rec.Offset + 1
	r.changed.Broadcast()
}

// identityLocked parses a replayed schema for its identity; a schema this
// registry cannot parse keeps its text as identity.
func (r *Registry) identityLocked(v schemaValue) string {
	typ, _ := normType(v.SchemaType)
	p, err := parseSchema(typ, v.Schema, v.References, r.resolveLocked)
	if err != nil {
		return typ + "\x00" + v.Schema + "\x00" + string(mustJSON(v.References))
	}
	return p.identity
}

func (r *Registry) resolveLocked(ref Reference) (source, bool) {
	v := r.st.subjects[ref.Subject][ref.Version]
	if v == nil {
		return source{}, false
	}
	typ, _ := normType(v.SchemaType)
	return source{typ: typ, text: v.Schema, refs: v.References}, true
}

// waitLocked waits, with r.mu held, until the record at off is applied.
func (r *Registry) waitLocked(ctx context.Context, off int64) error {
	stop := context.AfterFunc(ctx, func() {
		r.mu.Lock()
		r.changed.Broadcast()
		r.mu.Unlock()
	})
	defer stop()
	for r.next <= off {
		if err := ctx.Err(); err != nil {
			return err
		}
		if r.stopped != nil {
			return r.stopped
		}
		r.changed.Wait()
	}
	return nil
}

// sync waits until every record written before the call is applied, so a
// read on this server sees what another server wrote.
func (r *Registry) sync(ctx context.Context) error {
	end, err := r.log.end(ctx)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.waitLocked(ctx, end-1)
}

// write appends a record and waits until it is applied; it returns what
// applying it did.
func (r *Registry) write(ctx context.Context, key, value []byte) (applyResult, error) {
	off, err := r.log.append(ctx, key, value)
	if err != nil {
		return ignored, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.waiting[off] = true
	if off < r.next { // applied before we could mark it: read its outcome from the state
		delete(r.waiting, off)
		return r.outcomeLocked(key, value), nil
	}
	err = r.waitLocked(ctx, off)
	res := r.results[off]
	delete(r.waiting, off)
	delete(r.results, off)
	return res, err
}

// outcomeLocked tells, after the fact, whether a SCHEMA record won.
func (r *Registry) outcomeLocked(key, value []byte) applyResult {
	k, err := decodeKey(key)
	if err != nil || k.KeyType != keySchema || value == nil {
		return applied
	}
	var v schemaValue
	if mustUnmarshal(value, &v) != nil {
		return applied
	}
	// Ours won if the version now holds exactly what we wrote (a racer
	// may have picked the same id and version for another schema).
	if cur := r.st.subjects[subjectOf(k)][k.Version]; cur == nil || string(mustJSON(cur.schemaValue)) != string(mustJSON(v)) {
		return conflict
	}
	return applied
}
