package physical_test

import (
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
)

// TestRepartitionNamesFollowTheOption: a re-keyed JSON aggregation
// writes its repartition records' arguments under compact names, or
// under their accumulators' names with Options.LegacyRepartitionNames
// (queries of commands recorded before), which the topology reports for
// its upgrades; either way the aggregate reads its own records back.
func TestRepartitionNamesFollowTheOption(t *testing.T) {
	const query = `CREATE TABLE per_auction AS SELECT auction, COUNT(*) AS n, SUM(price) AS total, MAX(price) AS top
	  FROM bid GROUP BY auction EMIT CHANGES;`
	for _, legacy := range []bool{false, true} {
		topo, pl, _ := pipelineWith(t, benchBids, query, physical.Options{AppID: "names", LegacyRepartitionNames: legacy})
		if topo.LegacyRepartitionNames() != legacy {
			t.Errorf("legacy %v: the topology reports %v", legacy, topo.LegacyRepartitionNames())
		}
		var values []string
		pl.observe = func(r *physical.OutRecord) {
			if strings.HasSuffix(r.Topic, "-repartition") {
				values = append(values, string(r.Value))
			}
		}
		for i := range 20 {
			if err := pl.process(benchBid(i)); err != nil {
				t.Fatal(err)
			}
		}
		if len(values) != 20 || pl.emitted != 20 {
			t.Fatalf("legacy %v: %d repartition records and %d updates for 20 bids", legacy, len(values), pl.emitted)
		}
		named := strings.Contains(values[0], `"KSQL_AGG_SUM_`) && strings.Contains(values[0], `_ARG_0":`)
		compact := strings.HasPrefix(values[0], `{"A`) && !strings.Contains(values[0], "KSQL_AGG")
		if legacy && !named || !legacy && !compact {
			t.Errorf("legacy %v: repartition value %s", legacy, values[0])
		}
	}
}
