package nexmark

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

func TestScratch(t *testing.T) {
	ctx := context.Background()
	cl, _ := kgo.NewClient(kgo.SeedBrokers("127.0.0.1:39192"))
	adm := kadm.NewClient(cl)
	if err := WaitConsumed(ctx, adm, "default_query_", 10, 200*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	g, _ := NewGenerator(Config{Rate: 2000})
	for _, q := range Queries() {
		switch q.Name {
		case "q3", "q8", "q20":
			q.Sink += "B"
		default:
			continue
		}
		recs, err := ReadTopic(ctx, []string{"127.0.0.1:39192"}, q.Sink)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := q.Rows(recs)
		if err != nil {
			t.Fatal(err)
		}
		want := q.Reference(g.Events(100000))
		if d := Diff(q.Columns, rows, want); d != "" {
			t.Errorf("%s: %s", q.Name, d)
		} else {
			t.Logf("%s: %d rows verified", q.Name, len(rows))
		}
	}
}
