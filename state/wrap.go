package state

// NewWindowStore views a Store (e.g. one from a runtime's store provider)
// as a window store with the WindowKey layout and no duplicates.
func NewWindowStore(s Store) *WindowStore { return &WindowStore{s: s} }

// NewSessionStore views a Store as a session store with the SessionKey
// layout.
func NewSessionStore(s Store) *SessionStore { return &SessionStore{s: s} }
