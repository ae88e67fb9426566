// sqlstream's web console: editor, catalog, topology graph and metrics
// over the REST API of the server that serves it.

import { ksql, queryStream, closeQuery, getJSON, getText, ApiError } from './api.js';
import { split, kind, parseSet, errorOffset } from './script.js';
import { createEditor } from './editor.js';
import { parseTopology, renderTopology } from './topology.js';
import { hostSamples, History, Charts } from './metrics.js';
import { h, clear, table, entityView } from './render.js';
import { queryOnHosts, nodeTotals, NodeRates, storeSizes, globalStores, upgradedAt, totals, taskRows, bytes } from './cluster.js';

const POLL_MS = 2000;
const $ = (id) => document.getElementById(id);

const state = {
  props: {}, // SET values, sent with every request
  vars: {}, // DEFINE values
  running: null, // {abort: AbortController, queryId}
  runs: 0, // Run presses, so a stopped run does not go on to its next statement
  sources: [],
  queries: [],
  history: new History(),
  charts: null,
  graph: null, // {id, update, graph}
  samples: [], // every host's engine metrics, each labelled with its host
  metricHosts: [], // the hosts /clusterMetrics asked: [{host, self, error}]
  completionNames: null, // the sources completion was last given
  logFollow: null, // the AbortController of followLog's push query
};

const editor = createEditor($('sql-editor'), () => run(), initialText());

function initialText() {
  return `-- Ctrl-Enter runs every statement; SELECT and PRINT stream into Result.
SHOW STREAMS;
`;
}

// ---- tabs ---------------------------------------------------------------

function showTab(name) {
  for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('active', b.dataset.tab === name);
  for (const p of document.querySelectorAll('.panel')) p.classList.toggle('active', p.id === name);
}
for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => showTab(b.dataset.tab));

// ---- running the editor's statements -------------------------------------

$('run').addEventListener('click', () => run());
$('stop').addEventListener('click', () => stopQuery());
$('refresh').addEventListener('click', () => refreshCatalog());

// run runs the editor's statements in order: SET/UNSET/DEFINE change the
// session, queries stream into the result area (a push query until Stop),
// everything else goes to /ksql one statement at a time so an error
// points at its statement.
async function run() {
  const src = editor.text();
  const stmts = split(src);
  const gen = ++state.runs; // a later Run ends this one's loop
  const out = $('result');
  clear(out);
  editor.markError(-1);
  showTab('result');
  await stopQuery();
  let ddl = false;
  for (const stmt of stmts) {
    if (gen !== state.runs) break;
    const block = h('div', { class: 'stmt-result' }, h('pre', { class: 'stmt-text' }, stmt.text));
    out.appendChild(block);
    try {
      const k = kind(stmt.text);
      if (k === 'set' || k === 'unset' || k === 'define' || k === 'undefine') {
        block.appendChild(session(stmt.text, k));
      } else if (k === 'query') {
        await runQuery(stmt.text, block);
      } else {
        const entities = await ksql(stmt.text, state.props, state.vars);
        for (const e of entities) block.appendChild(entityView(e));
        ddl = true;
      }
    } catch (err) {
      showError(block, err, stmt, src);
      break;
    }
  }
  if (ddl) refreshCatalog();
}

// session applies SET/UNSET/DEFINE/UNDEFINE to the console's session.
function session(text, k) {
  if (k === 'define' || k === 'undefine') {
    const m = /^(?:DEFINE\s+([A-Za-z_]\w*)\s*=\s*'((?:[^']|'')*)'|UNDEFINE\s+([A-Za-z_]\w*))\s*;?$/is.exec(text);
    if (!m) throw new ApiError(400, { message: 'line 1:1: expected DEFINE name = \'value\'; or UNDEFINE name;' });
    if (m[1]) state.vars[m[1]] = m[2].replace(/''/g, "'");
    else delete state.vars[m[3]];
    renderProps();
    return h('div', { class: 'ok' }, m[1] ? `Variable ${m[1]} defined` : `Variable ${m[3]} undefined`);
  }
  const s = parseSet(text);
  if (!s) throw new ApiError(400, { message: "line 1:1: expected SET 'name' = 'value'; or UNSET 'name';" });
  if (k === 'set') state.props[s.name] = s.value;
  else delete state.props[s.name];
  renderProps();
  return h('div', { class: 'ok' }, k === 'set' ? `Successfully changed local property '${s.name}' to '${s.value}'.` : `Successfully unset local property '${s.name}'.`);
}

