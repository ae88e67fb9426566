package physical

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
)

// Topology is the physical form of a query: sub-topologies connected by
// topics. A stateless query has one sub-topology; a GROUP BY on anything
// but the current key adds a repartition topic and a second one.
type Topology struct {
	SubTopologies []*SubTopology
	// SinkTopic is the output topic of a persistent query ("" for
	// transient queries).
	SinkTopic string
	// Internal are the repartition and changelog topics the runtime must
	// create (with the partition count of the query's source topic).
	Internal []InternalTopic
	// Globals are the global tables' stores the runtime fills for the
	// query's tasks (a join with a GLOBAL table).
	Globals []GlobalStoreSpec
	// Subjects are the schema-registry subjects the internal topics'
	// codecs register (<internal topic>-key / -value, for registry
	// formats): the runtime deletes them with the topics.
	Subjects []string
	// formats decides the formats of internal topics and stored tables
	// (the builder's, for readers of the stores such as pull queries).
	formats internalFormats
	// legacyJoinNumbers: built with Options.LegacyJoinStoreNumbers.
	legacyJoinNumbers bool
	// legacyRepartitionNames: built with Options.LegacyRepartitionNames.
	legacyRepartitionNames bool
	// legacyTimePrefix: built with Options.LegacyChangelogTimePrefix (or
	// an older level).
	legacyTimePrefix bool
	// schemas are the internal subjects' schemas (SchemaChanges).
	schemas subjectSchemas
	// plan is the plan built, for CompareState.
	plan *planner.Plan
	// partitionKeys are the key formats of the repartition topics, by
	// topic (PartitionKeyCodec).
	partitionKeys map[string]*partitionKey
}

// RepartitionKeysAreStoreKeys reports whether the repartition topics of
// the topology key their records as its stores key them (JSON: the
// internal topics of queries recorded before they followed the sources'
// formats), so a store key's partition is murmur2 of that key.
func (t *Topology) RepartitionKeysAreStoreKeys() bool { return t.formats.legacy }

// LegacyStores reports whether the topology's aggregate and join table
// stores keep JSON values by position (Options.LegacyStoreJSON): an
// upgrade of its query must build the new topology so too.
func (t *Topology) LegacyStores() bool { return t.formats.legacyStore }

// LegacyStoreKeys reports whether the topology's aggregate store keys,
// EMIT FINAL buffer and sliding raw rows are JSON
// (Options.LegacyStoreKeysJSON): an upgrade of its query must build the
// new topology so too.
func (t *Topology) LegacyStoreKeys() bool { return t.formats.legacyStoreKeys }

// LegacyChangelogTimePrefix reports whether the changelog values of the
// topology's timestamped stores keep their timestamp in front
// (Options.LegacyChangelogTimePrefix): an upgrade of its query must
// build the new topology so too.
func (t *Topology) LegacyChangelogTimePrefix() bool { return t.legacyTimePrefix }

// LegacyJoinStoreNumbers reports whether the topology numbers its
// stream–stream join stores as before ksqlDB's node counting
// (Options.LegacyJoinStoreNumbers): an upgrade of its query must build
// the new topology so too.
func (t *Topology) LegacyJoinStoreNumbers() bool { return t.legacyJoinNumbers }

// LegacyRepartitionNames reports whether the topology writes its JSON
// GROUP BY repartition topics' arguments under their prep names
// (Options.LegacyRepartitionNames): an upgrade of its query must build
// the new topology so too, as records of either layout may be in flight.
func (t *Topology) LegacyRepartitionNames() bool { return t.legacyRepartitionNames }

// InternalTopic is a topic owned by one query: `<app id>-<name>-repartition`
// or `<app id>-<store>-changelog`.
type InternalTopic struct {
	Name    string
	Compact bool // changelogs are compacted
	// RetentionMs, when > 0, also deletes records older than it
	// (cleanup.policy=compact,delete): changelogs of windowed stores stop
	// carrying windows past their retention.
	RetentionMs int64
	// PartitionsOf, when set, is the source topic whose partition count
	// the topic takes (the right table's for a foreign-key join's
	// subscription topic and stores); else the query's first source's.
	PartitionsOf string
}

// SourceTopics returns the topics the topology reads that it does not own
// (a join's sub-topology reads a source topic too, not only the first
// sub-topology).
func (t *Topology) SourceTopics() []string {
	internal := map[string]bool{}
	for _, it := range t.Internal {
		internal[it.Name] = true
	}
	var out []string
	for _, st := range t.SubTopologies {
		for _, topic := range st.Topics {
			if !internal[topic] {
				out = append(out, topic)
			}
		}
	}
	return out
}

