package pull

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kadm"
)

type failingOffsets struct{ asked int }

func (f *failingOffsets) EndOffsets(context.Context, ...string) (kadm.ListedOffsets, error) {
	f.asked++
	return nil, errors.New("broker down")
}

func (f *failingOffsets) CommittedOffsets(context.Context, string) (kadm.OffsetResponses, error) {
	f.asked++
	return nil, errors.New("broker down")
}

// TestWaitCaughtUp: an ended query is not waited for (its store answers
// as it is), one whose tasks are not running yet is waited for until the
// deadline, saying so, and a Kafka error while it runs comes back as one.
func TestWaitCaughtUp(t *testing.T) {
	topo := &physical.Topology{SubTopologies: []*physical.SubTopology{{Topics: []string{"in"}}}}
	state := func(running, ended bool, name string) func() (bool, bool, string) {
		return func() (bool, bool, string) { return running, ended, name }
	}
	c := &failingOffsets{}
	missing, err := WaitCaughtUp(context.Background(), c, Table{AppID: "app", Topology: topo, State: state(false, true, "ERROR")}, EOSWritten{}, time.Millisecond)
	if err != nil || missing != "is ERROR" || c.asked != 0 {
		t.Errorf("ended: %q, %v, asked Kafka %d times", missing, err, c.asked)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	missing, err = WaitCaughtUp(ctx, c, Table{AppID: "app", Topology: topo, State: state(false, false, "PENDING")}, EOSWritten{}, time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(missing, "is PENDING (its tasks are being assigned or restored)") {
		t.Errorf("pending: %q, %v", missing, err)
	}
	_, err = WaitCaughtUp(context.Background(), c, Table{AppID: "app", Topology: topo, State: state(true, false, "RUNNING")}, EOSWritten{}, time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "checking whether the table's query caught up: broker down") {
		t.Errorf("Kafka down: %v", err)
	}
}