function renderProps() {
  const parts = Object.entries(state.props).map(([k, v]) => `${k}=${v}`);
  for (const [k, v] of Object.entries(state.vars)) parts.push(`\${${k}}=${v}`);
  $('props').textContent = parts.length ? 'session: ' + parts.join(', ') : '';
}

// showError shows err under its statement and marks the position it
// names in the editor.
function showError(block, err, stmt, src) {
  const msg = err instanceof ApiError ? err.message : String(err);
  block.appendChild(h('pre', { class: 'error', 'data-testid': 'error' }, msg));
  const off = errorOffset(msg, stmt, src);
  editor.markError(off);
}

// runQuery streams a SELECT or PRINT into block: a table whose rows
// arrive live, or PRINT's lines; a push query runs until Stop.
async function runQuery(sql, block, props = state.props, vars = state.vars) {
  const abort = new AbortController();
  const run = { abort, queryId: null };
  state.running = run;
  $('stop').disabled = false;
  const status = h('div', { class: 'status', 'data-testid': 'query-status' }, 'running…');
  block.appendChild(status);
  let tbody = null;
  let lines = null;
  let n = 0;
  try {
    await queryStream(sql, { ...props }, { ...vars }, {
      header(hd) {
        run.queryId = hd.queryId;
        const t = table(hd.columnNames.map((c, i) => `${c} ${hd.columnTypes[i]}`), []);
        t.dataset.testid = 'rows';
        tbody = t.tBodies[0];
        block.appendChild(t);
      },
      row(values) {
        n++;
        if (tbody) tbody.appendChild(h('tr', {}, ...values.map((v) => h('td', {}, format(v)))));
        status.textContent = `running… ${n} rows`;
      },
      line(text) {
        if (!lines) block.appendChild((lines = h('pre', { class: 'print' })));
        lines.textContent += text + '\n';
      },
      error(err) {
        block.appendChild(h('pre', { class: 'error', 'data-testid': 'error' }, err.message));
      },
    }, abort.signal);
    status.textContent = `done, ${n} rows`;
  } catch (err) {
    if (err.name !== 'AbortError') {
      status.textContent = `failed after ${n} rows`;
      throw err;
    }
    status.textContent = `stopped, ${n} rows`;
  } finally {
    if (state.running === run) {
      state.running = null;
      $('stop').disabled = true;
    }
  }
}

// stopQuery stops the running query: the fetch is aborted and the server
// told to close it (it would notice the closed stream too).
async function stopQuery() {
  const r = state.running;
  if (!r) return;
  state.running = null;
  $('stop').disabled = true;
  r.abort.abort();
  if (r.queryId) await closeQuery(r.queryId).catch(() => {});
}

