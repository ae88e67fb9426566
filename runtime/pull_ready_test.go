package runtime

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/runtime/pull"
)

// TestPullReadyBehind pins when a table's query counts as caught up for
// the first pull query: committed offsets at the end offsets; a source
// read from latest without a commit is caught up, an internal topic
// never; an exactly_once_v2 query's own topics may end one marker past
// the commit.
func TestPullReadyBehind(t *testing.T) {
	e, err := newEngine(options{})
	if err != nil {
		t.Fatal(err)
	}
	q := &query{id: "CTAS_T_1", appID: "app", topo: &physical.Topology{SinkTopic: "t"}}
	e.queries[q.id] = q
	ends := func(topic string, end int64) kadm.ListedOffsets {
		return kadm.ListedOffsets{topic: {0: {Topic: topic, Partition: 0, Offset: end}}}
	}
	at := func(topic string, off int64) kadm.OffsetResponses {
		return kadm.OffsetResponses{topic: {0: {Offset: kadm.Offset{Topic: topic, Partition: 0, At: off}}}}
	}
	none := kadm.OffsetResponses{}
	for _, tc := range []struct {
		name         string
		earliest     bool
		eos          bool
		ends         kadm.ListedOffsets
		committed    kadm.OffsetResponses
		wantCaughtUp bool
	}{
		{"at the end", true, false, ends("src", 5), at("src", 5), true},
		{"one behind", true, false, ends("src", 5), at("src", 4), false},
		{"empty partition", true, false, ends("src", 0), none, true},
		{"no commit, earliest", true, false, ends("src", 5), none, false},
		{"no commit, latest", false, false, ends("src", 5), none, true},
		{"repartition without a commit, latest", false, false, ends("app-x-repartition", 5), none, false},
		{"own topic one past, at least once", true, false, ends("app-x-repartition", 5), at("app-x-repartition", 4), false},
		{"own topic one past, exactly once", true, true, ends("app-x-repartition", 5), at("app-x-repartition", 4), true},
		{"own sink one past, exactly once", true, true, ends("t", 5), at("t", 4), true},
		{"source one past, exactly once", true, true, ends("src", 5), at("src", 4), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q.cfg.FromEarliest = tc.earliest
			q.cfg.Guarantee = props.AtLeastOnce
			if tc.eos {
				q.cfg.Guarantee = props.ExactlyOnce
			}
			got := pull.Behind(q.appID, q.cfg.FromEarliest, tc.ends, tc.committed, e.eosWritten())
			if (got == "") != tc.wantCaughtUp {
				t.Fatalf("behind = %q, want caught up %v", got, tc.wantCaughtUp)
			}
		})
	}
}
