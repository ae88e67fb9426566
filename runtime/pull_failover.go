package runtime

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sqlstream/sqlstream/runtime/peer"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// A pull query forwards a partition to its active host first, but for a
// second or two after a server dies its heartbeats still say it is alive
// (cluster_peers.go), and the forward fails. Before issue 16 point 15 that
// failure came after this server had already streamed its own rows under
// a 200: a partial table with an error element at the end. Now every
// forward is opened, up to the answer's header, before the query's answer
// starts; a host that does not answer is dropped for this query and each
// of its partitions goes to its next usable host (a live standby, with
// standby reads on; possibly this server), and a partition no host
// answers for fails the whole query with an error status, before any row.
//
// What is left is a peer that dies in the middle of streaming its rows:
// its error then still ends an answer already under way (ksqlDB's error
// element), the one case where a partial answer ends in an error element
// rather than an error status. Buffering every remote row before the
// first would close it at the cost of holding a whole scan in memory.

// openRemotes opens the forwards of route, failing a partition over to
// its next usable host when its host does not answer. It returns the
// opened forwards and the partitions that fell back to this server
// (which route.local does not list); an error means none is open.
func (e *Engine) openRemotes(t *transient, q *query, route pullRoute) ([]*peer.Forward, []int32, error) {
	var opened []*peer.Forward
	var local []int32
	failed := map[string]error{}
	pending := route.remote
	for len(pending) > 0 {
		next := map[string][]int32{}
		for _, ep := range slices.Sorted(maps.Keys(pending)) {
			f, err := e.openForward(t, ep, pending[ep])
			if err == nil {
				opened = append(opened, f)
				continue
			}
			e.logger.Debug("pull query forward failed; trying the next host of its partitions", "host", ep, "err", err)
			failed[ep] = err
			for _, p := range pending[ep] {
				alt, err := nextHost(route.alts[p], failed)
				if err != nil {
					closeAll(opened)
					return nil, nil, fmt.Errorf("Unable to execute pull query: partition %d of %s: %w", p, q.id, err)
				}
				if alt == e.peers.self {
					local = append(local, p)
				} else {
					next[alt] = append(next[alt], p)
				}
			}
		}
		pending = next
	}
	return opened, local, nil
}

// nextHost is the first of alts that has not failed; none left is the
// failures' error.
func nextHost(alts []string, failed map[string]error) (string, error) {
	for _, ep := range alts {
		if _, bad := failed[ep]; !bad {
			return ep, nil
		}
	}
	var msgs []string
	for _, ep := range slices.Sorted(maps.Keys(failed)) {
		msgs = append(msgs, failed[ep].Error())
	}
	return "", fmt.Errorf("no host holding it answered (%s); standby replicas are tried only with %s=true; retry",
		strings.Join(msgs, "; "), props.StandbyReads)
}

func closeAll(fs []*peer.Forward) {
	for _, f := range fs {
		f.Close()
	}
}

// openForward opens the forward of t's pull query to endpoint over parts
// (peer.OpenForward), with the properties the client set and its
// credentials.
func (e *Engine) openForward(t *transient, endpoint string, parts []int32) (*peer.Forward, error) {
	return peer.OpenForward(e.peers.auth, endpoint, peer.ForwardRequest{SQL: t.sql, Props: overrides(t.props, e.props),
		Partitions: parts, Authorization: t.auth, Done: t.closed})
}

// overrides returns the properties of set that differ from the server's
// base: what the client set for this query.
func overrides(set, base props.Properties) map[string]string {
	out := map[string]string{}
	for k, v := range set {
		if base[k] != v {
			out[k] = v
		}
	}
	return out
}
