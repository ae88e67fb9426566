// Live metrics across the servers of the service id: GET /clusterMetrics
// (each server's engine metrics in Prometheus' text format, the others
// asked by this server as a peer) polled every few seconds, turned into
// per-query rates summed over the hosts and per host — records in and
// out, processing-log entries, late records — the mean transaction end
// of exactly_once_v2 queries and the mean commit of at_least_once ones,
// the consumer lag of every host's tasks, drawn with uPlot, with the
// stores' changelog lag from /clusterStatus.

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

// hostSamples turns GET /clusterMetrics (each server's engine metrics
// in Prometheus' text format, this one first, a server that did not
// answer with its error) into one sample list, each sample labelled with
// its host, and the hosts: [{host, self, error}].
export function hostSamples(cm) {
  const samples = [];
  const hosts = [];
  for (const hm of (cm && cm.hosts) || []) {
    hosts.push({ host: hm.host, self: !!hm.self, error: hm.error || '' });
    if (hm.error) continue;
    for (const s of parseMetrics(hm.metrics || '')) {
      s.labels.host = hm.host;
      samples.push(s);
    }
  }
  return { samples, hosts };
}

// perQuery sums the samples of a metric by their query label.
export function perQuery(samples, name) {
  const out = {};
  for (const s of samples) if (s.name === name && s.labels.query) out[s.labels.query] = (out[s.labels.query] || 0) + s.value;
  return out;
}

// perQueryHost sums the samples of a metric by query and host label
// ({query: {host: value}}; a sample without a host is "").
export function perQueryHost(samples, name) {
  const out = {};
  for (const s of samples) {
    if (s.name !== name || !s.labels.query) continue;
    const q = out[s.labels.query] || (out[s.labels.query] = {});
    const host = s.labels.host || '';
    q[host] = (q[host] || 0) + s.value;
  }
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
  out: 'sqlstream_query_records_out_total',
  logged: 'sqlstream_query_processing_log_total',
  late: 'sqlstream_query_late_records_total',
  skipped: 'sqlstream_query_skipped_records_total',
  txnSum: 'sqlstream_query_transaction_end_seconds_sum',
  txnCount: 'sqlstream_query_transaction_end_seconds_count',
  commitSum: 'sqlstream_query_commit_seconds_sum',
  commitCount: 'sqlstream_query_commit_seconds_count',
  // Each task's lag is exported once known; a query with none known
  // has no point.
  consumerLag: 'sqlstream_task_consumer_lag',
};

// History keeps the last points of each query's figures on each host.
// A rate is taken per host, between two points that both have the
// host's figure, and summed over the hosts: a host that stops answering
// (or restarts, its counters from 0) adds nothing for that interval
// rather than a drop or a jump of the sum.
export class History {
  constructor(keep = 60) {
    this.keep = keep;
    this.times = [];
    this.points = []; // [{processed: {q: {host: n}}, …, storeLag: {q: {'': n}}, hosts, samples}]
  }

