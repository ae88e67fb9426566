package broker

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// advertiseHandshakeV0 lets clients built on librdkafka before 2.10
// (Debian's kcat among them) authenticate. kfake, like Kafka 4.0
// (KIP-896), serves SaslHandshake from v1 only; such a client reads the
// missing v0 as "no SASL handshake at all" and gives up before it sends
// one. The broker therefore answers ApiVersions v0–v3 (what those
// clients send) from kfake's own table, fetched once here, with
// SaslHandshake's range widened to v0–v1: the client then sends v1 (the
// highest both speak) followed by SaslAuthenticate, which kfake serves.
// A v0 handshake itself is still refused by kfake's version check. Newer
// clients send ApiVersions v4 and up, answered by kfake unchanged.
func advertiseHandshakeV0(c *kfake.Cluster, cl *kgo.Client) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req := kmsg.NewPtrApiVersionsRequest()
	req.ClientSoftwareName, req.ClientSoftwareVersion = "sqlstream", "1"
	table, err := req.RequestWith(ctx, cl)
	if err != nil {
		return fmt.Errorf("reading the broker's API versions: %w", err)
	}
	keys := append([]kmsg.ApiVersionsResponseApiKey(nil), table.ApiKeys...)
	for i := range keys {
		if keys[i].ApiKey == int16(kmsg.SASLHandshake) {
			keys[i].MinVersion = 0
		}
	}
	c.ControlKey(int16(kmsg.ApiVersions), func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		if r.GetVersion() > 3 {
			return nil, nil, false
		}
		resp := r.ResponseKind().(*kmsg.ApiVersionsResponse)
		resp.ApiKeys = keys
		resp.SupportedFeatures = table.SupportedFeatures
		resp.FinalizedFeaturesEpoch = table.FinalizedFeaturesEpoch
		resp.FinalizedFeatures = table.FinalizedFeatures
		return resp, nil, true
	})
	return nil
}
