package tests

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/broker"
)

func startBroker(t *testing.T, dir string) *broker.Broker {
	t.Helper()
	b, err := broker.Start(broker.WithListen("127.0.0.1:0"), broker.WithDataDir(dir))
	if err != nil {
		t.Fatalf("start broker: %v", err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// TestBrokerWithKcat drives the embedded broker with kcat the way the
// README does, and checks franz-go sees the same records, before and after
// a restart on the same data directory.
func TestBrokerWithKcat(t *testing.T) {
	t.Parallel()
	kcatPath(t)
	dir := t.TempDir()
	b := startBroker(t, dir)
	addr := b.Addrs()[0]
	createTopic(t, addr, "page-views", 4)

	kcatProduce(t, addr, "page-views", "u1:/home", "u2:/product/1", "u1:/product/2")
	produce(t, addr, "page-views", "u3", "/product/3")
	want := "[u1=/home u1=/product/2 u2=/product/1 u3=/product/3]"

	if got := kcatConsume(t, addr, "page-views", 4); fmt.Sprint(got) != want {
		t.Fatalf("kcat consumed %v, want %s", got, want)
	}
	if got := consume(t, addr, "page-views", 4); fmt.Sprint(got) != want {
		t.Fatalf("franz-go consumed %v, want %s", got, want)
	}

	if err := b.Close(); err != nil {
		t.Fatalf("close broker: %v", err)
	}
	addr = startBroker(t, dir).Addrs()[0]
	if got := kcatConsume(t, addr, "page-views", 4); fmt.Sprint(got) != want {
		t.Fatalf("after restart kcat consumed %v, want %s", got, want)
	}
}

// TestKcatCannotAutoCreateTopics: topics come from sqlstream's DDL (or the
// admin API), never from a client's metadata request.
func TestKcatCannotAutoCreateTopics(t *testing.T) {
	t.Parallel()
	kcatPath(t)
	addr := startBroker(t, t.TempDir()).Addrs()[0]
	createTopic(t, addr, "exists", 1)
	runKcat(t, "", "-b", addr, "-L", "-t", "nope")
	listed := runKcat(t, "", "-b", addr, "-L")
	if !strings.Contains(listed, `topic "exists"`) || strings.Contains(listed, `topic "nope"`) {
		t.Fatalf("want topic exists and no topic nope in metadata:\n%s", listed)
	}
}