  // add records one poll: the samples (labelled by host; a sample
  // without a host counts as host ""), the store changelog lag per query
  // (summed over store partitions and hosts) and the hosts asked.
  add(t, samples, storeLag = {}, hosts = []) {
    const p = { storeLag: {}, hosts, samples };
    for (const [q, n] of Object.entries(storeLag)) p.storeLag[q] = { '': n };
    for (const [k, name] of Object.entries(COUNTERS)) p[k] = perQueryHost(samples, name);
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

  // hostsOf returns the hosts with figures of query q at the newest
  // point, in order.
  hostsOf(q) {
    const p = this.points[this.points.length - 1];
    return p && p.processed[q] ? Object.keys(p.processed[q]).sort() : [];
  }

  // hostsSeen returns the hosts with figures of query q at any point
  // kept, in order (a host that stopped answering keeps its series, its
  // points ending where it stopped).
  hostsSeen(q) {
    const hs = new Set();
    for (const p of this.points) for (const h of Object.keys(p.processed[q] || {})) hs.add(h);
    return [...hs].sort();
  }

  // pairs calls f(a, b, dt) for each host (all, or only host) of field
  // k of query q present at both points i-1 and i, and says whether
  // there was one.
  pairs(i, k, q, host, f) {
    const a = this.points[i - 1][k][q] || {};
    const b = this.points[i][k][q] || {};
    const dt = this.times[i] - this.times[i - 1];
    let any = false;
    for (const h of Object.keys(b)) {
      if ((host !== undefined && h !== host) || a[h] === undefined || dt <= 0) continue;
      any = true;
      f(a[h], b[h], dt);
    }
    return any;
  }

  // rate returns the per-second rate of counter k of query q between
  // each two points, summed over the hosts (or of host alone); null
  // where no host has the query at both points. Never negative.
  rate(k, q, host) {
    const out = [];
    for (let i = 1; i < this.points.length; i++) {
      let sum = 0;
      const any = this.pairs(i, k, q, host, (a, b, dt) => (sum += Math.max(b - a, 0) / dt));
      out.push(any ? sum : null);
    }
    return out;
  }

  // latest returns the newest rate of counter k of query q, or null.
  latest(k, q, host) {
    const r = this.rate(k, q, host);
    return r.length ? r[r.length - 1] : null;
  }

  // total returns the newest value of field k of query q summed over
  // the hosts (or of host alone); undefined when none has it.
  total(k, q, host) {
    const p = this.points[this.points.length - 1];
    const byHost = p && p[k][q];
    if (!byHost) return undefined;
    const vs = Object.entries(byHost).filter(([h]) => host === undefined || h === host).map(([, v]) => v);
    return vs.length ? vs.reduce((a, v) => a + v, 0) : undefined;
  }

  // gauge returns field k (a gauge, not a counter) of query q summed
  // over the hosts (or of host alone) at each point after the first.
  gauge(k, q, host) {
    const out = [];
    for (let i = 1; i < this.points.length; i++) {
      const vs = Object.entries(this.points[i][k][q] || {}).filter(([h]) => host === undefined || h === host);
      out.push(vs.length ? vs.reduce((a, [, v]) => a + v, 0) : null);
    }
    return out;
  }

  // txnMeanMs is the mean transaction end, in ms, between two points.
  txnMeanMs(q, host) {
    return this.meanMs('txnSum', 'txnCount', q, host);
  }

  // commitMeanMs is the mean at_least_once commit, in ms, between two
  // points.
  commitMeanMs(q, host) {
    return this.meanMs('commitSum', 'commitCount', q, host);
  }

  // meanMs is the mean of a summary (fields sum and count) of query q,
  // in ms, between each two points, over the hosts (or of host alone)
  // that observed some in between (null where none did). A host's
  // summary appears with its first observation, so its first one counts
  // from 0.
  meanMs(sum, count, q, host) {
    const out = [];
    for (let i = 1; i < this.points.length; i++) {
      let ds = 0;
      let dc = 0;
      const before = (k, h) => (this.points[i - 1][k][q] || {})[h] ?? 0;
      for (const [h, c] of Object.entries(this.points[i][count][q] || {})) {
        if (host !== undefined && h !== host) continue;
        const d = c - before(count, h);
        if (d <= 0) continue; // none observed, or the host restarted
        dc += d;
        ds += (this.points[i][sum][q] || {})[h] - before(sum, h);
      }
      out.push(dc > 0 ? (ds / dc) * 1000 : null);
    }
    return out;
  }

  // nodeFigures returns, for each node of query q, its records so far
  // over the hosts and its records/s between the last two points (null
  // with one point).
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

// figures are the charts of the Metrics tab: a title and the series it
// draws from a history, [{label, values}], one per query (summed over
// the hosts) or, for the per-host chart, one per query and host.
export function figures(history) {
  const qs = history.queries();
  const perQ = (f) => qs.map((q) => ({ label: q, values: f(q) }));
  const perHost = (f) => qs.flatMap((q) => history.hostsSeen(q).map((host) => ({ label: `${q} @ ${host}`, values: f(q, host) })));
  return [
    ['records/s in (all hosts)', perQ((q) => history.rate('processed', q))],
    ['records/s out (all hosts)', perQ((q) => history.rate('out', q))],
    ['records/s in, per host', perHost((q, host) => history.rate('processed', q, host))],
    ['processing-log entries/s', perQ((q) => history.rate('logged', q))],
    ['late records/s', perQ((q) => history.rate('late', q))],
    ['transaction end, mean ms (exactly_once_v2)', perQ((q) => history.txnMeanMs(q))],
    ['commit, mean ms (at_least_once)', perQ((q) => history.commitMeanMs(q))],
    ['consumer lag, records (all hosts)', perQ((q) => history.gauge('consumerLag', q))],
    ['store changelog lag, records (all hosts)', perQ((q) => history.gauge('storeLag', q))],
  ];
}

// seriesSummary says what a chart draws, for its data-series attribute
// (the browser tests read it): each series' label, points and largest
// value.
export function seriesSummary(series) {
  return series.map(({ label, values }) => {
    const vs = values.filter((v) => v !== null);
    return { label, points: vs.length, max: vs.length ? Math.max(...vs) : null };
  });
}

// Charts draws one uPlot chart per figure, each with its series.
export class Charts {
  constructor(container) {
    this.container = container;
    this.plots = new Map();
  }

  draw(history) {
    const xs = history.times.slice(1);
    for (const [title, series] of figures(history)) {
      const data = [xs, ...series.map((s) => s.values)];
      const key = series.map((s) => s.label).join(',');
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
            series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length], width: 1.5, spanGaps: true }))],
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
      entry.div.dataset.series = JSON.stringify(seriesSummary(series));
    }
  }
}

const COLORS = ['#2a6fdb', '#d9480f', '#2b8a3e', '#862e9c', '#e67700', '#0b7285', '#c2255c'];
