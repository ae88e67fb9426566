package describe

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// Catalog is the engine's catalog as DESCRIBE reads it (planner.Catalog
// has the methods).
type Catalog interface {
	List() []*planner.Source
	Get(name string) (*planner.Source, bool)
}

// Sources is SHOW STREAMS|TABLES [EXTENDED].
func Sources(st *ast.Show, srcs []*planner.Source, queries []Query) api.Entity {
	kind := ast.Stream
	if st.What == ast.ShowTables {
		kind = ast.Table
	}
	if st.Extended {
		return describeAll(st.Text(), kind, srcs, queries, true)
	}
	var infos []api.SourceInfo
	for _, src := range srcs {
		if src.Kind == kind {
			infos = append(infos, sourceInfo(src))
		}
	}
	if kind == ast.Table {
		return api.TablesList{StatementText: st.Text(), Tables: infos}
	}
	return api.StreamsList{StatementText: st.Text(), Streams: infos}
}

func sourceInfo(src *planner.Source) api.SourceInfo {
	return api.SourceInfo{Type: src.Kind.String(), Name: src.Name, Topic: src.Topic,
		KeyFormat: src.KeyFormat.Name, ValueFormat: src.ValueFormat.Name, IsWindowed: src.Windowed(), IsGlobal: src.Global}
}

// Describe is DESCRIBE [EXTENDED] name and DESCRIBE STREAMS|TABLES
// [EXTENDED].
func Describe(st *ast.Describe, cat Catalog, queries []Query) (api.Entity, error) {
	if st.All {
		return describeAll(st.Text(), st.Kind, cat.List(), queries, st.Extended), nil
	}
	src, ok := cat.Get(st.Name)
	if !ok {
		return nil, sqlerr.New(sqlerr.Unknown, st.P, "Could not find STREAM/TABLE '%s' in the Metastore", st.Name)
	}
	return api.SourceDescriptionEntity{StatementText: st.Text(), SourceDescription: Source(src, queries, st.Extended)}, nil
}

func describeAll(text string, kind ast.SourceKind, srcs []*planner.Source, queries []Query, extended bool) api.SourceDescriptionList {
	out := api.SourceDescriptionList{StatementText: text}
	for _, src := range srcs {
		if src.Kind == kind {
			out.SourceDescriptions = append(out.SourceDescriptions, Source(src, queries, extended))
		}
	}
	return out
}

// Source describes a source with the queries reading and writing it;
// extended adds its partitions and the figures of those queries.
func Source(src *planner.Source, queries []Query, extended bool) api.SourceDescription {
	d := api.SourceDescription{Name: src.Name, Fields: api.FieldInfosOf(*src.Schema), Type: src.Kind.String(),
		Timestamp: src.TimestampColumn, Extended: extended, KeyFormat: src.KeyFormat.Name,
		ValueFormat: src.ValueFormat.Name, Topic: src.Topic, Statement: src.SQL, IsGlobal: src.Global}
	if src.Window != nil {
		w := windowName(src.Window.Kind)
		d.WindowType = &w
	}
	var users []Query
	for _, q := range queries {
		if q.Reads(src.Name) {
			d.ReadQueries = append(d.ReadQueries, Running(q))
		}
		if q.Writes(src.Name) {
			d.WriteQueries = append(d.WriteQueries, Running(q))
		}
		if q.Reads(src.Name) || q.Writes(src.Name) {
			users = append(users, q)
		}
	}
	if extended {
		d.Partitions = int(src.Partitions)
		d.Replication = 1
		d.Statistics, d.ErrorStats = sourceStats(users)
	}
	return d
}

func windowName(k ast.WindowKind) string {
	return [...]string{"TUMBLING", "HOPPING", "SESSION", "SLIDING"}[k]
}

// sourceStats sums the figures of the queries reading or writing a
// source: records processed and processing-log entries.
func sourceStats(users []Query) (string, string) {
	var sum Stats
	for _, q := range users {
		s := q.Stats()
		sum.Processed += s.Processed
		sum.Failed += s.Failed
		sum.Late += s.Late
		sum.Skipped += s.Skipped
		sum.LogLost += s.LogLost
		if s.FeedErrors > 0 {
			sum.FeedErrors, sum.LastFeedError = sum.FeedErrors+s.FeedErrors, s.LastFeedError
		}
		sum.State = append(sum.State, s.State...)
	}
	stats := fmt.Sprintf("consumer-messages-processed: %d", sum.Processed)
	if len(sum.State) > 0 {
		stats += "\nstate:\n" + strings.Join(sum.State, "\n")
	}
	errs := fmt.Sprintf("consumer-failed-messages: %d dropped-records (late): %d dropped-records (null key or value): %d", sum.Failed, sum.Late, sum.Skipped)
	if sum.LogLost > 0 {
		errs += fmt.Sprintf(" processing-log-entries-lost: %d", sum.LogLost)
	}
	if sum.FeedErrors > 0 {
		errs += fmt.Sprintf(" standby-feed-errors: %d (last: %s)", sum.FeedErrors, sum.LastFeedError)
	}
	return stats, errs
}

// StreamTimes describes tasks' stream times (epoch ms by task) and open
// windows, a line per task in task order, for DESCRIBE EXTENDED's state.
func StreamTimes(times, open map[string]int64) []string {
	tasks := make([]string, 0, len(times))
	for t := range times {
		tasks = append(tasks, t)
	}
	sort.Strings(tasks)
	out := make([]string, 0, len(tasks))
	for _, t := range tasks {
		ms := times[t]
		at := time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") + " (" + strconv.FormatInt(ms, 10) + ")"
		out = append(out, fmt.Sprintf("task %s: stream time %s, %d open windows", t, at, open[t]))
	}
	return out
}
