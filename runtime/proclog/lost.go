package proclog

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/sqlstream/sqlstream/physical"
)

// LostType is the TYPE of the entry that reports a query's lost
// entries (its MESSAGE's ERRORMESSAGE says how many, and why the last
// one was lost); ksqlDB has no such entry: it drops log records
// silently.
const LostType = "ENTRIES_LOST"

// losses counts each query's lost entries: all of them (Lost, for
// DESCRIBE EXTENDED and /metrics) and those not reported yet in the
// topic.
type losses struct {
	mu         sync.Mutex
	total      map[string]int64
	unreported map[string]int64
	why        map[string]string // the last loss of each unreported query
}

// lose counts an entry of query lost; the writer reports it after its
// next successful write (a queue that refused an entry is full, so one
// comes).
func (l *Log) lose(query, why string) {
	ls := &l.losses
	ls.mu.Lock()
	if ls.total == nil {
		ls.total, ls.unreported, ls.why = map[string]int64{}, map[string]int64{}, map[string]string{}
	}
	ls.total[query]++
	ls.unreported[query]++
	ls.why[query] = why
	n := ls.total[query]
	ls.mu.Unlock()
	if n == 1 || n%1000 == 0 {
		l.logger.Warn("processing-log entry lost", "query", query, "lost", n, "why", why)
	}
}

// Lost is how many processing-log entries of query were lost.
func (l *Log) Lost(query string) int64 {
	l.losses.mu.Lock()
	defer l.losses.mu.Unlock()
	return l.losses.total[query]
}

// reportLost writes an ENTRIES_LOST entry for each query with losses not
// yet reported; one whose write fails stays unreported until a later
// write succeeds (the counts are in DESCRIBE EXTENDED and /metrics
// meanwhile).
func (l *Log) reportLost() {
	for _, r := range l.takeUnreported() {
		rec := &physical.OutRecord{Topic: l.topic, Value: lostValue(r.query, r.n, r.why, time.Now().UnixMilli()), Timestamp: time.Now().UnixMilli()}
		if err := l.cluster.Produce(context.Background(), rec); err != nil {
			l.restoreUnreported(r)
			l.logger.Warn("processing log could not report lost entries", "query", r.query, "lost", r.n, "err", err)
			return
		}
	}
}

type lostReport struct {
	query, why string
	n          int64
}

func (l *Log) takeUnreported() []lostReport {
	ls := &l.losses
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if len(ls.unreported) == 0 {
		return nil
	}
	out := make([]lostReport, 0, len(ls.unreported))
	for q, n := range ls.unreported {
		out = append(out, lostReport{q, ls.why[q], n})
		delete(ls.why, q)
	}
	clear(ls.unreported)
	sort.Slice(out, func(i, j int) bool { return out[i].query < out[j].query })
	return out
}

func (l *Log) restoreUnreported(r lostReport) {
	ls := &l.losses
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.unreported[r.query] += r.n
	if _, newer := ls.why[r.query]; !newer {
		ls.why[r.query] = r.why
	}
}

// lostValue is the JSON value of the ENTRIES_LOST entry of query.
func lostValue(query string, n int64, why string, now int64) []byte {
	v := logEntry{Logger: "processing." + query, Level: "ERROR", Time: now, Message: logMessage{
		Type: LostType, QueryID: query, Partition: -1, Offset: -1,
		ErrorMessage: fmt.Sprintf("%d processing-log entries of query %s were lost (the last because %s); the records they were for were still skipped or dropped, and the server log names each one (\"record skipped\")",
			n, query, cutText(why, maxLoggedMessage))}}
	b, _ := json.Marshal(v) // strings and numbers only: cannot fail
	return b
}
