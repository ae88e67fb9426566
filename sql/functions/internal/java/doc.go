// Package java reproduces, byte for byte, the behaviour of the Java
// classes whose results ksqlDB's functions return: where Go's standard
// library answers differently (the last bit of a sine, the digits of a
// double, the parts of a URI, the order of a map), sqlstream's functions
// call a port from here instead. Each file ports one class or library,
// and its tests pin values taken from OpenJDK 17:
//
//	strictmath.go  java.lang.StrictMath sin, cos, asin (fdlibm)
//	math.go        java.lang.Math sin, cos (HotSpot's correctly rounded
//	               intrinsics, in double-double arithmetic)
//	format.go      Double.toString, BigDecimal.toString/toPlainString,
//	               LocalDate/LocalTime/timestamp texts, String.valueOf
//	uri.go         java.net.URI (RFC 2396) components
//	jsonnode.go    Jackson's tree model (key order, exact numbers, the
//	               first value only) and its streaming array walk
//	jsonpath.go    ksqlDB's JsonPathTokenizer
//	regex.go       java.util.regex on RE2: pattern translation, find,
//	               Matcher.appendReplacement, Pattern.split
//	codec.go       commons-codec (ENCODE), Guava and java.util.Base64's
//	               MIME codec (TO_BYTES, FROM_BYTES), new String(b, UTF_8)
//	hashmap.go     java.util.HashMap iteration order
//
// One package rather than one per class: the ports share one contract
// (Java's answer, not Go's) and one kind of test, their callers read as
// java.FormatDouble, java.ParseURI, java.Sin, and no port is large
// enough to need a boundary of its own. The package knows nothing of
// SQL functions: it depends only on sql/types for value types and on the
// one value order there (types.CompareStrings is String.compareTo).
// Comparisons of values are not here: they are types.CompareValues,
// which the expression operators use too.
package java
