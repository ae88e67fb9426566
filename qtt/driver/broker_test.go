package driver

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

// TestAwaitCaughtUp: a query whose consumer group has not formed yet
// (GROUP_ID_NOT_FOUND) is waited for; one that never forms it is a clear
// error once the variant's time is up, not empty outputs; any other
// failure of Quiesce is returned at once.
func TestAwaitCaughtUp(t *testing.T) {
	notFormed := fmt.Errorf("fetching offsets: %w", kerr.GroupIDNotFound)
	calls := 0
	formsOnThird := func(context.Context) error {
		if calls++; calls < 3 {
			return notFormed
		}
		return nil
	}
	if err := awaitCaughtUp(context.Background(), formsOnThird); err != nil || calls != 3 {
		t.Fatalf("group forming on the third ask: err %v after %d calls, want nil after 3", err, calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	never := func(context.Context) error { cancel(); return notFormed }
	err := awaitCaughtUp(ctx, never)
	if !errors.Is(err, kerr.GroupIDNotFound) || !strings.Contains(err.Error(), "consumer group had not formed") {
		t.Fatalf("a group that never forms: got %v", err)
	}

	calls = 0
	broken := func(context.Context) error { calls++; return kerr.NotCoordinator }
	if err := awaitCaughtUp(context.Background(), broken); !errors.Is(err, kerr.NotCoordinator) || calls != 1 {
		t.Fatalf("another error: got %v after %d calls, want NOT_COORDINATOR at once", err, calls)
	}
}