// InputTopics returns every topic the topology's tasks read, each once:
// its sources and the internal topics its sub-topologies feed each other
// through (repartition topics, a foreign-key join's subscription and
// response topics), not the changelogs, which only restores read.
func (t *Topology) InputTopics() []string {
	seen := map[string]bool{}
	var out []string
	for _, st := range t.SubTopologies {
		for _, topic := range st.Topics {
			if !seen[topic] {
				seen[topic] = true
				out = append(out, topic)
			}
		}
	}
	return out
}

// BackEdges counts the topics a sub-topology writes that an earlier one
// (in SubTopologies' order) reads: a foreign-key join's left side feeds
// the subscription topic the right side, before it, reads. A reader
// that waits for the sub-topologies one after the other, each up to the
// ends its inputs had once the one before caught up, must go round once
// more per back edge to see what went back.
func (t *Topology) BackEdges() int {
	readBy := map[string]int{}
	for i, st := range t.SubTopologies {
		for _, topic := range st.Topics {
			if _, ok := readBy[topic]; !ok {
				readBy[topic] = i
			}
		}
	}
	n := 0
	for i, st := range t.SubTopologies {
		for _, node := range st.Nodes {
			if j, ok := readBy[node.Topic]; ok && node.Kind == "Sink" && j < i {
				n++
			}
		}
	}
	return n
}

// SubTopology is a connected group of processors fed by source topics.
// The runtime creates one task per partition of its source topics.
type SubTopology struct {
	ID     int
	Topics []string
	Stores []StoreSpec
	Nodes  []*NodeDesc
	build  func(env *TaskEnv) (rawProcessor, error)
}

// StoreSpec names a state store of a sub-topology and its changelog topic.
type StoreSpec struct {
	Name      string
	Changelog string
	// Uncached stores take no write-back cache: every key is written
	// once (a stream–stream join window's row, keyed by key, time and
	// sequence number), so a cache would only copy each write, index
	// it and write it down later. Kafka Streams builds its join window
	// stores without caching too.
	Uncached bool
	// TimestampInRecord: the store's values are an 8-byte timestamp then
	// the serialized value, and its changelog records carry the value
	// alone (a registry format's magic byte first, so a standard
	// deserializer reads them) with the timestamp as the record's, as
	// Kafka Streams' timestamped stores log theirs
	// (state.TimestampInRecord). The runtime opens and restores the
	// store with it. False for stores of other layouts and for the
	// stores of queries recorded before (Options.LegacyChangelogTimePrefix),
	// whose changelogs hold the prefixed values.
	TimestampInRecord bool
}

// NodeDesc describes one node for EXPLAIN and topology golden tests.
type NodeDesc struct {
	Kind   string // Source, Processor, Sink
	Name   string
	Topic  string // for sources and sinks
	Stores []string
	Next   []string
	Prev   []string
}

// rawProcessor handles raw input records (the head of a sub-topology).
type rawProcessor interface {
	ProcessRaw(r *InRecord) error
}

// TimestampParser parses a string TIMESTAMP column with a
// TIMESTAMP_FORMAT pattern into epoch millis.
type TimestampParser func(value, pattern string) (int64, error)

