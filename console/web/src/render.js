// Small DOM helpers and the rendering of /ksql's entities.

// h builds an element: attributes (on* are listeners) and children
// (strings become text nodes).
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== undefined && c !== null && c !== '') e.append(c);
  return e;
}

export function clear(e) {
  e.replaceChildren();
}

// table builds a table of rows (arrays of cell text).
export function table(columns, rows) {
  return h('table', {},
    h('thead', {}, h('tr', {}, ...columns.map((c) => h('th', {}, c)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c === undefined || c === null ? '' : String(c)))))));
}

const typeOf = (s) => (s.type === 'STRUCT' ? `STRUCT<${(s.fields || []).map((f) => `${f.name} ${typeOf(f.schema)}`).join(', ')}>`
  : s.type === 'ARRAY' ? `ARRAY<${typeOf(s.memberSchema)}>` : s.type === 'MAP' ? `MAP<STRING, ${typeOf(s.memberSchema)}>` : s.type);

// entityView renders one entity of a /ksql answer.
export function entityView(e) {
  const box = h('div', { class: 'entity', 'data-entity': e['@type'] });
  const render = VIEWS[e['@type']];
  if (render) render(e, box);
  else box.appendChild(h('pre', {}, JSON.stringify(e, null, 2)));
  for (const w of e.warnings || []) box.appendChild(h('div', { class: 'warning' }, w.message));
  return box;
}

const VIEWS = {
  currentStatus: (e, box) => box.appendChild(h('div', { class: 'ok' }, e.commandStatus.message)),
  streams: (e, box) => box.appendChild(sourceTable(e.streams)),
  tables: (e, box) => box.appendChild(sourceTable(e.tables)),
  queries: (e, box) => box.appendChild(table(['id', 'type', 'state', 'sinks', 'guarantee', 'query'], e.queries.map((q) => [q.id, q.queryType, q.state, q.sinks.join(', '), q.processingGuarantee, q.queryString]))),
  kafka_topics: (e, box) => box.appendChild(table(['topic', 'partitions', 'replicas'], e.topics.map((t) => [t.name, t.replicaInfo.length, t.replicaInfo.join(' ')]))),
  properties: (e, box) => box.appendChild(table(['property', 'scope', 'value'], e.properties.map((p) => [p.name, p.scope, p.value]))),
  type_list: (e, box) => box.appendChild(table(['type', 'schema'], Object.entries(e.types).map(([n, t]) => [n, typeOf(t)]))),
  sourceDescription: (e, box) => describe(e.sourceDescription, box),
  queryDescription: (e, box) => {
    const d = e.queryDescription;
    box.appendChild(table(['column', 'type'], d.fields.map((f) => [f.name + (f.type === 'KEY' ? ' (key)' : ''), typeOf(f.schema)])));
    box.appendChild(h('pre', {}, d.topology + '\n' + d.executionPlan));
  },
};

function sourceTable(list) {
  return table(['name', 'topic', 'key format', 'value format', 'windowed'], list.map((s) => [s.name + (s.isGlobal ? ' (global)' : ''), s.topic, s.keyFormat, s.valueFormat, s.isWindowed]));
}

function describe(d, box) {
  box.appendChild(h('div', { class: 'muted' }, `${d.type}${d.isGlobal ? ' (global)' : ''} · topic ${d.topic} (${d.partitions ?? '?'} partitions) · ${d.keyFormat}/${d.valueFormat}${d.windowType ? ' · ' + d.windowType : ''}`));
  box.appendChild(table(['column', 'type'], d.fields.map((f) => [f.name + (f.type === 'KEY' ? ' (key)' : f.type === 'HEADER' ? ' (header)' : ''), typeOf(f.schema)])));
  const queries = [...(d.writeQueries || []).map((q) => ['writes', q.id, q.state]), ...(d.readQueries || []).map((q) => ['reads', q.id, q.state])];
  if (queries.length) box.appendChild(table(['', 'query', 'state'], queries));
  if (d.statistics) box.appendChild(h('pre', { class: 'stats' }, d.statistics + '\n' + (d.errorStats || '')));
  if (d.statement) box.appendChild(h('pre', {}, d.statement));
}
