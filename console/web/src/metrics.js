// Live metrics: GET /metrics (Prometheus' text format) polled every few
// seconds, turned into per-query rates — records processed, processing-
// log entries, late records — the mean transaction end of
// exactly_once_v2 queries and the mean commit of at_least_once ones, the
// consumer lag of this server's tasks and each topology node's records,
// drawn with uPlot, with the stores' changelog lag from /clusterStatus.

import uPlot from 'uplot';

// parseMetrics returns [{name, labels: {…}, value}] for each sample line.
export function parseMetrics(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (line === '' || line[0] === '#') continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels = {};
    for (const l of (m[2] || '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2].replace(/\\(.)/g, '$1');
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

// perQuery sums the samples of a metric by their query label.
export function perQuery(samples, name) {
  const out = {};
  for (const s of samples) if (s.name === name && s.labels.query) out[s.labels.query] = (out[s.labels.query] || 0) + s.value;
  return out;
}

// perNode sums sqlstream_node_records_total of query q by node name.
export function perNode(samples, q) {
  const out = {};
  for (const s of samples) if (s.name === 'sqlstream_node_records_total' && s.labels.query === q) out[s.labels.node] = (out[s.labels.node] || 0) + s.value;
  return out;
}

const COUNTERS = {
  processed: 'sqlstream_query_records_processed_total',
  logged: 'sqlstream_query_processing_log_total',
  late: 'sqlstream_query_late_records_total',
  skipped: 'sqlstream_query_skipped_records_total',
};

// History keeps the last points of each query's counters and turns them
// into rates per second.
export class History {
  constructor(keep = 60) {
    this.keep = keep;
    this.times = [];
    this.points = []; // [{processed: {q: n}, …, txnSum: {q}, txnCount: {q}, consumerLag: {q}, samples}]
  }

  // add records one poll: the /metrics samples and the store changelog
  // lag per query (summed over store partitions and hosts).
  add(t, samples, storeLag = {}) {
    const p = { storeLag };
    for (const [k, name] of Object.entries(COUNTERS)) p[k] = perQuery(samples, name);
    p.txnSum = perQuery(samples, 'sqlstream_query_transaction_end_seconds_sum');
    p.txnCount = perQuery(samples, 'sqlstream_query_transaction_end_seconds_count');
    p.commitSum = perQuery(samples, 'sqlstream_query_commit_seconds_sum');
    p.commitCount = perQuery(samples, 'sqlstream_query_commit_seconds_count');
    // Each task's lag is exported once known; a query with none known
    // has no point.
    p.consumerLag = perQuery(samples, 'sqlstream_task_consumer_lag');
    p.samples = samples;
    this.times.push(t);
    this.points.push(p);
    if (this.times.length > this.keep) {
      this.times.shift();
      this.points.shift();
    }
  }

  queries() {
    const qs = new Set();
    for (const p of this.points) for (const q of Object.keys(p.processed)) qs.add(q);
    return [...qs].sort();
  }

  // rate returns the per-second rate of counter k of query q between
  // each two points (null where a point lacks the query).
  rate(k, q) {
    const out = [];
    for (let i = 1; i < this.points.length; i++) {
      const a = this.points[i - 1][k][q];
      const b = this.points[i][k][q];
      const dt = this.times[i] - this.times[i - 1];
      out.push(a === undefined || b === undefined || dt <= 0 ? null : Math.max(b - a, 0) / dt);
    }
    return out;
  }

  // latest returns the newest rate of counter k of query q, or null.
  latest(k, q) {
    const r = this.rate(k, q);
    return r.length ? r[r.length - 1] : null;
  }

  // total returns the newest value of counter k of query q.
  total(k, q) {
    const p = this.points[this.points.length - 1];
    return p ? p[k][q] : undefined;
  }

  // gauge returns field k (a gauge, not a counter) of query q at each
  // point after the first.
  gauge(k, q) {
    return this.points.slice(1).map((p) => (p[k][q] === undefined ? null : p[k][q]));
  }

  // txnMeanMs is the mean transaction end, in ms, between two points.
  txnMeanMs(q) {
    return this.meanMs('txnSum', 'txnCount', q);
  }

  // commitMeanMs is the mean at_least_once commit, in ms, between two
  // points.
  commitMeanMs(q) {
    return this.meanMs('commitSum', 'commitCount', q);
  }

  // meanMs is the mean of a summary (fields sum and count) of query q,
  // in ms, between each two points (null where none was observed).
  meanMs(sum, count, q) {
    const out = [];
    for (let i = 1; i < this.points.length; i++) {
      const ds = (this.points[i][sum][q] ?? 0) - (this.points[i - 1][sum][q] ?? 0);
      const dc = (this.points[i][count][q] ?? 0) - (this.points[i - 1][count][q] ?? 0);
      out.push(dc > 0 ? (ds / dc) * 1000 : null);
    }
    return out;
  }

  // nodeFigures returns, for each node of query q, its records so far
  // and its records/s between the last two points (null with one point).
  nodeFigures(q) {
    const n = this.points.length;
    const out = {};
    if (!n) return out;
    const now = perNode(this.points[n - 1].samples, q);
    const before = n > 1 ? perNode(this.points[n - 2].samples, q) : {};
    const dt = n > 1 ? this.times[n - 1] - this.times[n - 2] : 0;
    for (const [node, total] of Object.entries(now)) {
      out[node] = { total, rate: dt > 0 && before[node] !== undefined ? Math.max(total - before[node], 0) / dt : null };
    }
    return out;
  }
}

// Charts draws one uPlot chart per figure, each with a series per query.
export class Charts {
  constructor(container) {
    this.container = container;
    this.plots = new Map();
  }

  draw(history) {
    const qs = history.queries();
    const xs = history.times.slice(1);
    const figures = [
      ['records/s', (q) => history.rate('processed', q)],
      ['processing-log entries/s', (q) => history.rate('logged', q)],
      ['late records/s', (q) => history.rate('late', q)],
      ['transaction end, mean ms (exactly_once_v2)', (q) => history.txnMeanMs(q)],
      ['commit, mean ms (at_least_once)', (q) => history.commitMeanMs(q)],
      ['consumer lag, records (tasks on this server)', (q) => history.gauge('consumerLag', q)],
      ['store changelog lag, records (all hosts)', (q) => history.gauge('storeLag', q)],
    ];
    const key = qs.join(',');
    for (const [title, series] of figures) {
      const data = [xs, ...qs.map(series)];
      let entry = this.plots.get(title);
      if (!entry || entry.key !== key) {
        if (entry) entry.plot.destroy();
        const div = entry ? entry.div : document.createElement('div');
        div.className = 'chart';
        div.dataset.chart = title;
        if (!entry) this.container.appendChild(div);
        const plot = new uPlot(
          {
            title,
            width: 420,
            height: 170,
            series: [{}, ...qs.map((q, i) => ({ label: q, stroke: COLORS[i % COLORS.length], width: 1.5, spanGaps: true }))],
            axes: [{}, { size: 50 }],
            scales: { x: { time: true } },
          },
          data,
          div,
        );
        entry = { plot, key, div };
        this.plots.set(title, entry);
      } else {
        entry.plot.setData(data);
      }
    }
  }
}

const COLORS = ['#2a6fdb', '#d9480f', '#2b8a3e', '#862e9c', '#e67700', '#0b7285', '#c2255c'];
