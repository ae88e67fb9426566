package functions

import "github.com/sqlstream/sqlstream/sql/functions/internal/java"

// FormatJavaDouble renders f as Java's Double.toString (what ksqlDB's CAST
// of a DOUBLE to STRING and its string concatenation produce). The port
// lives in internal/java; sql/expr renders doubles through this function,
// so that there is one implementation.
func FormatJavaDouble(f float64) string { return java.FormatDouble(f) }
