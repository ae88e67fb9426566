// The topology graph of a persistent query: EXPLAIN's topology text
// (Kafka Streams' TopologyDescription format, physical.Topology.Describe)
// parsed into sub-topologies, sources, processors, sinks, stores and
// topics, laid out with dagre and drawn as SVG. Topic nodes join the
// sub-topologies a repartition topic links; internal topics are marked.

import dagre from '@dagrejs/dagre';

// parseTopology returns {subs: [{id, global}], nodes: Map(id → node),
// edges: [[from, to]]}. A node is {id, kind (source|processor|sink|store|
// topic), label, sub, internal, what, global (a global table's store)}.
export function parseTopology(text) {
  const nodes = new Map();
  const edges = [];
  const subs = [];
  const add = (id, n) => {
    if (!nodes.has(id)) nodes.set(id, { id, ...n });
    return nodes.get(id);
  };
  let sub = null;
  let cur = null;
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    let m;
    if (line === 'Topologies:') section = 'topologies';
    else if (line === 'Internal topics:') section = 'internal';
    else if ((m = /^Sub-topology: (\d+)(.*)$/.exec(line))) {
      sub = Number(m[1]);
      subs.push({ id: sub, global: /global store/.test(m[2]) });
    } else if ((m = /^Source: (\S+) \(topics: \[(.*)\]\)$/.exec(line))) {
      cur = add(m[1], { kind: 'source', label: m[1], sub });
      for (const t of m[2].split(',').map((s) => s.trim()).filter(Boolean)) {
        add('topic:' + t, { kind: 'topic', label: t });
        edges.push(['topic:' + t, m[1]]);
      }
    } else if ((m = /^Sink: (\S+) \(topic: (.*)\)$/.exec(line))) {
      cur = add(m[1], { kind: 'sink', label: m[1], sub });
      add('topic:' + m[2], { kind: 'topic', label: m[2] });
      edges.push([m[1], 'topic:' + m[2]]);
    } else if ((m = /^Processor: (\S+) \(stores: \[(.*)\]\)$/.exec(line))) {
      cur = add(m[1], { kind: 'processor', label: m[1], sub });
      const global = subs.length > 0 && subs[subs.length - 1].global;
      for (const s of m[2].split(',').map((x) => x.trim()).filter(Boolean)) {
        const st = add('store:' + s, { kind: 'store', label: s, sub });
        // A global store is read by its query's processors and filled
        // by its own section: it sits in that section.
        if (global) Object.assign(st, { sub, global: true });
        edges.push([m[1], 'store:' + s]);
      }
    } else if ((m = /^--> (.*)$/.exec(line)) && cur) {
      for (const next of m[1].split(',').map((s) => s.trim()).filter(Boolean)) edges.push([cur.id, next]);
    } else if (section === 'internal' && (m = /^(\S+): (.*)$/.exec(line))) {
      const t = add('topic:' + m[1], { kind: 'topic', label: m[1] });
      t.internal = true;
      t.what = m[2];
      const store = /changelog of store (\S+)/.exec(m[2]);
      if (store) edges.push(['store:' + store[1], t.id]);
    }
  }
  return { subs, nodes, edges: edges.filter(([a, b]) => nodes.has(a) && nodes.has(b)) };
}

const SVG = 'http://www.w3.org/2000/svg';
const W = 210;
const H = 62;

function el(tag, attrs, parent) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// layout places the graph's nodes with dagre, top to bottom, each
// sub-topology's processors and stores inside a cluster of their own.
export function layout(graph) {
  const g = new dagre.graphlib.Graph({ compound: true });
  g.setGraph({ rankdir: 'TB', nodesep: 24, ranksep: 34, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const s of graph.subs) g.setNode('sub:' + s.id, { label: `sub-topology ${s.id}${s.global ? ' (global store)' : ''}`, clusterLabelPos: 'top', paddingTop: 22 });
  for (const n of graph.nodes.values()) {
    g.setNode(n.id, { width: W, height: H });
    if (n.sub !== undefined && n.sub !== null) g.setParent(n.id, 'sub:' + n.sub);
  }
  for (const [a, b] of graph.edges) g.setEdge(a, b);
  dagre.layout(g);
  return g;
}

// renderTopology draws graph into container (replacing its content) and
// returns a function that writes each node's live figures: stats(id) →
// [lines] (at most two short lines under the label).
export function renderTopology(container, graph) {
  const g = layout(graph);
  const { width, height } = g.graph();
  container.textContent = '';
  const svg = el('svg', { viewBox: `0 0 ${width} ${height}`, width, height, class: 'topology-svg' }, container);
  el('path', { d: 'M0,0 L8,4 L0,8 z', fill: '#667' }, el('marker', { id: 'arrow', markerWidth: 8, markerHeight: 8, refX: 8, refY: 4, orient: 'auto' }, el('defs', {}, svg)));
  for (const s of graph.subs) {
    const c = g.node('sub:' + s.id);
    if (!c || !c.width) continue;
    const box = el('g', { class: 'cluster', 'data-sub': s.id }, svg);
    el('rect', { x: c.x - c.width / 2, y: c.y - c.height / 2, width: c.width, height: c.height, rx: 6 }, box);
    el('text', { x: c.x - c.width / 2 + 8, y: c.y - c.height / 2 + 14, class: 'kind' }, box).textContent = c.label;
  }
  for (const e of g.edges()) {
    const pts = g.edge(e).points;
    el('path', { d: 'M' + pts.map((p) => `${p.x},${p.y}`).join(' L'), class: 'edge', 'marker-end': 'url(#arrow)' }, svg);
  }
  const figures = new Map();
  for (const id of g.nodes()) {
    const n = graph.nodes.get(id);
    if (!n) continue; // a cluster
    const p = g.node(id);
    const box = el('g', {
      class: `node node-${n.kind}${n.internal ? ' internal' : ''}`,
      transform: `translate(${p.x - W / 2},${p.y - H / 2})`,
      'data-node': n.label,
      'data-kind': n.kind,
    }, svg);
    el('rect', { width: W, height: H, rx: n.kind === 'topic' ? 14 : 4 }, box);
    const title = el('text', { x: 8, y: 15, class: 'label' }, box);
    title.textContent = clip(n.label, 31);
    el('title', {}, box).textContent = `${n.kind}: ${n.label}${n.sub !== undefined ? ` (sub-topology ${n.sub})` : ''}${n.what ? ' — ' + n.what : ''}`;
    const kind = el('text', { x: 8, y: 28, class: 'kind' }, box);
    kind.textContent = n.internal ? `internal topic` : n.kind;
    const l1 = el('text', { x: 8, y: 42, class: 'stat' }, box);
    const l2 = el('text', { x: 8, y: 55, class: 'stat' }, box);
    figures.set(id, [l1, l2]);
  }
  return (stats) => {
    for (const [id, [l1, l2]] of figures) {
      const lines = stats(graph.nodes.get(id)) || [];
      l1.textContent = lines[0] || '';
      l2.textContent = lines[1] || '';
    }
  };
}

function clip(s, n) {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}
