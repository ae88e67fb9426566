package nexmark

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestCommandUnreachableBroker(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Command(context.Background(), []string{"--events", "10", "--bootstrap-servers", "127.0.0.1:1"}, &out, &errOut)
	if code != 1 || !strings.HasPrefix(errOut.String(), "sqlstream nexmark: creating topics on 127.0.0.1:1:") {
		t.Errorf("exit %d, stderr %q: want 1 and the broker named", code, errOut.String())
	}
}

func TestCommandFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--events", "5", "--seed", "0"}, "--seed 0: seeds start at 1"},
		{[]string{"--events", "5", "--partitions", "0"}, "--partitions 0: want 1 … 1000"},
		{[]string{"--events", "5", "--schema-registry-url", "http://r:8081"}, "--schema-registry-url is only for AVRO, JSON_SR and PROTOBUF"},
		{[]string{"--events", "x"}, `invalid value "x" for flag -events`},
	} {
		var out, errOut bytes.Buffer
		if code := Command(context.Background(), c.args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut.String(), c.want)
		}
	}
}

// TestPaceWaitsForTheEventsTime: with Paced at 1 event/s, event 0 is
// due at once and event 5 only 5 s after the start, so a context that
// ends first ends the wait; unpaced, pace never waits.
func TestPaceWaitsForTheEventsTime(t *testing.T) {
	g, _ := NewGenerator(Config{Rate: 1})
	start := time.Now()
	if err := pace(context.Background(), LoadConfig{Paced: true}, g, start, 0); err != nil {
		t.Errorf("paced event 0: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := pace(ctx, LoadConfig{Paced: true}, g, start, 5); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("paced event 5 under a 20 ms context: %v, want it to wait until the context ends", err)
	}
	if err := pace(context.Background(), LoadConfig{}, g, start, 5); err != nil {
		t.Errorf("unpaced: %v", err)
	}
}
