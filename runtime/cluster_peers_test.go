package runtime

import (
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/physical"
)

// A peer is discovered from a query's host map, alive while heartbeats
// arrive within the window (and for one window after discovery, before
// its first), dead after; this server is always alive and never its own
// peer.
func TestPeerLiveness(t *testing.T) {
	const window = 80 * time.Millisecond
	self, other := "http://127.0.0.1:1", "http://127.0.0.1:2"
	p := newPeerSet(self, []byte("k"), window)
	p.place("app", hostTasks{self: {{SubTopology: 0, Partition: 0}}, other: {{SubTopology: 0, Partition: 1}}})
	if got := p.targets(); len(got) != 1 || got[0] != other {
		t.Fatalf("targets %v, want only the other server", got)
	}
	if !p.alive(other) {
		t.Fatal("a server just discovered is dead")
	}
	time.Sleep(window + 20*time.Millisecond)
	if p.alive(other) {
		t.Fatal("a server never heard from is alive after the window")
	}
	p.heard("127.0.0.1:2")
	if !p.alive(other) || !p.alive(self) {
		t.Fatal("a server heard from just now is dead")
	}
	time.Sleep(window + 20*time.Millisecond)
	if p.alive(other) {
		t.Fatal("alive a window after its last heartbeat")
	}
	if v := p.view(); len(v) != 1 || v[0].key != "127.0.0.1:2" || v[0].alive {
		t.Fatalf("view %+v", v)
	}
	if !p.alive(self) {
		t.Fatal("this server is dead to itself")
	}
	// Listed while a host map names it; forgotten forgetAfter windows
	// after its last heartbeat once none does.
	later := time.Now().Add(forgetAfter*window + time.Second)
	p.prune(later)
	if len(p.view()) != 1 {
		t.Fatal("a placed server was forgotten")
	}
	p.place("app", hostTasks{self: {{SubTopology: 0, Partition: 0}, {SubTopology: 0, Partition: 1}}})
	p.prune(time.Now())
	if len(p.view()) != 1 {
		t.Fatal("a server that just left was forgotten at once")
	}
	p.prune(later)
	if v := p.view(); len(v) != 0 {
		t.Fatalf("a server gone for %d windows is still listed: %+v", forgetAfter, v)
	}
	// Without an endpoint nothing is placed: pull queries read locally.
	lone := newPeerSet("", nil, window)
	lone.place("app", hostTasks{other: {{SubTopology: 0, Partition: 0}}})
	if h, known := (groupLocator{peers: lone}).locate("app", physical.TaskID{SubTopology: 0, Partition: 0}); known {
		t.Fatalf("a server without an endpoint routes to %v", h)
	}
}

// A task revoked in one round and assigned in the next stays at its old
// owner in between; once assigned, it is the new owner's.
func TestPlacementCarriesMovingTasks(t *testing.T) {
	a, b := "http://127.0.0.1:1", "http://127.0.0.1:2"
	p := newPeerSet(a, []byte("k"), time.Second)
	p.place("app", hostTasks{a: {{SubTopology: 0, Partition: 0}, {SubTopology: 0, Partition: 1}}})
	p.place("app", hostTasks{a: {{SubTopology: 0, Partition: 0}}})
	if got := p.placementOf("app").owner(physical.TaskID{SubTopology: 0, Partition: 1}); got != a {
		t.Fatalf("a task being moved is owned by %q, want its old owner", got)
	}
	p.place("app", hostTasks{a: {{SubTopology: 0, Partition: 0}}, b: {{SubTopology: 0, Partition: 1}}})
	if got := p.placementOf("app").owner(physical.TaskID{SubTopology: 0, Partition: 1}); got != b {
		t.Fatalf("a moved task is owned by %q, want its new owner", got)
	}
	if got := p.placementOf("app")[a]; len(got) != 1 {
		t.Fatalf("the old owner still lists %v", got)
	}
}
