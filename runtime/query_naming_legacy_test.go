package runtime

import (
	"testing"

	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// TestCommandAppIDKeepsRecordedNames: a query's application id comes
// from the prefix its command recorded, whatever the naming now; a
// command recorded before prefixes were keeps <service id>query_<id>.
func TestCommandAppIDKeepsRecordedNames(t *testing.T) {
	e, err := newEngine(options{serviceID: "svc_", cluster: exec.NewMem(),
		props: map[string]string{props.TopicNaming: props.NamingKsqlDB, props.PersistentPrefix: "pq_"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cmd  command
		want string
	}{
		{command{QueryID: "CTAS_T_3"}, "svc_query_CTAS_T_3"},
		{command{QueryID: "CTAS_T_3", AppPrefix: "svc_query_"}, "svc_query_CTAS_T_3"},
		{command{QueryID: "CTAS_T_3", AppPrefix: e.names.AppPrefix()}, "_confluent-ksql-svc_pq_CTAS_T_3"},
	} {
		if got := e.names.CommandAppID(c.cmd.AppPrefix, c.cmd.QueryID); got != c.want {
			t.Errorf("%+v: application id %s, want %s", c.cmd, got, c.want)
		}
	}
}
