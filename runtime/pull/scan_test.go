package pull

import (
	"context"
	"errors"
	"testing"

	"github.com/sqlstream/sqlstream/physical"
)

// TestScanStreamEnds: a stream scan reports the read's error, and a scan
// stopped by its runner ends with nil once the read returned (the
// cancelled read is no error), never before.
func TestScanStreamEnds(t *testing.T) {
	topo := &physical.Topology{SubTopologies: []*physical.SubTopology{{Topics: []string{"s"}}}}
	noEnv := func(*physical.SubTopology, int32) *physical.TaskEnv { t.Fatal("no record, no task"); return nil }
	broken := errors.New("broker gone")
	ended := make(chan error, 1)
	ScanStream(func(ctx context.Context, topic string, from, until bool, fn func(*physical.InRecord) bool) error {
		if topic != "s" || !from || !until {
			t.Errorf("read %q from beginning %v until end %v", topic, from, until)
		}
		return broken
	}, topo, noEnv, func(err error) { ended <- err })
	if err := <-ended; err != broken {
		t.Fatalf("scan ended with %v, want the read's error", err)
	}
	reading := make(chan struct{})
	r := ScanStream(func(ctx context.Context, _ string, _, _ bool, _ func(*physical.InRecord) bool) error {
		close(reading)
		<-ctx.Done()
		return ctx.Err()
	}, topo, noEnv, func(err error) { ended <- err })
	<-reading
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("stopped scan ended with %v", err)
		}
	default:
		t.Fatal("Stop returned before the scan reported its end")
	}
}
