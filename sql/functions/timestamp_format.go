package functions

import (
	"fmt"

	"github.com/sqlstream/sqlstream/sql/types"
)

// ParseTimestamp parses a string TIMESTAMP column (a source's
// TIMESTAMP_FORMAT) with the registry's PARSE_TIMESTAMP, so it behaves
// exactly like the function users call: epoch milliseconds.
func (r *Registry) ParseTimestamp(value, pattern string) (int64, error) {
	fn, err := r.Resolve("PARSE_TIMESTAMP", []*types.Type{types.StringType, types.StringType})
	if err != nil {
		return 0, err
	}
	v, err := fn.Fn([]any{value, pattern})
	if err != nil {
		return 0, err
	}
	switch t := v.(type) {
	case types.Timestamp:
		return int64(t), nil
	case int64:
		return t, nil
	}
	return 0, fmt.Errorf("cannot parse timestamp %q with format %q", value, pattern)
}
