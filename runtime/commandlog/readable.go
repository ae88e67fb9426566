package commandlog

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// Readable checks, within 10 s, that the command topic exists and that
// the offsets of each of its partitions can be listed (the server's
// /healthcheck: without the topic the next start would come up with an
// empty catalog). The error says what is wrong and what to do.
func (c *Log) Readable(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	adm := c.Admin()
	td, err := adm.ListTopics(ctx, c.topic)
	if err == nil {
		if d, ok := td[c.topic]; !ok {
			err = kerr.UnknownTopicOrPartition
		} else {
			err = d.Err
		}
	}
	if err == nil {
		var ends kadm.ListedOffsets
		if ends, err = adm.ListEndOffsets(ctx, c.topic); err == nil {
			err = ends.Error()
		}
	}
	switch {
	case errors.Is(err, kerr.UnknownTopicOrPartition) || errors.Is(err, kerr.UnknownTopicID):
		return fmt.Errorf("the command topic %s does not exist (deleted?): the catalog lives in it, and a restart would "+
			"come up without streams, tables and queries; restore the topic, or recreate them", c.topic)
	case err != nil:
		return fmt.Errorf("the command topic %s cannot be read: %w", c.topic, err)
	}
	return nil
}
