package runtime_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// TestLongRestoreStallsNeitherGroupNorOtherTasks: a task whose restore
// waits (an open transaction on its changelog partition) keeps only its
// own input paused: the group is stable and the member's other task
// counts new records meanwhile; once the transaction ends the waiting
// task restores and catches up, and every count is right.
func TestLongRestoreStallsNeitherGroupNorOtherTasks(t *testing.T) {
	t.Parallel()
	f := newEOSRig(t)
	f.eosCounts("counts", "at_least_once", 2)
	want := f.produceEvents(40, 10)
	f.awaitCounts("counts", want)
	changelog := f.changelogTopic()
	f.e.Close()
	f.e = nil
	other, err := kgo.NewClient(kgo.SeedBrokers(f.c.ListenAddrs()...), kgo.TransactionalID("intruder"),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	bogus := &kgo.Record{Topic: changelog, Partition: 0, Key: []byte("k000"), Value: []byte("bogus")}
	if err := other.ProduceSync(context.Background(), bogus).FirstErr(); err != nil {
		t.Fatal(err)
	}
	f.restartEngine(t.TempDir()) // restores both tasks from the changelog's start; task 0 waits

	manual, err := kgo.NewClient(kgo.SeedBrokers(f.c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	defer manual.Close()
	for p, key := range []string{"zero", "one"} {
		rec := &kgo.Record{Topic: "s", Partition: int32(p), Key: []byte(key), Value: []byte(`{"V":1}`)}
		if err := manual.ProduceSync(context.Background(), rec).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(keysOf(f.readTopic("counts", false)), " one ") {
		if time.Now().After(deadline) {
			t.Fatal("task 1 counted nothing while task 0 restored")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if strings.Contains(keysOf(f.readTopic("counts", false)), " zero ") {
		t.Fatal("task 0 processed a record before its restore ended")
	}
	gs, err := f.adm.DescribeGroups(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for name, g := range gs {
		if g.State != "Stable" {
			t.Errorf("group %s is %s while a restore waits", name, g.State)
		}
	}
	if err := other.EndTransaction(context.Background(), kgo.TryAbort); err != nil {
		t.Fatal(err)
	}
	want["zero"], want["one"] = 1, 1
	f.awaitCounts("counts", want)
}

// keysOf joins the records' keys, each between spaces.
func keysOf(recs []*kgo.Record) string {
	var b strings.Builder
	b.WriteString(" ")
	for _, r := range recs {
		b.Write(r.Key)
		b.WriteString(" ")
	}
	return b.String()
}
