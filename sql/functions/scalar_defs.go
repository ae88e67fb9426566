package functions

import "slices"

// registerScalarDefs registers the URL, JSON, ARRAY, MAP, regular expression,
// bytes, geo and higher-order functions: the families written as ScalarDef
// tables (url.go, json.go, array.go, map.go, regex.go, bytes.go, geo.go,
// higher_order.go).
func registerScalarDefs(r *Registry) {
	for _, d := range scalarDefs(r) {
		r.MustAddScalar(d)
	}
}

// scalarDefs returns the definitions registerScalarDefs registers in r
// (nil: with the default limits).
func scalarDefs(r *Registry) []ScalarDef {
	return slices.Concat(urlDefs(), jsonDefs(r), arrayDefs(), mapDefs(), regexDefs(r), bytesDefs(), geoDefs(), lambdaDefs())
}
