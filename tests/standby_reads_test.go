package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// standbyStatus is the part of /clusterStatus about standbys: each
// host's standby stores and partitions per query, and its store lags.
type standbyStatus struct {
	ClusterStatus map[string]struct {
		HostAlive             bool `json:"hostAlive"`
		ActiveStandbyPerQuery map[string]struct {
			ActivePartitions  []topicPartition `json:"activePartitions"`
			StandByStores     []string         `json:"standByStores"`
			StandByPartitions []topicPartition `json:"standByPartitions"`
		} `json:"activeStandbyPerQuery"`
		HostStoreLags struct {
			StateStoreLags map[string]struct {
				LagByPartition map[string]struct {
					CurrentOffsetPosition int64 `json:"currentOffsetPosition"`
					EndOffsetPosition     int64 `json:"endOffsetPosition"`
					OffsetLag             int64 `json:"offsetLag"`
				} `json:"lagByPartition"`
			} `json:"stateStoreLags"`
		} `json:"hostStoreLags"`
	} `json:"clusterStatus"`
}

type topicPartition struct {
	Topic     string `json:"topic"`
	Partition int    `json:"partition"`
}

func getStandbyStatus(n *node) (standbyStatus, error) {
	var cs standbyStatus
	resp, err := httpClient().Get(n.URL + "/clusterStatus")
	if err != nil {
		return cs, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return cs, fmt.Errorf("/clusterStatus on %s: %d", n.URL, resp.StatusCode)
	}
	return cs, json.NewDecoder(resp.Body).Decode(&cs)
}

// countsStore is the store of `counts` in TestPullQueriesFromAnyServer.
const countsStore = "Aggregate-Aggregate-Materialize"

// checkStandbyStatus checks /clusterStatus on every one of askers: with
// one standby per task, every partition of the counts' source (total of
// them) is a standby partition of exactly one of hosts, never of the host
// running it, and each host reports a known lag, caught up, for each of
// its standby store partitions (its own on the asker, the others' from
// their lag reports).
func checkStandbyStatus(askers, hosts []*node, total int) error {
	for _, n := range askers {
		cs, err := getStandbyStatus(n)
		if err != nil {
			return err
		}
		var all []int
		for _, h := range hosts {
			st := cs.ClusterStatus[hostOf(h)]
			for id, q := range st.ActiveStandbyPerQuery {
				if !strings.HasPrefix(id, "CTAS_COUNTS_") {
					continue
				}
				for _, p := range q.StandByPartitions {
					if p.Topic != "events" {
						continue
					}
					if slices.Contains(q.ActivePartitions, p) {
						return fmt.Errorf("%s: host %s is active and standby of %v", n.URL, hostOf(h), p)
					}
					lag, ok := st.HostStoreLags.StateStoreLags[id].LagByPartition[fmt.Sprintf("%s/%d", countsStore, p.Partition)]
					if !ok || lag.OffsetLag != 0 || lag.EndOffsetPosition <= 0 {
						return fmt.Errorf("%s: host %s standby %v: lag %+v (reported %v)", n.URL, hostOf(h), p, lag, ok)
					}
					all = append(all, p.Partition)
				}
				if len(q.StandByPartitions) > 0 && !slices.Contains(q.StandByStores, countsStore) {
					return fmt.Errorf("%s: host %s standby stores %v", n.URL, hostOf(h), q.StandByStores)
				}
			}
		}
		slices.Sort(all)
		if len(slices.Compact(slices.Clone(all))) != total || len(all) != total {
			return fmt.Errorf("%s: standby partitions over the hosts %v, want each of %d once", n.URL, all, total)
		}
	}
	return nil
}

// standbyReads are the request properties of a pull query that may read
// a standby, provided it is caught up.
var standbyReads = map[string]any{"ksql.query.pull.enable.standby.reads": true, "ksql.query.pull.max.allowed.offset.lag": 0}

// scanFromStandbys scans every table on n with standby reads on; the
// dead server's partitions must come from their standbys.
func scanFromStandbys(n *node, tables []pulledTable) error {
	for _, tb := range tables {
		rows, err := pullRowsWith(n, "SELECT * FROM "+tb.name+";", standbyReads)
		if err != nil {
			return err
		}
		got, err := asCounts(rows)
		if err != nil {
			return err
		}
		if fmt.Sprint(got) != fmt.Sprint(tb.want) {
			return fmt.Errorf("%s: standby scan of %s: %d rows %v, want %d %v", n.URL, tb.name, len(got), got, len(tb.want), tb.want)
		}
	}
	return nil
}

// stillOwns reports whether n's /clusterStatus still lists dead as
// running partitions of the counts' source: the group has not moved its
// tasks yet.
func stillOwns(n, dead *node) (bool, error) {
	cs, err := getStandbyStatus(n)
	if err != nil {
		return false, err
	}
	st := cs.ClusterStatus[hostOf(dead)]
	for id, q := range st.ActiveStandbyPerQuery {
		if strings.HasPrefix(id, "CTAS_COUNTS_") && len(q.ActivePartitions) > 0 {
			return !st.HostAlive, nil
		}
	}
	return false, nil
}

// sinceKill formats the time since a kill for the log.
func sinceKill(killed time.Time) string {
	return time.Since(killed).Round(100 * time.Millisecond).String()
}
