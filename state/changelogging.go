package state

// Changelog receives every write of a changelogged store: the runtime
// implements it with a producer to the store's changelog topic partition
// (StoreID.ChangelogTopic(), partition StoreID.Partition). A nil value is a
// tombstone. key and value are valid only during the call: copy them to
// keep them. Send is called from the store's task goroutine and cannot
// fail: the runtime reports produce errors at its commit (producer flush),
// before it calls DB.Checkpoint.
type Changelog interface {
	Send(key, value []byte)
}

// changeloggingStore writes through to inner and then logs the write.
type changeloggingStore struct {
	inner Store
	log   Changelog
}

var (
	_ Store  = (*changeloggingStore)(nil)
	_ purger = (*changeloggingStore)(nil)
)

func newChangeloggingStore(inner Store, log Changelog) *changeloggingStore {
	return &changeloggingStore{inner: inner, log: log}
}

func (s *changeloggingStore) Get(key []byte) ([]byte, error) { return s.inner.Get(key) }

// Put writes key below, then sends it to the changelog.
func (s *changeloggingStore) Put(key, value []byte) error {
	if err := s.inner.Put(key, value); err != nil {
		return err
	}
	s.log.Send(key, value)
	return nil
}

func (s *changeloggingStore) Range(start, end []byte, fn func(k, v []byte) bool) error {
	return s.inner.Range(start, end, fn)
}

func (s *changeloggingStore) Flush() error { return s.inner.Flush() }

func (s *changeloggingStore) Close() error { return s.inner.Close() }

// purge removes entries locally only: retention is the changelog topic's
// own job (cleanup.policy=compact,delete), as in Kafka Streams.
func (s *changeloggingStore) purge(match func(key []byte) bool) error {
	return s.inner.(purger).purge(match)
}
