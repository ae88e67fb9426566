package physical

// UserError is a record the query, as defined, refuses to process (an
// invalid timestamp under ksql.timestamp.throw.on.invalid): a fault of the
// query or its input, not of the engine. Remedy says what the user can do
// about it.
type UserError struct {
	Err    error
	Remedy string
}

func (e *UserError) Error() string { return e.Err.Error() }
func (e *UserError) Unwrap() error { return e.Err }
