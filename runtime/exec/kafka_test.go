package exec

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
)

// TestBrokerErrorMessage: a broker's refusal is told in its own words
// with the code's name, not the code's generic description, and still
// matches the code; without a message the code is returned as is.
func TestBrokerErrorMessage(t *testing.T) {
	msg := "5 partitions requested, the broker allows at most 4 per topic"
	err := brokerError(kerr.InvalidPartitions, msg)
	if err.Error() != msg+" (INVALID_PARTITIONS)" || !errors.Is(err, kerr.InvalidPartitions) {
		t.Errorf("got %q (is INVALID_PARTITIONS: %v)", err, errors.Is(err, kerr.InvalidPartitions))
	}
	if err := brokerError(kerr.TopicAlreadyExists, ""); err != kerr.TopicAlreadyExists {
		t.Errorf("no message: %v", err)
	}
	if err := brokerError(nil, "ignored"); err != nil {
		t.Errorf("no error: %v", err)
	}
}
