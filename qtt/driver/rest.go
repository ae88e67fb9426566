package driver

import (
	"context"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/qtt"
	"github.com/sqlstream/sqlstream/qtt/rest"
)

var _ rest.Driver = (*Driver)(nil)

// ExecuteREST implements rest.Driver: the statement's entities, as
// POST /ksql returns them.
func (d *Driver) ExecuteREST(stmt string) ([]api.Entity, error) {
	return d.eng.ExecuteStatement(stmt, d.props)
}

// QueryREST implements rest.Driver: a SELECT's row stream, as
// POST /query streams it.
func (d *Driver) QueryREST(ctx context.Context, sql string) (api.RowStream, error) {
	return d.eng.Query(ctx, sql, d.props, nil)
}

// ReadTopic implements rest.Driver: every record of the topic,
// partition by partition.
func (d *Driver) ReadTopic(topic string) []qtt.Record {
	var out []qtt.Record
	for _, r := range d.eng.Read(topic) {
		rec := qtt.Record{Topic: r.Topic, Partition: r.Partition, Key: r.Key, Value: r.Value, Timestamp: r.Timestamp}
		for _, h := range r.Headers {
			rec.Headers = append(rec.Headers, qtt.Header{Key: h.Key, Value: h.Value})
		}
		out = append(out, rec)
	}
	return out
}
