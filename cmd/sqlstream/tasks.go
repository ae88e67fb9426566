package main

import (
	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/server"
)

// taskEngine is the engine as the HTTP server sees it, with GET /tasks
// (server.TaskLister) answered from runtime's TaskAssignments; every
// other method, the optional extensions included, is the engine's own.
type taskEngine struct {
	*runtime.Engine
}

// Tasks implements server.TaskLister.
func (e taskEngine) Tasks() []api.QueryTasks {
	return apiTasks(e.TaskAssignments())
}

// apiTasks turns runtime's task view into GET /tasks' entities.
func apiTasks(qs []runtime.QueryTasks) []api.QueryTasks {
	out := make([]api.QueryTasks, 0, len(qs))
	for _, q := range qs {
		tasks := make([]api.TaskInfo, 0, len(q.Tasks))
		for _, t := range q.Tasks {
			stores := make([]api.StoreLagInfo, 0, len(t.Stores))
			for _, s := range t.Stores {
				stores = append(stores, api.StoreLagInfo{Store: s.Store, Partition: s.Partition, Position: s.Position, End: s.End, Lag: s.Lag})
			}
			tasks = append(tasks, apiTask(t, stores))
		}
		out = append(out, api.QueryTasks{QueryID: q.QueryID, Tasks: tasks})
	}
	return out
}

// apiTask is one task of GET /tasks: an active task with its consumer
// lag and input partitions, a replica with its stores alone.
func apiTask(t runtime.TaskAssignment, stores []api.StoreLagInfo) api.TaskInfo {
	out := api.TaskInfo{TaskID: t.Task, Role: string(t.Role), State: t.State, Stores: stores}
	if t.Role != runtime.RoleActive {
		return out
	}
	lag := t.ConsumerLag()
	out.ConsumerLag = &lag
	for _, in := range t.Inputs {
		out.Inputs = append(out.Inputs, api.InputLagInfo{Topic: in.Topic, Partition: in.Partition, Position: in.Position,
			HighWatermark: in.HighWatermark, LastStableOffset: in.LastStableOffset, Lag: in.Lag})
	}
	return out
}

// The wrapper keeps every extension the server looks for.
var (
	_ server.Engine                = taskEngine{}
	_ server.TaskLister            = taskEngine{}
	_ server.CommandStatusLookup   = taskEngine{}
	_ server.PropertyValidator     = taskEngine{}
	_ server.ClusterStatusReporter = taskEngine{}
	_ server.MetricsProvider       = taskEngine{}
	_ server.Peering               = taskEngine{}
	_ server.Readiness             = taskEngine{}
)