// Options configure Build.
type Options struct {
	// AppID prefixes internal topic names (the query's application id).
	AppID string
	// ParseTimestamp parses string TIMESTAMP columns (the runtime passes
	// the PARSE_TIMESTAMP function). Default: none (such sources fail).
	ParseTimestamp TimestampParser
	// LegacyInternalJSON writes repartition topics and join store keys
	// as JSON, as every query did before they followed the query's
	// formats, and places windowed sink records by their whole key: the
	// runtime sets it for queries of commands recorded then, whose topics
	// and stores hold JSON and whose windows' earlier updates sit where
	// the whole key put them. Default false: the formats of the sources
	// they copy (see internalFormats), windowed records placed by their
	// inner key as Kafka Streams' WindowedStreamPartitioner does.
	LegacyInternalJSON bool
	// LegacyStoreJSON keeps the values of aggregate stores (so of their
	// changelogs) in JSON, accumulators named by position (STATE_i), the
	// GROUP BY repartition topic's arguments named ARG_i_j, and join
	// table stores' values in JSON, as every query wrote them before they
	// followed the query's value format: the runtime sets it for queries
	// of commands recorded then. Default false: the first source's value
	// format, accumulators named after their calls (see aggState), join
	// table stores in the table's value format.
	LegacyStoreJSON bool
	// LegacyStoreKeysJSON keeps in JSON the keys of aggregate stores (so
	// of their changelogs), the EMIT FINAL buffer's rows (whole result
	// rows, columns by position), a sliding window's raw rows, an as-of
	// join's versioned table store and grace buffer, the keys of a
	// foreign-key join's side and subscription stores (and its
	// registration and response records carry those stores' key bytes),
	// a table aggregation's input rows (keyed by the record's key bytes)
	// and a global table's local copy, as
	// queries of commands recorded with storeFormats "query" wrote them
	// (LegacyStoreJSON implies it). Default false: the first source's key
	// format for the keys and its value format for the rows (the as-of
	// join's: the table's and the stream's), under each store
	// changelog's subjects.
	LegacyStoreKeysJSON bool
	// LegacyJoinStoreNumbers numbers the window stores of stream–stream
	// joins as queries did before they counted ksqlDB's nodes (an n-way
	// join's steps got other numbers than ksqlDB's): the runtime sets it
	// for queries of commands recorded then, whose stores and changelogs
	// have those names. Default false: ksqlDB's numbers
	// (join_numbering.go).
	LegacyJoinStoreNumbers bool
	// LegacyChangelogTimePrefix keeps the 8-byte timestamp at the head
	// of the changelog record values of the stores that keep one in front
	// of their values (aggregate stores of every window kind, the EMIT
	// FINAL buffer, a sliding window's raw rows, the table stores of
	// stream–table, table–table and foreign-key joins), as queries of
	// commands recorded with storeFormats "query/2" or before wrote them
	// (LegacyStoreKeysJSON implies it). Default false: those stores are
	// TimestampInRecord, their changelog values the serialized value
	// alone and the timestamp the record's, as Kafka Streams logs its
	// timestamped stores.
	LegacyChangelogTimePrefix bool
	// LegacyRepartitionNames writes a JSON GROUP BY repartition topic's
	// arguments under their prep names (<accumulator>_ARG_j), as queries
	// of commands recorded with internalFormats "sources/4" or before
	// wrote them (LegacyInternalJSON and LegacyStoreJSON imply it).
	// Default false: compact names (compactPrep).
	LegacyRepartitionNames bool
}

// Build turns a logical plan into a topology.
func Build(plan *planner.Plan, opts Options) (*Topology, error) {
	chain, bottom, err := linearize(plan.Root)
	if err != nil {
		return nil, err
	}
	b := &builder{opts: opts, topo: &Topology{}, materialize: materializesTable(plan, chain),
		push: plan.Kind == planner.Push, sourceFormats: firstSource(plan), schemas: subjectSchemas{}}
	if j, ok := bottom.(*planner.Join); ok {
		b.rootJoin = j
		b.startJoin(j)
	} else {
		scan, unread := planner.UnreadColumns(plan.Root)
		if scan != bottom {
			unread = nil
		}
		b.startPrunedSource(bottom.(*planner.Scan), unread)
	}
	if plan.Kind == planner.Pull {
		b.table = false // a pull query's rows are a snapshot: filters drop, never delete
	}
	for _, n := range chain {
		if err := b.add(n); err != nil {
			return nil, err
		}
	}
	if len(chain) == 0 || !isSink(chain[len(chain)-1]) {
		stream := !b.table
		b.addStep(step{desc: NodeDesc{Name: "Collect"}, make: func(env *TaskEnv, _ Processor) (Processor, error) {
			return &collectOp{env: env, stream: stream}, nil
		}})
	}
	b.finish()
	if s, ok := plan.Root.(*planner.Sink); ok {
		b.topo.SinkTopic = s.Target.Topic
	}
	b.topo.Subjects = b.internalSubjects(plan)
	b.topo.schemas, b.schemas = b.schemas, nil
	b.topo.formats = b.internal()
	b.topo.legacyJoinNumbers = opts.LegacyJoinStoreNumbers
	b.topo.legacyRepartitionNames = opts.LegacyRepartitionNames
	b.topo.legacyTimePrefix = b.legacyTimePrefix()
	b.topo.plan = plan
	return b.topo, nil
}

// firstSource is the plan's first source (an empty one when it has none).
func firstSource(plan *planner.Plan) *planner.Source {
	if len(plan.Sources) == 0 {
		return &planner.Source{}
	}
	return plan.Sources[0]
}

