package broker

import (
	"errors"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestPartitionLimit: CreateTopics and CreatePartitions from any client
// refuse more partitions than the limit, with INVALID_PARTITIONS naming
// it, and create or change nothing else in that request.
func TestPartitionLimit(t *testing.T) {
	b := startTest(t, WithMaxPartitions(8))
	adm := kadm.NewClient(newClient(t, b))
	req := kmsg.NewPtrCreateTopicsRequest()
	for name, n := range map[string]int32{"big": 9, "fine": 1} {
		rt := kmsg.NewCreateTopicsRequestTopic()
		rt.Topic, rt.NumPartitions, rt.ReplicationFactor = name, n, 1
		req.Topics = append(req.Topics, rt)
	}
	resp, err := req.RequestWith(testCtx(t), newClient(t, b))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range resp.Topics {
		want := map[string]error{"big": kerr.InvalidPartitions, "fine": kerr.InvalidRequest}[r.Topic]
		if err := kerr.ErrorForCode(r.ErrorCode); !errors.Is(err, want) {
			t.Errorf("%s: err %v, want %v", r.Topic, err, want)
		}
		if r.Topic == "big" && (r.ErrorMessage == nil || !strings.Contains(*r.ErrorMessage, "at most 8")) {
			t.Errorf("big: message %v does not name the limit", r.ErrorMessage)
		}
	}
	if r, err := adm.CreateTopic(testCtx(t), 8, 1, nil, "edge"); err != nil || r.Err != nil {
		t.Fatalf("8 partitions (the limit): %v %v", err, r.Err)
	}
	grow, err := adm.CreatePartitions(testCtx(t), 1, "edge")
	if err != nil {
		t.Fatal(err)
	}
	if r := grow["edge"]; !errors.Is(r.Err, kerr.InvalidPartitions) || !strings.Contains(r.ErrMessage, MaxPartitionsProperty) {
		t.Errorf("growing to 9: err %v %q, want INVALID_PARTITIONS naming %s", r.Err, r.ErrMessage, MaxPartitionsProperty)
	}
	td, err := adm.ListTopics(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := td["fine"]; ok {
		t.Errorf("topic fine was created by a rejected request")
	}
	if n := len(td["edge"].Partitions); n != 8 {
		t.Errorf("edge has %d partitions after a refused CreatePartitions, want 8", n)
	}
}
