package functions

import "strings"

// ksqlSpelled are the functions whose name ksqlDB's annotations
// (@UdfDescription, @UdtfDescription, @UdafDescription) spell other than
// in lower case; every other built-in is registered lower case. ksqlDB's
// resolution errors name a function so ("Function 'greatest' cannot be
// resolved …", "Function 'ARRAY_LENGTH' does not accept …").
var ksqlSpelled = map[string]string{
	"ARRAY_CONTAINS": "ARRAY_CONTAINS", "ARRAY_JOIN": "ARRAY_JOIN", "ARRAY_LENGTH": "ARRAY_LENGTH",
	"AS_MAP": "AS_MAP", "ABS": "Abs", "CEIL": "Ceil", "CHR": "Chr", "ENTRIES": "ENTRIES", "FLOOR": "Floor",
	"GENERATE_SERIES": "GENERATE_SERIES", "IFNULL": "IFNULL", "IS_JSON_STRING": "IS_JSON_STRING",
	"JSON_ARRAY_CONTAINS": "JSON_ARRAY_CONTAINS", "JSON_ARRAY_LENGTH": "JSON_ARRAY_LENGTH",
	"JSON_CONCAT": "JSON_CONCAT", "JSON_ITEMS": "JSON_ITEMS", "JSON_KEYS": "JSON_KEYS",
	"JSON_RECORDS": "JSON_RECORDS", "LPAD": "LPad", "RPAD": "RPad", "ROUND": "Round",
	"TO_JSON_STRING": "TO_JSON_STRING", "UUID": "UUID", "COALESCE": "COALESCE", "NULLIF": "NULLIF", "AS_VALUE": "AS_VALUE",
	// aggregates
	"ATTR": "ATTR", "COUNT": "COUNT", "COUNT_DISTINCT": "COUNT_DISTINCT", "EARLIEST_BY_OFFSET": "EARLIEST_BY_OFFSET",
	"LATEST_BY_OFFSET": "LATEST_BY_OFFSET", "MAX": "MAX", "MIN": "MIN", "SUM": "SUM", "TOPK": "TOPK",
	"TOPKDISTINCT": "TOPKDISTINCT", "STDDEV_SAMP": "STDDEV_SAMP", "STDDEV_SAMPLE": "STDDEV_SAMPLE",
}

// KsqlSpelling is a function's name as ksqlDB's function registry spells
// it in its messages.
func KsqlSpelling(name string) string {
	if s, ok := ksqlSpelled[strings.ToUpper(name)]; ok {
		return s
	}
	return strings.ToLower(name)
}
