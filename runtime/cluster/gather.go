package cluster

import (
	"context"
	"sync"
	"time"

	"github.com/sqlstream/sqlstream/runtime/peer"
)

// gatherTimeout bounds each peer's answer to Gather: a server that does
// not answer within it is marked, and the others' figures shown.
const gatherTimeout = 5 * time.Second

// PeerAnswer is one other server's answer to Gather: its body, or why
// there is none (not alive, an error, no answer in time).
type PeerAnswer struct {
	Key  string // host:port
	URL  string
	Body []byte
	Err  error
}

// errNotAlive is a dead peer's answer: it is not asked.
type errNotAlive struct{ window time.Duration }

func (e errNotAlive) Error() string {
	return "not alive: no heartbeat from it within the last " + e.window.String() + " (ksql.heartbeat.window.ms); it was not asked"
}

// Gather reads path (GET) on every other server of the service id at
// once, as a peer (peer.Get: signed, with the user's authorization), and
// returns their answers by host. A server not alive is not asked; one
// that does not answer within gatherTimeout has that error.
func (p *Peers) Gather(ctx context.Context, path, authorization string) []PeerAnswer {
	views := p.View()
	out := make([]PeerAnswer, len(views))
	var wg sync.WaitGroup
	for i, v := range views {
		out[i] = PeerAnswer{Key: v.Key, URL: v.URL}
		if !v.Alive {
			out[i].Err = errNotAlive{p.window}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, gatherTimeout)
			defer cancel()
			out[i].Body, out[i].Err = peer.Get(ctx, p.auth, v.URL, path, authorization)
		}()
	}
	wg.Wait()
	return out
}
