package runtime

// StorageFailure is the write the disk of the server's data directory
// refused (a full disk: state.WriteError), nil while local state takes
// writes. From that write on the state DB fails every write, so every
// query with state goes to ERROR with it (error_class.go, fatal storage)
// and stays there until the server is restarted with room on the disk;
// the health check reports it (it is meant for /healthcheck's details),
// and shutdown closes the failed DB within a bound (state.DB.Close).
func (e *Engine) StorageFailure() error {
	if e.db == nil {
		return nil
	}
	return e.db.Failure()
}