// linearize walks a plan from the root down to its scan (or the join of
// its two scans) and returns the nodes above it in data-flow order.
func linearize(root planner.Node) ([]planner.Node, planner.Node, error) {
	var chain []planner.Node
	n := root
	for {
		_, scan := n.(*planner.Scan)
		_, join := n.(*planner.Join)
		if scan || join {
			s := n
			for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
				chain[i], chain[j] = chain[j], chain[i]
			}
			return chain, s, nil
		}
		in := n.Inputs()
		if len(in) != 1 {
			return nil, nil, fmt.Errorf("physical: %T with %d inputs is not supported", n, len(in))
		}
		chain = append(chain, n)
		n = in[0]
	}
}

func isSink(n planner.Node) bool {
	_, ok := n.(*planner.Sink)
	return ok
}

// step is one processor of a segment: how to describe it and how to make
// it for a task, given its successor.
type step struct {
	desc NodeDesc
	make func(env *TaskEnv, next Processor) (Processor, error)
}

// segment is the part of the topology that becomes one sub-topology: a
// head reading raw records from topics, then steps.
type segment struct {
	topics   []string
	headDesc NodeDesc
	head     func(env *TaskEnv, next Processor) (rawProcessor, error)
	steps    []step
	stores   []StoreSpec
	// joinDescs replace headDesc in a join's segment: its sources and
	// join nodes, the last one being where steps attach.
	joinDescs []*NodeDesc
}

// builder assembles segments while walking the plan.
type builder struct {
	opts  Options
	topo  *Topology
	cur   *segment
	table bool // the rows flowing are table changes
	// push: a push query, whose WHERE on a source table drops the rows
	// that fail it (ksqlDB shows a client no delete for them; the
	// source's own deletes still pass).
	push       bool
	aggregated bool // an aggregation is upstream
	// materialize: the plan writes a table without aggregating; its
	// output is kept in a store for pull queries.
	materialize bool
	// sourceFormats is the first source, whose formats the GROUP BY
	// repartition topic takes.
	sourceFormats *planner.Source
	// rootJoin is the plan's join (nil: none), joinBases the numbers of
	// its stream–stream steps' window stores (streamJoinBase).
	rootJoin  *planner.Join
	joinBases map[*planner.Join]int
	// schemas records the internal subjects' schemas while Build runs
	// (nil once it returned: the tasks' closures only read formats).
	schemas subjectSchemas
	// lastFilter is the last filter step added, which the projection
	// right after it shares expressions with.
	lastFilter filterStep
}

// filterStep is where a filter's step is: segment and index.
type filterStep struct {
	shared *sharedExprs
	seg    *segment
	step   int
}

func (b *builder) startSource(scan *planner.Scan) { b.startPrunedSource(scan, nil) }

// startPrunedSource begins the segment that reads scan's topic; the
// source decodes none of the value columns unread
// (planner.UnreadColumns).
func (b *builder) startPrunedSource(scan *planner.Scan, unread []string) {
	src := scan.Source
	b.table = src.Kind == ast.Table
	parse := b.timestampParser(src)
	b.cur = &segment{topics: []string{src.Topic},
		headDesc: NodeDesc{Kind: "Source", Name: "Source-" + src.Name, Topic: src.Topic},
		head: func(env *TaskEnv, next Processor) (rawProcessor, error) {
			return newPrunedSourceOp(env, src, next, parse, unread)
		}}
}

// timestampParser parses src's string TIMESTAMP column.
func (b *builder) timestampParser(src *planner.Source) func(v any) (int64, error) {
	return func(v any) (int64, error) {
		s, ok := v.(string)
		if !ok || b.opts.ParseTimestamp == nil {
			return 0, fmt.Errorf("cannot use %v (%T) as a timestamp", v, v)
		}
		return b.opts.ParseTimestamp(s, src.TimestampFormat)
	}
}

func (b *builder) addStep(s step) {
	if s.desc.Kind == "" {
		s.desc.Kind = "Processor"
	}
	b.cur.steps = append(b.cur.steps, s)
}

// internalName returns `<app id>-<name>`.
func (b *builder) internalName(name string) string { return b.opts.AppID + "-" + name }

// internal decides the formats of the query's internal topics.
func (b *builder) internal() internalFormats {
	legacyStore := b.opts.LegacyStoreJSON || b.opts.LegacyInternalJSON
	return internalFormats{legacy: b.opts.LegacyInternalJSON, legacyStore: legacyStore,
		legacyStoreKeys: legacyStore || b.opts.LegacyStoreKeysJSON, schemas: b.schemas}
}

