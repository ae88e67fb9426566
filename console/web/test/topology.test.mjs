// EXPLAIN's topology text into a graph, and its layout (node --test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTopology, layout } from '../src/topology.js';

// physical/testdata/aggregate's shape: a GROUP BY on a value column.
const text = `Topologies:
   Sub-topology: 0
    Source: Source-CLICKS (topics: [clicks])
      --> Aggregate-GroupBy
    Processor: Aggregate-GroupBy (stores: [])
      --> Aggregate-GroupBy-repartition-sink
      <-- Source-CLICKS
    Sink: Aggregate-GroupBy-repartition-sink (topic: app-Aggregate-GroupBy-repartition)
      <-- Aggregate-GroupBy

   Sub-topology: 1
    Source: Aggregate-GroupBy-repartition-source (topics: [app-Aggregate-GroupBy-repartition])
      --> Aggregate-Aggregate
    Processor: Aggregate-Aggregate (stores: [Aggregate-Aggregate-Materialize])
      --> Project
      <-- Aggregate-GroupBy-repartition-source
    Processor: Project (stores: [])
      --> Sink-PER_PAGE
      <-- Aggregate-Aggregate
    Sink: Sink-PER_PAGE (topic: PER_PAGE)
      <-- Project

   Sub-topology: 2 for global store (will not generate tasks)
    Source: Source-TIERS (topics: [tiers])
      --> TIERS-GlobalStore-Materialize
    Processor: TIERS-GlobalStore-Materialize (stores: [TIERS-GlobalStore])
      <-- Source-TIERS

Internal topics:
   app-Aggregate-GroupBy-repartition: repartition
   app-Aggregate-Aggregate-Materialize-changelog: changelog of store Aggregate-Aggregate-Materialize (sub-topology 1)
`;

test('nodes, kinds and sub-topologies', () => {
  const g = parseTopology(text);
  assert.deepEqual(g.subs, [{ id: 0, global: false }, { id: 1, global: false }, { id: 2, global: true }]);
  const kinds = Object.fromEntries([...g.nodes.values()].map((n) => [n.id, `${n.kind}/${n.sub}${n.internal ? '/internal' : ''}`]));
  assert.deepEqual(kinds, {
    'topic:clicks': 'topic/undefined',
    'Source-CLICKS': 'source/0',
    'Aggregate-GroupBy': 'processor/0',
    'Aggregate-GroupBy-repartition-sink': 'sink/0',
    'topic:app-Aggregate-GroupBy-repartition': 'topic/undefined/internal',
    'Aggregate-GroupBy-repartition-source': 'source/1',
    'Aggregate-Aggregate': 'processor/1',
    'store:Aggregate-Aggregate-Materialize': 'store/1',
    Project: 'processor/1',
    'Sink-PER_PAGE': 'sink/1',
    'topic:PER_PAGE': 'topic/undefined',
    'Source-TIERS': 'source/2',
    'topic:tiers': 'topic/undefined',
    'TIERS-GlobalStore-Materialize': 'processor/2',
    'store:TIERS-GlobalStore': 'store/2',
    'topic:app-Aggregate-Aggregate-Materialize-changelog': 'topic/undefined/internal',
  });
});

test('edges join the sub-topologies through the repartition topic', () => {
  const g = parseTopology(text);
  const has = (a, b) => g.edges.some(([x, y]) => x === a && y === b);
  assert.ok(has('Aggregate-GroupBy-repartition-sink', 'topic:app-Aggregate-GroupBy-repartition'));
  assert.ok(has('topic:app-Aggregate-GroupBy-repartition', 'Aggregate-GroupBy-repartition-source'));
  assert.ok(has('Aggregate-Aggregate', 'store:Aggregate-Aggregate-Materialize'));
  assert.ok(has('store:Aggregate-Aggregate-Materialize', 'topic:app-Aggregate-Aggregate-Materialize-changelog'));
  assert.ok(has('Project', 'Sink-PER_PAGE'));
  assert.equal(g.edges.length, 14);
});

test('layout places every node inside its sub-topology', () => {
  const g = parseTopology(text);
  const l = layout(g);
  for (const n of g.nodes.values()) {
    const p = l.node(n.id);
    assert.ok(Number.isFinite(p.x) && Number.isFinite(p.y), n.id);
    if (n.sub === undefined) continue;
    const c = l.node('sub:' + n.sub);
    assert.ok(Math.abs(p.x - c.x) <= c.width / 2 && Math.abs(p.y - c.y) <= c.height / 2, `${n.id} outside sub-topology ${n.sub}`);
  }
});

// physical/testdata/join's stream–global table join: the join reads the
// store before its section fills it.
const join = `Topologies:
   Sub-topology: 0
    Source: Source-ORDERS (topics: [orders])
      --> Join
    Processor: Join (stores: [TIERS-GlobalStore])
      --> Project
      <-- Source-ORDERS
    Processor: Project (stores: [])
      --> Sink-RANKED
      <-- Join
    Sink: Sink-RANKED (topic: RANKED)
      <-- Project

   Sub-topology: 1 for global store (will not generate tasks)
    Source: Source-TIERS (topics: [tiers])
      --> TIERS-GlobalStore-Materialize
    Processor: TIERS-GlobalStore-Materialize (stores: [TIERS-GlobalStore])
      <-- Source-TIERS
`;

test('a global store sits in its own section, marked global', () => {
  const g = parseTopology(join);
  const st = g.nodes.get('store:TIERS-GlobalStore');
  assert.equal(st.sub, 1);
  assert.equal(st.global, true);
  assert.equal(g.nodes.get('Join').sub, 0);
  assert.ok(g.edges.some(([a, b]) => a === 'Join' && b === 'store:TIERS-GlobalStore'));
  assert.ok(g.edges.some(([a, b]) => a === 'TIERS-GlobalStore-Materialize' && b === 'store:TIERS-GlobalStore'));
});
