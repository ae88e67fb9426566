package runtime

import "github.com/sqlstream/sqlstream/runtime/peer"

// hostStates is the query's state on every server of the service id
// ("host:port" → state): this server's own, each live peer's from its
// last lag report, and UNRESPONSIVE for a dead one (ksqlDB's SHOW
// QUERIES statusCount and EXPLAIN's ksqlHostQueryStatus).
func (q *query) hostStates() map[string]string {
	p := q.eng.peers
	self := "local"
	if p.advertised() != "" {
		self = peer.HostKey(p.advertised())
	}
	out := map[string]string{self: q.State().String()}
	for _, v := range p.view() {
		switch st, ok := v.states[q.id]; {
		case !v.alive:
			out[v.key] = "UNRESPONSIVE"
		case ok:
			out[v.key] = st
		}
	}
	return out
}
