package state

// NewWindowStore views a Store (e.g. one from a runtime's store provider)
// as a window store with the WindowKey layout and no duplicates.
func NewWindowStore(s Store) *WindowStore { return &WindowStore{s: s, maxStart: -1} }

// NewSessionStore views a Store as a session store with the SessionKey
// layout.
func NewSessionStore(s Store) *SessionStore { return &SessionStore{s: s} }

// NewDuplicatesWindowStore views a Store as a window store that keeps
// every value put (Kafka Streams' retainDuplicates, as stream–stream join
// stores are): each gets its own sequence number, continued after the
// highest one already in the store.
func NewDuplicatesWindowStore(s Store) (*WindowStore, error) {
	w := &WindowStore{s: s, duplicates: true, maxStart: -1}
	return w, w.loadSeq()
}
