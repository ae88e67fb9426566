package broker

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// cleanerBackoffMs is the broker config log.cleaner.backoff.ms the broker
// runs with: 100 years, so kfake's own compaction timer, which would
// compact past open transactions, never fires (see doc.go).
const cleanerBackoffMs = "3153600000000" // 100 × 365 days

const cleanerBackoffKey = "log.cleaner.backoff.ms"

// guardCleanerBackoff makes the broker refuse config changes that would
// shorten kfake's compaction timer: an IncrementalAlterConfigs op on
// log.cleaner.backoff.ms, or an AlterConfigs of the broker (which
// replaces all its configs) that does not keep it. kfake reads the value
// whenever it restarts that timer, and it would persist in the data
// directory. The whole request is refused with POLICY_VIOLATION.
func guardCleanerBackoff(c *kfake.Cluster) {
	c.ControlKey(int16(kmsg.AlterConfigs), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		areq := req.(*kmsg.AlterConfigsRequest)
		if !alterDropsBackoff(areq) {
			return nil, nil, false
		}
		resp := areq.ResponseKind().(*kmsg.AlterConfigsResponse)
		for _, r := range areq.Resources {
			rr := kmsg.NewAlterConfigsResponseResource()
			rr.ResourceType, rr.ResourceName = r.ResourceType, r.ResourceName
			rr.ErrorCode, rr.ErrorMessage = backoffRefusal()
			resp.Resources = append(resp.Resources, rr)
		}
		return resp, nil, true
	})
	c.ControlKey(int16(kmsg.IncrementalAlterConfigs), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		ireq := req.(*kmsg.IncrementalAlterConfigsRequest)
		if !incrementalTouchesBackoff(ireq) {
			return nil, nil, false
		}
		resp := ireq.ResponseKind().(*kmsg.IncrementalAlterConfigsResponse)
		for _, r := range ireq.Resources {
			rr := kmsg.NewIncrementalAlterConfigsResponseResource()
			rr.ResourceType, rr.ResourceName = r.ResourceType, r.ResourceName
			rr.ErrorCode, rr.ErrorMessage = backoffRefusal()
			resp.Resources = append(resp.Resources, rr)
		}
		return resp, nil, true
	})
}

func backoffRefusal() (int16, *string) {
	msg := fmt.Sprintf("%s is fixed at %s: the embedded broker's own cleaner compacts, only up to the last stable offset", cleanerBackoffKey, cleanerBackoffMs)
	return kerr.PolicyViolation.Code, &msg
}

// alterDropsBackoff reports whether a broker resource of req would leave
// log.cleaner.backoff.ms other than cleanerBackoffMs.
func alterDropsBackoff(req *kmsg.AlterConfigsRequest) bool {
	for _, r := range req.Resources {
		if r.ResourceType != kmsg.ConfigResourceTypeBroker {
			continue
		}
		kept := false
		for _, cfg := range r.Configs {
			if cfg.Name == cleanerBackoffKey && cfg.Value != nil && *cfg.Value == cleanerBackoffMs {
				kept = true
			}
		}
		if !kept {
			return true
		}
	}
	return false
}

// incrementalTouchesBackoff reports whether req changes
// log.cleaner.backoff.ms of a broker.
func incrementalTouchesBackoff(req *kmsg.IncrementalAlterConfigsRequest) bool {
	for _, r := range req.Resources {
		if r.ResourceType != kmsg.ConfigResourceTypeBroker {
			continue
		}
		for _, cfg := range r.Configs {
			if cfg.Name == cleanerBackoffKey {
				return true
			}
		}
	}
	return false
}
