package tests

import (
	"fmt"
	"testing"
	"time"
)

// pullWatch scans counts on the surviving servers, with standby reads on,
// every 300 ms while a failover runs: once the heartbeat window after the
// kill has passed (the dead server is known dead), every scan must
// answer and hold every key.
type pullWatch struct {
	stop chan struct{}
	done chan watchResult
}

type watchResult struct {
	ok      bool
	summary string
}

func (r *haRun) watchPulls(survivors []*node, killed time.Time, keys int) *pullWatch {
	w := &pullWatch{stop: make(chan struct{}), done: make(chan watchResult, 1)}
	go func() {
		ok, bad, first := 0, 0, ""
		for {
			select {
			case <-w.stop:
				w.done <- watchResult{ok: bad == 0 && ok > 0,
					summary: fmt.Sprintf("%d scans held every key, %d did not (first: %q)", ok, bad, first)}
				return
			case <-time.After(300 * time.Millisecond):
			}
			if time.Since(killed) < 3*time.Second {
				continue // the heartbeat window (2 s): the dead server may still be picked
			}
			for _, n := range survivors {
				rows, err := pullRowsWith(n, "SELECT * FROM COUNTS;", map[string]any{"ksql.query.pull.enable.standby.reads": true})
				got, cerr := asCounts(rows)
				switch {
				case err == nil && cerr == nil && len(got) == keys:
					ok++
				default:
					bad++
					if first == "" {
						first = fmt.Sprintf("%s %s after the kill: %d keys, %v %v", n.URL, sinceKill(killed), len(got), err, cerr)
					}
				}
			}
		}
	}()
	return w
}

// finish stops the watch and fails t if a scan missed keys.
func (w *pullWatch) finish(t *testing.T) {
	t.Helper()
	close(w.stop)
	res := <-w.done
	if !res.ok {
		t.Errorf("pull queries with standby reads during the failover: %s", res.summary)
	}
	t.Logf("pull queries with standby reads during the failover: %s", res.summary)
}

// checkPullsEverywhere checks that a pull query on every one of servers
// returns the whole counts table (a scan, and for a small table a lookup
// of every key).
func checkPullsEverywhere(t *testing.T, servers []*node, want map[string]int) {
	t.Helper()
	tb := pulledTable{"COUNTS", "k", "'", want}
	for _, n := range servers {
		if len(want) <= 500 {
			checkPulls(t, n, []pulledTable{tb})
			continue
		}
		eventually(t, "a scan of COUNTS on "+n.URL+" returns the whole table", func() error { return scanMatches(n, tb) })
	}
}