// internalSubjects are the subjects the internal topics' codecs may
// register: <topic>-key and -value of each internal topic, when a source
// is in a registry format and the query's internal topics follow its
// formats (deleting one never registered is harmless).
func (b *builder) internalSubjects(plan *planner.Plan) []string {
	if b.opts.LegacyInternalJSON || !slices.ContainsFunc(plan.Sources, readsRegistry) {
		return nil
	}
	var out []string
	for _, t := range b.topo.Internal {
		out = append(out, format.KeySubject(t.Name), format.ValueSubject(t.Name))
	}
	return out
}

func readsRegistry(src *planner.Source) bool {
	return src.KeyFormat.UsesRegistry() || src.ValueFormat.UsesRegistry()
}

// store declares a state store of the current segment and returns its
// spec; its changelog is an internal compacted topic.
func (b *builder) store(name string) StoreSpec {
	return b.addStore(StoreSpec{Name: name, Changelog: b.internalName(name + "-changelog")})
}

// timedStore declares a store whose values are a timestamp then the
// serialized value, TimestampInRecord unless the query's changelogs keep
// the prefix (Options.LegacyChangelogTimePrefix).
func (b *builder) timedStore(name string) StoreSpec {
	return b.addStore(StoreSpec{Name: name, Changelog: b.internalName(name + "-changelog"), TimestampInRecord: !b.legacyTimePrefix()})
}

// legacyTimePrefix reports whether the query's timestamped stores keep
// the timestamp in their changelog values (Options.LegacyChangelogTimePrefix,
// implied by the older levels).
func (b *builder) legacyTimePrefix() bool {
	return b.opts.LegacyChangelogTimePrefix || b.internal().legacyStoreKeys
}

// uncachedStore declares a store whose keys are each written once (see
// StoreSpec.Uncached).
func (b *builder) uncachedStore(name string) StoreSpec {
	return b.addStore(StoreSpec{Name: name, Changelog: b.internalName(name + "-changelog"), Uncached: true})
}

func (b *builder) addStore(s StoreSpec) StoreSpec {
	b.cur.stores = append(b.cur.stores, s)
	b.topo.Internal = append(b.topo.Internal, InternalTopic{Name: s.Changelog, Compact: true})
	return s
}

func (b *builder) add(n planner.Node) error {
	switch n := n.(type) {
	case *planner.Filter:
		table, drop := b.table, b.push && !b.aggregated
		sh := &sharedExprs{filter: n}
		sh.share()
		b.lastFilter = filterStep{shared: sh, seg: b.cur, step: len(b.cur.steps)}
		b.addStep(step{desc: NodeDesc{Name: "WhereFilter"}, make: func(env *TaskEnv, next Processor) (Processor, error) {
			return newFilterOp(env, n, sh, table, drop, next), nil
		}})
	case *planner.Project:
		// A projection right after the filter of its input shares one
		// group (and memo) with it; otherwise it is a group alone.
		sh, fed := &sharedExprs{project: n}, false
		if lf := b.lastFilter; lf.shared != nil && lf.shared.filter == n.Input && lf.seg == b.cur && lf.step == len(b.cur.steps)-1 {
			sh, fed = lf.shared, true
			sh.project = n
		}
		sh.share()
		b.addStep(step{desc: NodeDesc{Name: "Project"}, make: func(env *TaskEnv, next Processor) (Processor, error) {
			return newProjectOp(env, n, sh, fed, next), nil
		}})
	case *planner.FlatMap:
		b.addStep(step{desc: NodeDesc{Name: "FlatMap"}, make: func(env *TaskEnv, next Processor) (Processor, error) {
			return newFlatMapOp(env, n, next), nil
		}})
	case *planner.PartitionBy:
		b.addStep(step{desc: NodeDesc{Name: "PartitionBy-SelectKey"}, make: func(env *TaskEnv, next Processor) (Processor, error) {
			return &partitionByOp{env: env, n: n, next: next}, nil
		}})
	case *planner.Sink:
		if b.materialize {
			store := b.store(tableStoreName)
			key, value := b.internal().tableStoreFormats(n.Target, store.Changelog)
			b.addStep(step{desc: NodeDesc{Name: "Materialize", Stores: []string{store.Name}},
				make: func(env *TaskEnv, next Processor) (Processor, error) {
					return newMaterializeOp(env, n.Target, key, value, next)
				}})
		}
		if n.MaterializeOnly {
			return nil
		}
		b.addStep(step{desc: NodeDesc{Kind: "Sink", Name: "Sink-" + n.Target.Name, Topic: n.Target.Topic},
			make: func(env *TaskEnv, _ Processor) (Processor, error) {
				op, err := newSinkOp(env, n.Target, b.opts.ParseTimestamp)
				if op != nil {
					op.innerPlacement = !b.opts.LegacyInternalJSON
				}
				return op, err
			}})
	case *planner.Aggregate:
		return b.aggregate(n)
	default:
		return fmt.Errorf("physical: no processor for %T", n)
	}
	return nil
}