// ident quotes a name for SQL (a backtick inside is doubled).
function ident(name) {
  return '`' + name.replace(/`/g, '``') + '`';
}

function format(v) {
  if (v === null) return 'null';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

// ---- catalog --------------------------------------------------------------

// refreshQueries keeps the queries' states current between catalog
// refreshes.
async function refreshQueries() {
  const [queries] = await ksql('SHOW QUERIES;', state.props);
  state.queries = persistent(queries.queries);
  renderQueries();
}

// persistent keeps the persistent queries of SHOW QUERIES (it lists
// running push queries too, the console's own among them).
function persistent(queries) {
  return queries.filter((q) => q.queryType === 'PERSISTENT');
}

async function refreshCatalog() {
  try {
    const [streams, tables, queries, topics, types] = await ksql('SHOW STREAMS; SHOW TABLES; SHOW QUERIES; SHOW TOPICS; SHOW TYPES;', state.props);
    state.sources = [...streams.streams, ...tables.tables];
    state.queries = persistent(queries.queries);
    renderSources();
    renderQueries();
    renderTypes(types.types);
    renderTopics(topics.topics);
    const names = state.sources.map((s) => s.name).join(' ');
    if (names !== state.completionNames) {
      state.completionNames = names;
      updateCompletion();
    }
  } catch (err) {
    $('sources').replaceChildren(h('li', { class: 'error' }, String(err.message || err)));
  }
}

function renderSources() {
  $('sources').replaceChildren(...state.sources.map((s) => h('li', { 'data-source': s.name, 'data-type': s.type, title: `topic ${s.topic}, ${s.keyFormat}/${s.valueFormat}`, onclick: () => openSource(s) },
    h('span', { class: 'badge ' + s.type.toLowerCase() }, s.isGlobal ? 'GLOBAL' : s.type === 'STREAM' ? 'S' : 'T'),
    s.name, s.isWindowed ? h('span', { class: 'muted' }, ' windowed') : '')));
}

function renderQueries() {
  const open = state.graph && state.graph.id;
  $('queries').replaceChildren(...state.queries.map((q) => h('li', { 'data-query': q.id, 'data-state': q.state, class: q.id === open ? 'selected' : '', onclick: () => openQuery(q.id) },
    h('span', { class: 'state ' + (q.state || '').toLowerCase() }, q.state || '?'), ' ', q.id,
    h('div', { class: 'muted small' }, `${q.processingGuarantee || ''} · ${Object.entries(q.statusCount || {}).map(([s, n]) => `${n} ${s}`).join(', ')}`))));
}

function renderTypes(types) {
  $('types').replaceChildren(...Object.entries(types).map(([name, t]) => h('li', { 'data-type-name': name, title: JSON.stringify(t) }, name)));
}

function renderTopics(topics) {
  $('topics').replaceChildren(...topics.map((t) => h('li', { 'data-topic': t.name, onclick: () => openTopic(t.name), title: `${t.replicaInfo.length} partitions` }, t.name,
    h('span', { class: 'muted' }, ` ${t.replicaInfo.length}p`))));
}

// updateCompletion hands the sources' columns to the editor's completion.
async function updateCompletion() {
  const schema = {};
  const descs = await ksql(state.sources.map((s) => `DESCRIBE ${ident(s.name)};`).join(' '), {}).catch(() => []);
  for (const d of descs) if (d.sourceDescription) schema[d.sourceDescription.name] = d.sourceDescription.fields.map((f) => f.name);
  editor.setSchema(schema);
}

// openSource shows DESCRIBE EXTENDED of a stream or table with its
// actions.
async function openSource(s) {
  const box = $('details');
  showTab('details');
  clear(box);
  box.appendChild(h('h2', {}, `${s.type} ${s.name}`));
  box.appendChild(h('div', { class: 'actions' },
    h('button', { 'data-testid': 'source-select', onclick: () => editor.setText(`SELECT * FROM ${ident(s.name)} EMIT CHANGES;`) }, 'SELECT … EMIT CHANGES'),
    h('button', { class: 'danger', 'data-testid': 'source-drop', onclick: () => confirmRun(`Drop ${s.type.toLowerCase()} ${s.name}?`, (del) => `DROP ${s.type} ${ident(s.name)}${del ? ' DELETE TOPIC' : ''};`, true) }, 'DROP')));
  try {
    const [d] = await ksql(`DESCRIBE ${ident(s.name)} EXTENDED;`, state.props);
    box.appendChild(entityView(d));
  } catch (err) {
    box.appendChild(h('pre', { class: 'error' }, err.message));
  }
}

// openTopic tails a topic with PRINT … FROM BEGINNING until Stop.
async function openTopic(name) {
  const box = $('details');
  showTab('details');
  clear(box);
  await stopQuery();
  box.appendChild(h('h2', {}, `topic ${name}`));
  const block = h('div', { class: 'stmt-result' });
  box.appendChild(block);
  runQuery(`PRINT ${ident(name)} FROM BEGINNING LIMIT 100;`, block, {}, {}).catch((err) => block.appendChild(h('pre', { class: 'error' }, err.message)));
}

// confirmRun asks before running a destructive statement.
function confirmRun(question, sqlFor, withTopicOption) {
  const dlg = $('confirm');
  const box = $('confirm-delete-topic');
  box.checked = false;
  $('confirm-option').hidden = !withTopicOption;
  $('confirm-text').textContent = question;
  const show = () => ($('confirm-sql').textContent = sqlFor(box.checked));
  box.onchange = show;
  show();
  $('confirm-no').onclick = () => dlg.close();
  $('confirm-yes').onclick = async () => {
    dlg.close();
    const out = $('details');
    try {
      for (const e of await ksql(sqlFor(box.checked), state.props)) out.appendChild(entityView(e));
    } catch (err) {
      out.appendChild(h('pre', { class: 'error', 'data-testid': 'error' }, err.message));
    }
    refreshCatalog();
  };
  dlg.showModal();
}

// ---- a persistent query: graph, tasks, EXPLAIN ----------------------------

async function openQuery(id) {
  showTab('topology-panel');
  const head = $('topology-head');
  clear(head);
  clear($('figures-hosts'));
  head.appendChild(h('h2', {}, id));
  let desc;
  try {
    desc = (await ksql(`EXPLAIN ${id};`, state.props))[0].queryDescription;
  } catch (err) {
    head.appendChild(h('pre', { class: 'error' }, err.message));
    return;
  }
  head.appendChild(h('div', { class: 'muted' }, `${desc.state} · ${desc.processingGuarantee} · group ${desc.consumerGroupId} · hosts: ${Object.entries(desc.ksqlHostQueryStatus).map(([host, s]) => `${host} ${s}`).join(', ')}`));
  head.appendChild(h('div', { class: 'actions' },
    h('button', { class: 'danger', 'data-testid': 'query-terminate', onclick: () => confirmRun(`Terminate ${id}?`, () => `TERMINATE ${id};`, false) }, 'TERMINATE')));
  if (desc.queryErrors.length) head.appendChild(table(['time', 'type', 'error'], desc.queryErrors.map((e) => [new Date(e.timestamp).toISOString(), e.type, e.errorMessage])));
  const graph = parseTopology(desc.topology);
  state.graph = { id, desc, graph, update: renderTopology($('topology'), graph), rates: new NodeRates(), logCounts: new Map() };
  followLog(state.graph);
  $('explain').textContent = desc.topology + '\n' + desc.executionPlan;
  await refreshQueryFigures();
}

// followLog counts the open query's processing-log entries by task: late
// records apart from errors. An entry names the record's origin (its
// source topic and partition, through repartition hops), so it counts for
// the task of the sub-topology that read that partition, where the record
// entered the query, not necessarily the task that dropped it. It reads
// KSQL_PROCESSING_LOG from its start with a push query until another
// query is opened.
async function followLog(g) {
  if (state.logFollow) state.logFollow.abort();
  const abort = new AbortController();
  state.logFollow = abort;
  const subOfTopic = {};
  for (const [a, b] of g.graph.edges) {
    const n = g.graph.nodes.get(b);
    if (a.startsWith('topic:') && n.kind === 'source') subOfTopic[a.slice('topic:'.length)] = n.sub;
  }
  const sql = 'SELECT MESSAGE->TYPE AS T, MESSAGE->RECORDTOPIC AS TP, MESSAGE->RECORDPARTITION AS P FROM KSQL_PROCESSING_LOG ' +
    `WHERE MESSAGE->QUERYID = '${g.id.replace(/'/g, "''")}' EMIT CHANGES;`;
  let queryId = null;
  try {
    await queryStream(sql, { 'auto.offset.reset': 'earliest' }, {}, {
      header: (hd) => (queryId = hd.queryId),
      row([type, topic, partition]) {
        const task = `${subOfTopic[topic] ?? '?'}_${partition}`;
        const c = g.logCounts.get(task) || g.logCounts.set(task, { late: 0, errors: 0 }).get(task);
        if (type === 'LATE_RECORD') c.late++;
        else c.errors++;
      },
      line: () => {},
      error: (err) => (g.logError = err.message),
    }, abort.signal);
  } catch (err) {
    if (err.name !== 'AbortError') g.logError = err.message;
    else if (queryId) closeQuery(queryId).catch(() => {});
  }
}

// refreshQueryFigures writes the live figures of the open query, from
// every server of the service id (GET /clusterTasks; a host that did not
// answer is named above the graph): each source's, processor's and
// sink's records and records/s (a join's inner nodes and a global
// table's store section included), store keys, bytes and changelog lag
// on its stores (a global store: rows and its topic lag), and the
// per-task table, a row per task and host.
async function refreshQueryFigures() {
  const g = state.graph;
  if (!g) return;
  let ct;
  try {
    ct = await getJSON('/clusterTasks');
  } catch (err) {
    ct = { hosts: [], error: err.message };
  }
  if (state.graph !== g) return;
  const hosts = queryOnHosts(ct, g.id);
  const globalSubs = new Set(g.graph.subs.filter((s) => s.global).map((s) => s.id));
  g.rates.add(Date.now() / 1000, nodeTotals(hosts, globalSubs));
  const nodes = g.rates.figures();
  const sizes = storeSizes(hosts);
  const globals = globalStores(hosts);
  g.update((n) => nodeLines(n, nodes, sizes, globals));
  renderHosts(ct, hosts);
  renderTasks(g, hosts);
}

// nodeLines are the two lines of live figures under a node's label.
function nodeLines(n, nodes, sizes, globals) {
  const c = nodes[n.label];
  if (c && (n.kind === 'source' || n.kind === 'processor' || n.kind === 'sink')) {
    const since = c.since ? ` since ${new Date(c.since).toISOString().slice(11, 19)}` : '';
    const perHost = inGlobalSection(n) ? ' per host' : '';
    return [`${c.total} records in${perHost}${since}`, c.rate === null ? '' : `${c.rate.toFixed(1)} records/s`];
  }
  if (n.kind === 'store' && n.global) {
    const s = globals[n.label];
    return s ? [`${s.rows} rows, ~${bytes(s.bytes)}`, `topic lag ${s.lag < 0 ? '?' : s.lag}`] : [];
  }
  if (n.kind === 'store') {
    const s = sizes[n.label];
    return s ? [`${s.keys} keys, ~${bytes(s.bytes)}`, `changelog lag ${s.lag}`] : [];
  }
  if (n.kind === 'topic' && n.internal) return [n.what.split(' (')[0].slice(0, 30)];
  return [];
}

// inGlobalSection says whether node n belongs to a global store's section (its records
// are each host's, not a share).
function inGlobalSection(n) {
  const sub = state.graph && state.graph.graph.subs.find((s) => s.id === n.sub);
  return !!(sub && sub.global);
}

// renderHosts says where the figures come from: the hosts that answered,
// those that did not (and why), and an upgrade in place.
function renderHosts(ct, hosts) {
  const box = $('figures-hosts');
  const ok = hosts.filter((h) => !h.error).map((h) => h.host);
  const parts = [`figures from ${ok.length} host${ok.length === 1 ? '' : 's'}: ${ok.join(', ')}`];
  const failed = hosts.filter((h) => h.error);
  const up = upgradedAt(hosts);
  box.replaceChildren(h('div', { class: 'muted' }, parts.join('')),
    ...(ct.error ? [h('div', { class: 'error', 'data-host-error': '' }, `GET /clusterTasks: ${ct.error}`)] : []),
    ...failed.map((f) => h('div', { class: 'error', 'data-host-error': f.host }, `${f.host} did not answer: ${f.error}; its figures are missing`)),
    ...(up ? [h('div', { class: 'upgraded', 'data-testid': 'upgraded' }, `upgraded in place (CREATE OR REPLACE) at ${new Date(up).toISOString()}: counts go on from the plan before; a node the new plan added counts from then`)] : []));
}

// renderRates tabulates each query's latest figures above the charts: a
// row summed over the hosts, then a row per host (records in and out,
// consumer lag, mean commit and transaction end on that host), with the
// hosts that did not answer named above the table.
function renderRates() {
  const hs = state.history;
  const fixed = (v, digits = 1) => (v === null || v === undefined ? '' : v.toFixed(digits));
  const mean = (series) => fixed(series.length ? series[series.length - 1] : null);
  const row = (q, host) => [host === undefined ? q : '', host === undefined ? `all (${hs.hostsOf(q).length})` : host,
    fixed(hs.latest('processed', q, host)), fixed(hs.latest('out', q, host)), fixed(hs.latest('logged', q, host)), fixed(hs.latest('late', q, host)),
    hs.total('processed', q, host) ?? '', hs.total('out', q, host) ?? '', hs.total('consumerLag', q, host) ?? '',
    mean(hs.commitMeanMs(q, host)), mean(hs.txnMeanMs(q, host)), host === undefined ? hs.total('storeLag', q) ?? '' : ''];
  const rows = [];
  const attrs = [];
  for (const q of hs.queries()) {
    rows.push(row(q));
    const each = hs.hostsOf(q).map((host) => `${host}: ${fixed(hs.latest('processed', q, host))} in/s, ${fixed(hs.latest('out', q, host))} out/s`);
    attrs.push({ 'data-query': q, 'data-host': '', title: each.join('\n') });
    for (const host of hs.hostsOf(q)) {
      rows.push(row(q, host));
      attrs.push({ 'data-query': q, 'data-host': host, class: 'host-row' });
    }
  }
  const t = table(['query', 'host', 'records in/s', 'records out/s', 'processing-log/s', 'late/s', 'records in', 'records out', 'consumer lag',
    'commit ms (at_least_once)', 'transaction ms (exactly_once_v2)', 'store changelog lag'], rows);
  [...t.tBodies[0].rows].forEach((tr, i) => Object.entries(attrs[i]).forEach(([k, v]) => tr.setAttribute(k, v)));
  const ok = state.metricHosts.filter((m) => !m.error).map((m) => m.host);
  $('rates').replaceChildren(h('div', { class: 'muted', 'data-testid': 'metrics-hosts' }, `figures from ${ok.length} host${ok.length === 1 ? '' : 's'}: ${ok.join(', ')}`),
    ...state.metricHosts.filter((m) => m.error).map((m) => h('div', { class: 'error', 'data-metrics-host-error': m.host }, `${m.host} did not answer: ${m.error}; its figures are missing`)),
    t);
}

// lagByQuery sums each query's store changelog lags over its store
// partitions and hosts (an unknown lag, -1, counts as none).
function lagByQuery(cluster) {
  const out = {};
  for (const hs of Object.values((cluster && cluster.clusterStatus) || {})) {
    for (const [q, lags] of Object.entries(hs.hostStoreLags.stateStoreLags || {})) {
      out[q] = (out[q] || 0) + Object.values(lags.lagByPartition || {}).reduce((a, l) => a + Math.max(l.offsetLag, 0), 0);
    }
  }
  return out;
}

// renderTasks lists each task (sub-topology_partition) on each host
// with its role and state there, an active task's consumer lag (records
// between its position and its inputs' ends, "?" until a fetch told
// them), its stores' size and changelog lag on that host, its stream
// time and open windows (windowed tasks, this server's /metrics), and
// its late records and other processing-log entries as the processing
// log holds them (followLog; by the task the record entered by, shown on
// its active copy).
function renderTasks(g, hosts) {
  const rows = taskRows(hosts);
  const tasks = new Set(rows.map((r) => r.task));
  for (const id of g.logCounts.keys()) if (!tasks.has(id)) rows.push({ task: id, host: '', role: '', consumer: '', stores: [], lag: [] });
  const local = {}; // "host task" → its stream time and open windows
  for (const s of state.samples) {
    if (s.labels.query !== g.id || !s.labels.task) continue;
    const key = `${s.labels.host} ${s.labels.task}`;
    const o = local[key] || (local[key] = { stream: '', open: '' });
    if (s.name === 'sqlstream_task_stream_time_ms') o.stream = new Date(s.value).toISOString();
    if (s.name === 'sqlstream_task_open_windows') o.open = String(s.value);
  }
  const box = $('tasks');
  clear(box);
  box.appendChild(h('div', { class: 'muted' }, `query totals (every host): ${totals(hosts, 'lateRecords')} late records dropped, ${totals(hosts, 'processingLogEntries')} processing-log entries` +
    (g.logError ? ` (reading the processing log: ${g.logError})` : '')));
  rows.sort((a, b) => a.task.localeCompare(b.task, 'en', { numeric: true }) || a.host.localeCompare(b.host));
  box.appendChild(table(['task', 'host', 'role', 'consumer lag', 'store size', 'changelog lag', 'stream time', 'open windows', 'late records (by origin)', 'processing-log errors (by origin)'],
    rows.map((r) => {
      const c = r.role.startsWith('ACTIVE') || !r.host ? g.logCounts.get(r.task) || { late: 0, errors: 0 } : { late: '', errors: '' };
      const l = (r.role.startsWith('ACTIVE') && local[`${r.host} ${r.task}`]) || { stream: '', open: '' };
      return [r.task, r.host, r.role, r.consumer, r.stores.join('; '), r.lag.join('; '), l.stream, l.open, c.late, c.errors];
    })));
}


// ---- metrics, cluster, registry ---------------------------------------------

async function poll() {
  try {
    const [metrics, cluster] = await Promise.all([clusterMetrics(), getJSON('/clusterStatus').catch(() => null)]);
    state.samples = metrics.samples;
    state.metricHosts = metrics.hosts;
    state.history.add(Date.now() / 1000, state.samples, lagByQuery(cluster), metrics.hosts);
    if (!state.charts) state.charts = new Charts($('charts'));
    state.charts.draw(state.history);
    renderRates();
    await refreshQueries();
    await refreshQueryFigures();
    if ($('cluster').classList.contains('active')) await renderCluster();
  } catch (err) {
    $('health').textContent = `metrics: ${err.message}`;
  }
}

// clusterMetrics reads every host's engine metrics (GET /clusterMetrics);
// a server without it (404) gives its own /metrics as the one host.
async function clusterMetrics() {
  try {
    return hostSamples(await getJSON('/clusterMetrics'));
  } catch (err) {
    if (err.status !== 404) throw err;
    return hostSamples({ hosts: [{ host: 'this server', self: true, metrics: await getText('/metrics') }] });
  }
}

async function renderCluster() {
  const box = $('cluster');
  const cs = await getJSON('/clusterStatus');
  clear(box);
  const rows = [];
  for (const [host, hs] of Object.entries(cs.clusterStatus)) {
    for (const [q, as] of Object.entries(hs.activeStandbyPerQuery)) {
      rows.push([host, hs.hostAlive ? 'alive' : 'down', q, as.activePartitions.map((p) => `${p.topic}/${p.partition}`).join(' '), as.standByPartitions.map((p) => `${p.topic}/${p.partition}`).join(' '), as.activeStores.join(' ')]);
    }
    if (!Object.keys(hs.activeStandbyPerQuery).length) rows.push([host, hs.hostAlive ? 'alive' : 'down', '', '', '', '']);
  }
  box.appendChild(table(['host', 'status', 'query', 'active partitions', 'standby partitions', 'stores'], rows));
}

async function renderRegistry() {
  const box = $('registry');
  clear(box);
  try {
    const subjects = await getJSON('/schema-registry/subjects');
    box.appendChild(h('h2', {}, `Subjects: ${subjects.length}`));
    box.appendChild(h('ul', { 'data-testid': 'subjects' }, ...subjects.map((s) => h('li', { 'data-subject': s, onclick: () => openSubject(s) }, s))));
  } catch (err) {
    box.appendChild(h('div', { class: 'muted' }, err.status === 404 ? 'This server runs no embedded schema registry.' : err.message));
  }
}

// openSubject shows a subject's latest schema (JSON schemas indented).
async function openSubject(s) {
  const box = $('registry');
  const old = box.querySelector('.schema');
  if (old) old.remove();
  try {
    const v = await getJSON(`/schema-registry/subjects/${encodeURIComponent(s)}/versions/latest`);
    let text = v.schema;
    try {
      text = JSON.stringify(JSON.parse(v.schema), null, 2);
    } catch (_) {
      // a protobuf schema: shown as written
    }
    box.appendChild(h('pre', { class: 'schema' }, `${s} v${v.version} (id ${v.id}, ${v.schemaType || 'AVRO'})\n${text}`));
  } catch (err) {
    box.appendChild(h('pre', { class: 'schema error' }, err.message));
  }
}

document.querySelector('[data-tab=cluster]').addEventListener('click', () => renderCluster().catch((e) => ($('cluster').textContent = e.message)));
document.querySelector('[data-tab=registry]').addEventListener('click', () => renderRegistry());

async function start() {
  try {
    const info = (await getJSON('/info')).KsqlServerInfo;
    $('server-info').textContent = `${info.version} · service ${info.ksqlServiceId} · ${info.serverStatus}`;
    const health = await getJSON('/healthcheck').catch((e) => ({ isHealthy: false, error: e.message }));
    $('health').textContent = health.isHealthy ? 'healthy' : 'unhealthy';
    $('health').className = health.isHealthy ? 'ok' : 'error';
  } catch (err) {
    $('server-info').textContent = err.message;
  }
  await refreshCatalog();
  await poll();
  setInterval(poll, POLL_MS);
  setInterval(refreshCatalog, POLL_MS * 5);
}

start();
