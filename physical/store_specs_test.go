package physical

import "github.com/sqlstream/sqlstream/sql/format"

// jsonKeys is the key format of the stores the package's tests open
// directly (JSON, whatever a query's stores are keyed in).
var jsonKeys = format.Spec{Name: format.JSON}