// finish turns the current segment into a sub-topology.
func (b *builder) finish() {
	seg := b.cur
	sub := &SubTopology{ID: len(b.topo.SubTopologies), Topics: seg.topics, Stores: seg.stores, Nodes: describeSegment(seg)}
	sub.build = func(env *TaskEnv) (rawProcessor, error) {
		var next Processor
		for i := len(seg.steps) - 1; i >= 0; i-- {
			p, err := seg.steps[i].make(env, next)
			if err != nil {
				return nil, err
			}
			if env.Counts != nil {
				p = &countedOp{n: env.Counts.step(sub.ID, i, len(seg.steps)), next: p}
			}
			next = p
		}
		return seg.head(env, next)
	}
	b.topo.SubTopologies = append(b.topo.SubTopologies, sub)
}

func describeSegment(seg *segment) []*NodeDesc {
	nodes := []*NodeDesc{cloneDesc(seg.headDesc)}
	var below []*NodeDesc
	if seg.joinDescs != nil {
		below = seg.joinDescs[:len(seg.joinDescs)-1]
		nodes = []*NodeDesc{seg.joinDescs[len(seg.joinDescs)-1]}
	}
	for _, s := range seg.steps {
		nodes = append(nodes, cloneDesc(s.desc))
	}
	for i, d := range nodes {
		if i > 0 {
			d.Prev = []string{nodes[i-1].Name}
		}
		if i < len(nodes)-1 {
			d.Next = []string{nodes[i+1].Name}
		}
	}
	return append(below, nodes...)
}

func cloneDesc(d NodeDesc) *NodeDesc { return &d }

// Describe renders the topology in Kafka Streams' TopologyDescription
// format; EXPLAIN prints it and golden tests pin it.
func (t *Topology) Describe() string {
	var b strings.Builder
	b.WriteString("Topologies:\n")
	for _, s := range t.SubTopologies {
		fmt.Fprintf(&b, "   Sub-topology: %d\n", s.ID)
		for _, n := range s.Nodes {
			switch n.Kind {
			case "Source":
				fmt.Fprintf(&b, "    Source: %s (topics: [%s])\n", n.Name, n.Topic)
			case "Sink":
				fmt.Fprintf(&b, "    Sink: %s (topic: %s)\n", n.Name, n.Topic)
			default:
				fmt.Fprintf(&b, "    Processor: %s (stores: [%s])\n", n.Name, strings.Join(n.Stores, ", "))
			}
			if len(n.Next) > 0 {
				fmt.Fprintf(&b, "      --> %s\n", strings.Join(n.Next, ", "))
			}
			if len(n.Prev) > 0 {
				fmt.Fprintf(&b, "      <-- %s\n", strings.Join(n.Prev, ", "))
			}
		}
		b.WriteString("\n")
	}
	t.describeGlobals(&b)
	t.describeInternal(&b)
	return b.String()
}

// describeInternal lists the internal topics and the stores they back.
func (t *Topology) describeInternal(b *strings.Builder) {
	if len(t.Internal) == 0 {
		return
	}
	b.WriteString("Internal topics:\n")
	store := map[string]string{}
	for _, st := range t.SubTopologies {
		for _, s := range st.Stores {
			store[s.Changelog] = fmt.Sprintf("changelog of store %s (sub-topology %d)", s.Name, st.ID)
			if s.TimestampInRecord {
				store[s.Changelog] += ", timestamps in the records"
			}
		}
	}
	for _, it := range t.Internal {
		what := "repartition"
		if d, ok := store[it.Name]; ok {
			what = d
		}
		if it.PartitionsOf != "" {
			what += ", partitions of " + it.PartitionsOf
		}
		fmt.Fprintf(b, "   %s: %s\n", it.Name, what)
	}
}
