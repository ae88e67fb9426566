package runtime

// WithQTTNaming names persistent queries as ksqlDB's test runner (QTT)
// does, so that the internal topic names its tests assert match: query
// ids end with the count of persistent queries before them (from 0;
// ksqlDB's server, and ours without this option, use the command's
// sequence number in the command topic), and application ids, hence
// internal topics, carry ksqlDB's `_confluent-ksql-` prefix
// (`_confluent-ksql-<service id>query_<query id>`). Only for engines
// without a command log (`sqlstream test`): ids do not survive a replay.
func WithQTTNaming() Option {
	return func(o *options) { o.appPrefix, o.countQueries = "_confluent-ksql-", true }
}

// queryNumber is the number a new query's id ends with: the sequence
// number seq of its command, or the count of queries so far (QTT naming).
func (e *Engine) queryNumber(seq int64) int64 {
	if e.opts.countQueries {
		return e.queryCount
	}
	return seq
}

// queryAppID is the application id (consumer group, prefix of internal
// topics and store ids) of persistent query id.
func (e *Engine) queryAppID(id string) string {
	return e.opts.appPrefix + e.opts.serviceID + "query_" + id
}
