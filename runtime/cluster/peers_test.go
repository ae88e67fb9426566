package cluster

import (
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/assign"
)

// A peer is discovered from a query's host map, alive while heartbeats
// arrive within the window (and for one window after discovery, before
// its first), dead after; this server is always alive and never its own
// peer.
func TestPeerLiveness(t *testing.T) {
	const window = 80 * time.Millisecond
	self, other := "http://127.0.0.1:1", "http://127.0.0.1:2"
	p := NewPeers(self, []byte("k"), window)
	p.Place("app", assign.Hosts{self: {{SubTopology: 0, Partition: 0}}, other: {{SubTopology: 0, Partition: 1}}})
	if got := p.Targets(); len(got) != 1 || got[0] != other {
		t.Fatalf("targets %v, want only the other server", got)
	}
	if !p.Alive(other) {
		t.Fatal("a server just discovered is dead")
	}
	time.Sleep(window + 20*time.Millisecond)
	if p.Alive(other) {
		t.Fatal("a server never heard from is alive after the window")
	}
	p.Heard("127.0.0.1:2")
	if !p.Alive(other) || !p.Alive(self) {
		t.Fatal("a server heard from just now is dead")
	}
	time.Sleep(window + 20*time.Millisecond)
	if p.Alive(other) {
		t.Fatal("alive a window after its last heartbeat")
	}
	if v := p.View(); len(v) != 1 || v[0].Key != "127.0.0.1:2" || v[0].Alive {
		t.Fatalf("view %+v", v)
	}
	if !p.Alive(self) {
		t.Fatal("this server is dead to itself")
	}
	// Listed while a host map names it; forgotten forgetAfter windows
	// after its last heartbeat once none does.
	later := time.Now().Add(forgetAfter*window + time.Second)
	p.Prune(later)
	if len(p.View()) != 1 {
		t.Fatal("a placed server was forgotten")
	}
	p.Place("app", assign.Hosts{self: {{SubTopology: 0, Partition: 0}, {SubTopology: 0, Partition: 1}}})
	p.Prune(time.Now())
	if len(p.View()) != 1 {
		t.Fatal("a server that just left was forgotten at once")
	}
	p.Prune(later)
	if v := p.View(); len(v) != 0 {
		t.Fatalf("a server gone for %d windows is still listed: %+v", forgetAfter, v)
	}
	// Without an endpoint nothing is placed: pull queries read locally.
	lone := NewPeers("", nil, window)
	lone.Place("app", assign.Hosts{other: {{SubTopology: 0, Partition: 0}}})
	if h, known := (groupLocator{peers: lone}).locate("app", physical.TaskID{SubTopology: 0, Partition: 0}); known {
		t.Fatalf("a server without an endpoint routes to %v", h)
	}
}

// A task revoked in one round and assigned in the next stays at its old
// owner in between; once assigned, it is the new owner's.
func TestPlacementCarriesMovingTasks(t *testing.T) {
	a, b := "http://127.0.0.1:1", "http://127.0.0.1:2"
	p := NewPeers(a, []byte("k"), time.Second)
	p.Place("app", assign.Hosts{a: {{SubTopology: 0, Partition: 0}, {SubTopology: 0, Partition: 1}}})
	p.Place("app", assign.Hosts{a: {{SubTopology: 0, Partition: 0}}})
	if got := p.PlacementOf("app").Owner(physical.TaskID{SubTopology: 0, Partition: 1}); got != a {
		t.Fatalf("a task being moved is owned by %q, want its old owner", got)
	}
	p.Place("app", assign.Hosts{a: {{SubTopology: 0, Partition: 0}}, b: {{SubTopology: 0, Partition: 1}}})
	if got := p.PlacementOf("app").Owner(physical.TaskID{SubTopology: 0, Partition: 1}); got != b {
		t.Fatalf("a moved task is owned by %q, want its new owner", got)
	}
	if got := p.PlacementOf("app")[a]; len(got) != 1 {
		t.Fatalf("the old owner still lists %v", got)
	}
}
