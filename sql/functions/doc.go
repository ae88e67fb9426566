// Package functions is the function registry of the SQL front end: the
// scalar functions (built-ins registered by NewRegistry), the names of
// aggregate and table functions, and overload resolution with ksqlDB's
// implicit conversions. Aggregates have their own registry (Aggregates).
//
//	ScalarDef{Overloads: Sig "SUBSTRING(STRING str, INTEGER pos) STRING", Fn}
//	      │ AddScalar: parseSignature (generics T, ANY DECIMAL, LAMBDA<…>, …)
//	      ▼
//	  Registry ──Resolve(name, arg types)──► Resolved{Params, Return, Fn}
//	      │          exact match before widening INTEGER→BIGINT→DECIMAL→DOUBLE;
//	      │          non-variadic > more params > fewer generics; ties are
//	      │          ambiguous (ksqlDB's UdfIndex)
//	      ├──Functions / Describe ──► SHOW FUNCTIONS, DESCRIBE FUNCTION
//	      └──Kind / IsAggregate ──► sql/expr rejects aggregates in scalar places
//
// The functions answer as ksqlDB's Java implementations do; where that
// differs from what Go's libraries give (doubles' digits, URI parsing,
// JSON key order, regular expressions, codecs, sines, HashMap order) they
// call the ports in internal/java. Values are ordered by
// types.CompareValues, the one order of the SQL layer.
//
// testdata/result_types lists the result type of every overload of
// ksqlDB's function reference (its UDF, UDAF and UDTF classes, as DESCRIBE
// FUNCTION prints them); TestResultTypes resolves each line here and fails
// on a result that differs, unless the line is a recorded deviation.
//
// sql/expr converts each argument to its resolved parameter type before
// calling Fn, skips the call when an argument is NULL (unless the overload
// is NullAware) and turns an error from Fn into a NULL result.
package functions
