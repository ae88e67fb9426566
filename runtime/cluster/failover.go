package cluster

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/sqlstream/sqlstream/runtime/peer"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// A pull query forwards a partition to its active host first, but for a
// second or two after a server dies its heartbeats still say it is alive
// (peers.go), and the forward fails. Before issue 16 point 15 that
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

// OpenRemotes opens the forwards of route for the pull query on q (req
// with each host's partitions), failing a partition over to its next
// usable host when its host does not answer. It returns the opened
// forwards and the partitions that fell back to this server (which
// route.Local does not list); an error means none is open.
func (p *Peers) OpenRemotes(q Query, route Route, req peer.ForwardRequest, logger *slog.Logger) ([]*peer.Forward, []int32, error) {
	var opened []*peer.Forward
	var local []int32
	failed := map[string]error{}
	pending := route.Remote
	for len(pending) > 0 {
		next := map[string][]int32{}
		for _, ep := range slices.Sorted(maps.Keys(pending)) {
			r := req
			r.Partitions = pending[ep]
			f, err := peer.OpenForward(p.auth, ep, r)
			if err == nil {
				opened = append(opened, f)
				continue
			}
			logger.Debug("pull query forward failed; trying the next host of its partitions", "host", ep, "err", err)
			failed[ep] = err
			for _, part := range pending[ep] {
				alt, err := nextHost(route.alts[part], failed)
				if err != nil {
					CloseAll(opened)
					return nil, nil, fmt.Errorf("Unable to execute pull query: partition %d of %s: %w", part, q.ID(), err)
				}
				if alt == p.self {
					local = append(local, part)
				} else {
					next[alt] = append(next[alt], part)
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

// CloseAll closes the bodies of forwards.
func CloseAll(fs []*peer.Forward) {
	for _, f := range fs {
		f.Close()
	}
}
