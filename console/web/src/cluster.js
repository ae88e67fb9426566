// A persistent query's figures across the servers of a service id: GET
// /clusterTasks is GET /tasks of every host (this one first, each asked
// by the server as a peer; a host that did not answer carries an error),
// turned here into what the graph and the task table show. Every host
// runs its share of the tasks, so the nodes' records add up; a global
// table's store is loaded in full on every host, so its section's nodes
// show the most any host loaded, and its lag the worst host's.

// queryOnHosts returns, for query id, one entry per host: {host, self,
// error, q} where q is the host's entry for the query (null when the
// host runs none of it, or did not answer).
export function queryOnHosts(ct, id) {
  return ((ct && ct.hosts) || []).map((h) => ({
    host: h.host,
    self: !!h.self,
    error: h.error || '',
    q: (h.queries || []).find((q) => q.queryId === id) || null,
  }));
}

// nodeTotals sums each node's records over the hosts; a node of a
// global store's section (its sub-topology in globalSubs) takes the
// largest host's instead. Returns {node: {total, since}} with since the
// latest upgrade time (ms) from which a node added by an upgrade counts
// (0: since the query started).
export function nodeTotals(hosts, globalSubs = new Set()) {
  const out = {};
  for (const { q } of hosts) {
    if (!q) continue;
    for (const n of q.nodes || []) {
      const o = out[n.node] || (out[n.node] = { total: 0, since: 0 });
      o.total = globalSubs.has(n.subTopology) ? Math.max(o.total, n.records) : o.total + n.records;
      o.since = Math.max(o.since, n.sinceMs || 0);
    }
  }
  return out;
}

// NodeRates turns successive node totals into records/s between the
// last two polls (null until there are two; never negative, as a host
// that stops answering takes its counts away).
export class NodeRates {
  constructor() {
    this.prev = null;
    this.last = null;
  }

  add(t, totals) {
    this.prev = this.last;
    this.last = { t, totals };
  }

  figures() {
    const out = {};
    if (!this.last) return out;
    const dt = this.prev ? this.last.t - this.prev.t : 0;
    for (const [node, { total, since }] of Object.entries(this.last.totals)) {
      const before = this.prev && this.prev.totals[node];
      out[node] = { total, since, rate: dt > 0 && before ? Math.max(total - before.total, 0) / dt : null };
    }
    return out;
  }
}

// storeSizes sums each store's keys and bytes over its active copies
// (a standby holds a copy of the same rows, not more of them), and its
// changelog lag over every copy (an active one's restoration, a
// replica's; an unknown lag counts as none).
export function storeSizes(hosts) {
  const out = {};
  for (const { q } of hosts) {
    for (const t of (q && q.tasks) || []) {
      for (const s of t.stores || []) {
        const o = out[s.store] || (out[s.store] = { keys: 0, bytes: 0, lag: 0 });
        o.lag += Math.max(s.lag, 0);
        if (t.role !== 'ACTIVE') continue;
        o.keys += s.keys || 0;
        o.bytes += s.bytes || 0;
      }
    }
  }
  return out;
}

// globalStores gives each global store its figures over the hosts:
// rows and bytes of the fullest copy, the worst known lag (-1: none
// known), and the hosts that hold it.
export function globalStores(hosts) {
  const out = {};
  for (const { host, q } of hosts) {
    for (const g of (q && q.globalStores) || []) {
      const o = out[g.store] || (out[g.store] = { rows: 0, bytes: 0, lag: -1, hosts: [] });
      o.rows = Math.max(o.rows, g.rows);
      o.bytes = Math.max(o.bytes, g.bytes);
      o.lag = Math.max(o.lag, g.lag);
      o.hosts.push(host);
    }
  }
  return out;
}

// upgradedAt is the latest upgrade of the query on any host (ms; 0:
// none).
export function upgradedAt(hosts) {
  return hosts.reduce((a, { q }) => Math.max(a, (q && q.upgradedAtMs) || 0), 0);
}

// totals sums a counter of the query (recordsProcessed,
// processingLogEntries, lateRecords) over the hosts that answered.
export function totals(hosts, field) {
  return hosts.reduce((a, { q }) => a + ((q && q[field]) || 0), 0);
}

// taskRows lists each host's copies of each task: {task, host, self,
// role, consumer, stores, lag}, by task then host.
export function taskRows(hosts) {
  const rows = [];
  for (const { host, self, q } of hosts) {
    for (const t of (q && q.tasks) || []) {
      rows.push({
        task: t.taskId,
        host,
        self,
        role: t.role + (t.state ? ' ' + t.state : ''),
        consumer: t.consumerLag === undefined ? '' : consumerLag(t),
        stores: (t.stores || []).map((s) => `${s.store}: ${s.keys} keys, ~${bytes(s.bytes)}`),
        lag: (t.stores || []).map((s) => (s.lag < 0 ? '?' : String(s.lag))),
      });
    }
  }
  return rows.sort((a, b) => a.task.localeCompare(b.task, 'en', { numeric: true }) || a.host.localeCompare(b.host));
}

// consumerLag is an active task's consumer lag, with each input's
// when it reads several ("?" until a fetch told it).
export function consumerLag(t) {
  const total = t.consumerLag < 0 ? '?' : String(t.consumerLag);
  if ((t.inputs || []).length < 2) return total;
  return `${total} (${t.inputs.map((i) => `${i.topic}: ${i.lag < 0 ? '?' : i.lag}`).join(', ')})`;
}

export function bytes(n) {
  return n < 1024 ? `${n} B` : n < 1 << 20 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / (1 << 20)).toFixed(1)} MiB`;
}
