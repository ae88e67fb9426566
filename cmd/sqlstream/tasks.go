package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/runtime"
	"github.com/sqlstream/sqlstream/runtime/figures"
	"github.com/sqlstream/sqlstream/runtime/global"
	"github.com/sqlstream/sqlstream/server"
)

// taskEngine is the engine as the HTTP server sees it, with GET /tasks
// (server.TaskLister) answered from runtime's TaskAssignments and GET
// /clusterTasks (server.ClusterTaskLister) from those of every server;
// every other method, the optional extensions included, is the engine's
// own.
type taskEngine struct {
	*runtime.Engine
}

// Tasks implements server.TaskLister.
func (e taskEngine) Tasks() []api.QueryTasks {
	return apiTasks(e.TaskAssignments())
}

// ClusterTasks implements server.ClusterTaskLister: this server's tasks,
// then each other server's GET /tasks, asked as a peer with the
// request's user; a server that does not answer is marked with why.
func (e taskEngine) ClusterTasks(ctx context.Context) api.ClusterTasks {
	out := api.ClusterTasks{Hosts: []api.HostTasks{{Host: e.HostKey(), Self: true, Queries: e.Tasks()}}}
	for _, a := range e.GatherFromPeers(ctx, "/tasks") {
		h := api.HostTasks{Host: a.Key, Queries: []api.QueryTasks{}}
		if a.Err == nil {
			if err := json.Unmarshal(a.Body, &h.Queries); err != nil {
				a.Err = fmt.Errorf("its GET /tasks answer is not a task list: %w", err)
			}
		}
		if a.Err != nil {
			h.Error, h.Queries = a.Err.Error(), []api.QueryTasks{}
		}
		out.Hosts = append(out.Hosts, h)
	}
	return out
}

// apiTasks turns runtime's task view into GET /tasks' entities.
func apiTasks(qs []runtime.QueryTasks) []api.QueryTasks {
	out := make([]api.QueryTasks, 0, len(qs))
	for _, q := range qs {
		sizes := map[string]figures.StoreSize{}
		for _, s := range q.Figures.Stores {
			sizes[fmt.Sprintf("%s/%d", s.Store, s.Partition)] = s
		}
		tasks := make([]api.TaskInfo, 0, len(q.Tasks))
		for _, t := range q.Tasks {
			stores := make([]api.StoreLagInfo, 0, len(t.Stores))
			for _, s := range t.Stores {
				size := sizes[fmt.Sprintf("%s/%d", s.Store, s.Partition)]
				stores = append(stores, api.StoreLagInfo{Store: s.Store, Partition: s.Partition, Position: s.Position, End: s.End, Lag: s.Lag,
					Keys: size.Keys, Bytes: size.Bytes})
			}
			tasks = append(tasks, apiTask(t, stores))
		}
		out = append(out, apiQueryFigures(api.QueryTasks{QueryID: q.QueryID, Tasks: tasks}, q.Figures))
	}
	return out
}

// apiQueryFigures adds a query's figures beside its tasks.
func apiQueryFigures(q api.QueryTasks, f figures.Query) api.QueryTasks {
	q.Processed, q.Logged, q.Late, q.LogLost = f.Processed, f.Logged, f.Late, f.LogLost
	q.Nodes = make([]api.NodeRecords, 0, len(f.Nodes))
	for _, n := range f.Nodes {
		r := api.NodeRecords{SubTopology: n.SubTopology, Node: n.Node, Records: n.Records}
		if at, ok := f.NodeSince[fmt.Sprintf("%d/%s", n.SubTopology, n.Node)]; ok {
			r.SinceMs = at.UnixMilli()
		}
		q.Nodes = append(q.Nodes, r)
	}
	for _, g := range f.Globals {
		q.GlobalStores = append(q.GlobalStores, apiGlobalStore(g))
	}
	if !f.UpgradedAt.IsZero() {
		q.UpgradedAtMs = f.UpgradedAt.UnixMilli()
	}
	return q
}

// apiGlobalStore is one global store's figures.
func apiGlobalStore(g global.StoreFigures) api.GlobalStoreInfo {
	out := api.GlobalStoreInfo{Store: g.Store, Topic: g.Topic, RecordsLoaded: g.Loaded, Rows: g.Rows, Bytes: g.Bytes, Lag: g.Lag(),
		Partitions: make([]api.InputLagInfo, 0, len(g.Partitions))}
	for _, p := range g.Partitions {
		out.Partitions = append(out.Partitions, api.InputLagInfo{Topic: g.Topic, Partition: p.Partition, Position: p.Position,
			HighWatermark: -1, LastStableOffset: p.End, Lag: p.Lag})
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
	_ server.ClusterTaskLister     = taskEngine{}
	_ server.CommandStatusLookup   = taskEngine{}
	_ server.PropertyValidator     = taskEngine{}
	_ server.ClusterStatusReporter = taskEngine{}
	_ server.MetricsProvider       = taskEngine{}
	_ server.Peering               = taskEngine{}
	_ server.Readiness             = taskEngine{}
)
