package assign

import (
	"slices"
	"sort"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/sqlstream/sqlstream/runtime/props"
)

// haPlan is one rebalance's placement: each member's active, standby and
// warmup tasks, and whether a probing rebalance should follow (a task
// stays on a caught-up member while its balanced home catches up).
type haPlan struct {
	active  map[string][]physical.TaskID
	standby map[string][]physical.TaskID
	warmup  map[string][]physical.TaskID
	probe   bool
}

// haInput is what the placement knows of the tasks: which sub-topologies
// keep state (only their tasks get standbys and warmups), and the sum of
// the end offsets of each task's changelog partitions (nil: unknown, then
// every member counts as caught up and no warmup is made).
type haInput struct {
	stateful map[int]bool
	endSums  map[physical.TaskID]int64
}

// assignReplicas is the HighAvailabilityTaskAssignor's shape over
// assignTasks: the balanced, sticky placement is the target; a task whose
// target member is not caught up (its lag above acceptable.recovery.lag)
// stays active on a caught-up member (its owner first) and the target
// gets a warmup of it, at most cfg.MaxWarmups in the group; a task no
// member is caught up on goes to its target. Then each stateful task gets
// cfg.Standbys standbys on other members than its active (a warmup
// counts as one), preferring the members with the most local state of
// it, then the fewest replicas, then the lowest id.
func assignReplicas(tasks []physical.TaskID, members []taskMember, in haInput, cfg props.HA) haPlan {
	plan := haPlan{active: assignTasks(tasks, members), standby: map[string][]physical.TaskID{}, warmup: map[string][]physical.TaskID{}}
	members = slices.Clone(members)
	sort.Slice(members, func(i, j int) bool { return members[i].id < members[j].id })
	tasks = slices.Clone(tasks)
	slices.SortFunc(tasks, CompareTasks)
	owner := map[physical.TaskID]string{}
	for id, ts := range plan.active {
		for _, k := range ts {
			owner[k] = id
		}
	}
	warmups := cfg.MaxWarmups
	for _, k := range tasks {
		target, ok := owner[k]
		if !ok || in.caughtUp(memberByID(members, target), k, cfg) {
			continue
		}
		src := caughtUpHome(k, members, target, in, cfg, plan.active)
		if src == "" {
			continue
		}
		plan.active[target] = slices.DeleteFunc(plan.active[target], func(t physical.TaskID) bool { return t == k })
		plan.active[src] = append(plan.active[src], k)
		owner[k] = src
		plan.probe = true
		if warmups > 0 {
			warmups--
			plan.warmup[target] = append(plan.warmup[target], k)
		}
	}
	plan.assignStandbys(tasks, members, owner, in, cfg)
	for _, m := range []map[string][]physical.TaskID{plan.active, plan.standby, plan.warmup} {
		for id := range m {
			slices.SortFunc(m[id], CompareTasks)
		}
	}
	return plan
}

func memberByID(members []taskMember, id string) taskMember {
	i := slices.IndexFunc(members, func(m taskMember) bool { return m.id == id })
	return members[i]
}

// lag is how many changelog records member m's copy of task k misses: 0
// for the task's owner (it runs there) and a stateless task, the whole
// changelog for a member without local state.
func (in haInput) lag(m taskMember, k physical.TaskID) int64 {
	if !in.stateful[k.SubTopology] || slices.Contains(m.owned, k) {
		return 0
	}
	return max(in.endSums[k]-m.offsets[k], 0)
}

func (in haInput) caughtUp(m taskMember, k physical.TaskID, cfg props.HA) bool {
	return in.endSums == nil || in.lag(m, k) <= cfg.AcceptableLag
}

// caughtUpHome picks the member other than target that keeps task k
// while target warms up: its owner if caught up, else the caught-up
// member with the least lag, then the fewest active tasks, then the
// lowest id; "" when none is caught up.
func caughtUpHome(k physical.TaskID, members []taskMember, target string, in haInput, cfg props.HA, active map[string][]physical.TaskID) string {
	best := -1
	for i, m := range members {
		if m.id == target || !in.caughtUp(m, k, cfg) {
			continue
		}
		if slices.Contains(m.owned, k) {
			return m.id
		}
		if best < 0 {
			best = i
			continue
		}
		b := members[best]
		if la, lb := in.lag(m, k), in.lag(b, k); la != lb {
			if la < lb {
				best = i
			}
		} else if len(active[m.id]) < len(active[b.id]) {
			best = i
		}
	}
	if best < 0 {
		return ""
	}
	return members[best].id
}

// assignStandbys gives each stateful task its standbys.
func (p *haPlan) assignStandbys(tasks []physical.TaskID, members []taskMember, owner map[physical.TaskID]string, in haInput, cfg props.HA) {
	if cfg.Standbys <= 0 {
		return
	}
	replicas := func(id string) int { return len(p.standby[id]) + len(p.warmup[id]) }
	for _, k := range tasks {
		if !in.stateful[k.SubTopology] {
			continue
		}
		holds := func(id string) bool {
			return id == owner[k] || slices.Contains(p.standby[id], k) || slices.Contains(p.warmup[id], k)
		}
		have := 0
		for _, m := range members {
			if slices.Contains(p.warmup[m.id], k) {
				have++
			}
		}
		for ; have < cfg.Standbys; have++ {
			best := -1
			for i, m := range members {
				if holds(m.id) {
					continue
				}
				if best < 0 {
					best = i
					continue
				}
				b := members[best]
				if oa, ob := m.offsets[k], b.offsets[k]; oa != ob {
					if oa > ob {
						best = i
					}
				} else if replicas(m.id) < replicas(b.id) {
					best = i
				}
			}
			if best < 0 {
				break
			}
			id := members[best].id
			p.standby[id] = append(p.standby[id], k)
		}
	}
}
