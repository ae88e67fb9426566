package physical

import "encoding/binary"

// joinClock is a stream–stream join task's stream time: the largest row
// time seen on either input (Kafka Streams' shared TimeTracker, per task
// since KAFKA-14862). With a GRACE PERIOD it is kept in the shared outer
// store under streamTimeKey, changelogged with the pending rows, so that
// after a restart, with the local state kept or rebuilt from the
// changelog, pending rows are emitted and arriving ones buffered or
// emitted at once exactly as without the restart.
type joinClock struct {
	time  int64
	store Store // where the time is kept; nil without GRACE
	env   *TaskEnv
	buf   [8]byte
}

// newJoinClock continues from the time kept in store (or the runtime's
// InitialStreamTime, whichever is later).
func newJoinClock(env *TaskEnv, store Store) (*joinClock, error) {
	c := &joinClock{time: -1, store: store, env: env}
	if t := env.InitialStreamTime; t != nil {
		c.time = max(c.time, *t)
	}
	if store != nil {
		b, err := store.Get([]byte(streamTimeKey))
		if err != nil {
			return nil, err
		}
		if len(b) == 8 {
			c.time = max(c.time, int64(binary.BigEndian.Uint64(b)))
		}
	}
	c.publish()
	return c, nil
}

// advance moves the time forward to ts (never back) and keeps it.
func (c *joinClock) advance(ts int64) error {
	if ts <= c.time {
		return nil
	}
	c.time = ts
	c.publish()
	if c.store == nil {
		return nil
	}
	return c.store.Put([]byte(streamTimeKey), binary.BigEndian.AppendUint64(c.buf[:0], uint64(ts)))
}

func (c *joinClock) publish() {
	if st := c.env.StreamTime; st != nil && c.time >= 0 {
		st.Store(c.time)
	}
}
