package pull

import (
	"context"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/exec"
	"github.com/sqlstream/sqlstream/state"
)

// ScanStream runs a pull query over a stream: the topic of topo's only
// sub-topology is read with read (exec.Cluster's Read) from the
// beginning up to the end offsets at the start, each partition's records
// through a task of its own (env gives its environment), then done
// reports the end (nil once read whole, or stopped by the returned
// runner, which stops the read and waits for it; the task's error or the
// read's otherwise).
func ScanStream(read func(ctx context.Context, topic string, fromBeginning, untilEnd bool, fn func(*physical.InRecord) bool) error,
	topo *physical.Topology, env func(*physical.SubTopology, int32) *physical.TaskEnv, done func(error)) exec.Runner {
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tasks := map[int32]*physical.Task{}
		var ferr error
		err := read(ctx, topo.SubTopologies[0].Topics[0], true, true, func(r *physical.InRecord) bool {
			task := tasks[r.Partition]
			if task == nil {
				if task, ferr = topo.NewTask(0, env(topo.SubTopologies[0], r.Partition)); ferr != nil {
					return false
				}
				tasks[r.Partition] = task
			}
			ferr = task.Process(r)
			return ferr == nil
		})
		if ferr != nil && !physical.IsStopped(ferr) {
			err = ferr
		}
		if err == context.Canceled {
			err = nil
		}
		done(err)
	}()
	return exec.RunnerFunc(func() error { cancel(); <-stopped; return nil })
}

// Scan feeds every committed entry of the given local partitions of the
// store of application appID to the pull query's task; done reports
// that the task stopped (its LIMIT was reached).
func Scan(db *state.DB, task *physical.Task, appID string, m *physical.Materialization, parts []int32) (done bool, err error) {
	for _, p := range parts {
		id := state.StoreID{App: appID, Name: m.Store, Partition: p}
		done, err := feedRows(task, m, func(visit func(k, v []byte) bool) error {
			return db.ReadCommitted(id, nil, nil, visit)
		})
		if done || err != nil {
			return done, err
		}
	}
	return false, nil
}

// Lookup reads keys (sorted) from the given local partitions of the
// store (each key lives in one of them): one pass per partition, one
// iterator seeking from key to key; done as Scan's.
func Lookup(db *state.DB, task *physical.Task, appID string, m *physical.Materialization, parts []int32, keys [][]byte) (done bool, err error) {
	for _, p := range parts {
		if len(keys) == 0 {
			break
		}
		id := state.StoreID{App: appID, Name: m.Store, Partition: p}
		done, err := feedRows(task, m, func(visit func(k, v []byte) bool) error {
			return db.GetManyCommitted(id, keys, visit)
		})
		if done || err != nil {
			return done, err
		}
	}
	return false, nil
}

// feedRows passes the store entries read visits (one partition) to the
// pull query's task as rows; done reports that the task stopped (its
// LIMIT was reached), which ends the read without an error.
func feedRows(task *physical.Task, m *physical.Materialization, read func(visit func(k, v []byte) bool) error) (done bool, err error) {
	var ferr error
	err = read(func(k, v []byte) bool {
		row, ok, err := m.Row(k, v)
		if err != nil || !ok {
			ferr = err
			return err == nil
		}
		ferr = task.ProcessRow(row)
		return ferr == nil
	})
	if physical.IsStopped(ferr) {
		return true, nil
	}
	if err == nil {
		err = ferr
	}
	return false, err
}
