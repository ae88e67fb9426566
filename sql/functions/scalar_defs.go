package functions

import "slices"

// registerMore registers the URL, JSON, ARRAY, MAP, regular expression,
// bytes, geo and lambda functions of the more_*.go files.
func registerMore(r *Registry) {
	for _, d := range moreDefs() {
		r.MustAddScalar(d)
	}
}

// moreDefs returns the definitions registerMore registers.
func moreDefs() []ScalarDef {
	return slices.Concat(urlDefs(), jsonDefs(), arrayDefs(), mapDefs(), regexDefs(), bytesDefs(), geoDefs(), lambdaDefs())
}
