package rest

import (
	"context"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/qtt"
)

// Driver is a qtt.Driver that also answers as ksqlDB's REST API does, for
// REST query-validation (RQTT) tests. The runner finds it by type
// assertion on the qtt.Driver that qtt.NewDriver returns.
type Driver interface {
	qtt.Driver
	// ExecuteREST runs one non-query statement as POST /ksql would and
	// returns its entities (none for INSERT VALUES); errors are
	// *api.StatementError or other.
	ExecuteREST(stmt string) ([]api.Entity, error)
	// QueryREST starts a SELECT as POST /query would. A pull query ends
	// by itself; a push query ends at its LIMIT or when ctx is done.
	QueryREST(ctx context.Context, sql string) (api.RowStream, error)
	// ReadTopic returns every record of a topic from its start, as a
	// consumer of the test's expected outputs reads it (INSERT VALUES
	// records included).
	ReadTopic(topic string) []qtt.Record
}
