package functions

// builtinAggregates returns ksqlDB's built-in aggregate functions.
//
// Functions with an Undoer may aggregate TABLE sources (ksqlDB's "applies
// to: table"): ATTR, AVG, COUNT, SUM, SUM_LIST, COLLECT_LIST, HISTOGRAM,
// STDDEV_SAMP, STDDEV_SAMPLE, CORRELATION. Every built-in is a Merger, so
// all of them work over session windows.
func (a *Aggregates) builtinAggregates() []AggregateDef {
	return []AggregateDef{
		attrDef(),
		avgDef(),
		a.collectListDef(),
		a.collectSetDef(),
		correlationDef(),
		countDef(),
		countDistinctDef(),
		a.byOffsetDef("EARLIEST_BY_OFFSET", false),
		histogramDef(),
		a.byOffsetDef("LATEST_BY_OFFSET", true),
		maxDef(),
		minDef(),
		stddevSampDef(),
		stddevSampleDef(),
		sumDef(),
		sumListDef(),
		topkDef(),
		topkDistinctDef(),
	}
}
