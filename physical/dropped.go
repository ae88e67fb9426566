package physical

// dropLate reports the input record being processed as late: a
// LATE_RECORD processing-log entry with msg (which the runtime counts as a
// late record, for DESCRIBE EXTENDED and the metrics), and a copy of the
// raw record to the query's late.records.topic when one is set.
func (e *TaskEnv) dropLate(msg string) {
	c := e.current
	var raw []byte
	if c != nil {
		raw = c.Value
	}
	e.log(LateRecord, "value", msg, raw)
	if e.LateTopic != "" && c != nil {
		e.Emit.Emit(&OutRecord{Topic: e.LateTopic, Partition: -1, Key: c.Key, Value: c.Value, Timestamp: c.Timestamp, Headers: c.Headers})
	}
}

// skip counts a record skipped without an error: a stream row of a join
// (stream–stream, stream–table, stream–global table) with a null key or
// value (Kafka Streams' dropped-records sensor).
func (e *TaskEnv) skip() {
	if e != nil && e.Skipped != nil {
		e.Skipped.Add(1)
	}
}
