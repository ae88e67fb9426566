package broker

import (
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// txnGate holds back the requests that could open a transaction on a
// compacted partition (transactional produce) or make a partition with an
// open transaction compacted (AlterConfigs, IncrementalAlterConfigs) while
// the cleaner checks that no compacted partition has an open transaction
// and compacts. kfake handles requests one at a time in its run loop, so
// once the gate is closed, the partitions the cleaner sees stay stable
// until its Compact has run.
type txnGate struct {
	mu     sync.Mutex
	closed chan struct{} // non-nil while the gate is closed; closed when it opens
}

// shut closes the gate: gated requests arriving from now on wait.
func (g *txnGate) shut() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed == nil {
		g.closed = make(chan struct{})
	}
}

// open opens the gate and lets the requests held back proceed.
func (g *txnGate) open() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed != nil {
		close(g.closed)
		g.closed = nil
	}
}

// waiting returns the channel to wait on, nil while the gate is open.
func (g *txnGate) waiting() chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

// install makes c hold back gated requests while the gate is closed. A
// held request sleeps in kfake (SleepControl), which keeps serving the
// other connections, and is then handled as usual.
func (g *txnGate) install(c *kfake.Cluster) {
	hold := func(req kmsg.Request) (kmsg.Response, error, bool) {
		if !gated(req) {
			return nil, nil, false
		}
		if ch := g.waiting(); ch != nil {
			c.SleepControl(func() { <-ch })
		}
		return nil, nil, false
	}
	for _, key := range []kmsg.Key{kmsg.Produce, kmsg.AlterConfigs, kmsg.IncrementalAlterConfigs} {
		c.ControlKey(int16(key), hold)
	}
}

// gated reports whether req waits while the gate is closed: produce
// requests of transactional producers and every config change.
func gated(req kmsg.Request) bool {
	if p, ok := req.(*kmsg.ProduceRequest); ok {
		return p.TransactionID != nil
	}
	return true
}

// compactStable compacts every compacted topic, unless some compacted
// partition has an open transaction (its last stable offset is below its
// high watermark) throughout quietWait; it reports whether it compacted.
// See the package documentation for why.
func (b *Broker) compactStable() bool {
	if !b.awaitStable() {
		return false
	}
	b.gate.shut()
	defer b.gate.open()
	if !b.stable() { // a transaction began between the check and the shut
		return false
	}
	b.cluster.Compact() // also enforces retention
	return true
}

// awaitStable polls the compacted partitions until none has an open
// transaction, for at most quietWait.
func (b *Broker) awaitStable() bool {
	deadline := time.Now().Add(b.quietWait)
	for !b.stable() {
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-b.stop:
			return false
		case <-time.After(10 * time.Millisecond):
		}
	}
	return true
}

// stable reports whether no compacted partition has an open transaction:
// each one's last stable offset is its high watermark. Topics that cannot
// be listed count as unstable.
func (b *Broker) stable() bool {
	ok := true
	err := b.compactedPartitions(func(_ string, p *kfake.PartitionInfo, _ int64) {
		if p.LastStableOffset < p.HighWatermark {
			ok = false
		}
	})
	return err == nil && ok
}
