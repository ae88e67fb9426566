// /metrics parsing and per-query rates (node --test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMetrics, perQuery, perNode, History, hostSamples, perQueryHost, figures, seriesSummary } from '../src/metrics.js';

const at = (n, logged) => `# HELP sqlstream_query_records_processed_total Input records.
# TYPE sqlstream_query_records_processed_total counter
sqlstream_query_records_processed_total{query="CTAS_A_1"} ${n}
sqlstream_query_records_processed_total{query="CSAS_B_2"} 7
sqlstream_query_processing_log_total{query="CTAS_A_1"} ${logged}
sqlstream_task_open_windows{query="CTAS_A_1",task="0_1"} 3
sqlstream_http_requests_total{code="200",method="GET",route="/info"} 2
`;

test('samples with labels, escapes and comments', () => {
  const s = parseMetrics(at(10, 0) + 'x{a="q\\"uote"} 1.5e3\n');
  assert.equal(s.length, 6);
  assert.deepEqual(s[3], { name: 'sqlstream_task_open_windows', labels: { query: 'CTAS_A_1', task: '0_1' }, value: 3 });
  assert.deepEqual(s[5], { name: 'x', labels: { a: 'q"uote' }, value: 1500 });
  assert.deepEqual(perQuery(s, 'sqlstream_query_records_processed_total'), { CTAS_A_1: 10, CSAS_B_2: 7 });
});

test('rates between polls, never negative', () => {
  const h = new History();
  h.add(100, parseMetrics(at(10, 0)), { CTAS_A_1: 4 });
  h.add(102, parseMetrics(at(30, 1)), { CTAS_A_1: 0 });
  h.add(104, parseMetrics(at(5, 1)), {}); // a restarted server's counters
  assert.deepEqual(h.queries(), ['CSAS_B_2', 'CTAS_A_1']);
  assert.deepEqual(h.rate('processed', 'CTAS_A_1'), [10, 0]);
  assert.deepEqual(h.rate('logged', 'CTAS_A_1'), [0.5, 0]);
  assert.deepEqual(h.rate('processed', 'CSAS_B_2'), [0, 0]);
  assert.equal(h.latest('processed', 'CTAS_A_1'), 0);
  assert.equal(h.total('processed', 'CTAS_A_1'), 5);
  assert.deepEqual(h.gauge('storeLag', 'CTAS_A_1'), [0, null]);
});

test('the history keeps its last points', () => {
  const h = new History(3);
  for (let i = 0; i < 5; i++) h.add(i, parseMetrics(at(i, 0)));
  assert.deepEqual(h.times, [2, 3, 4]);
});

test('the mean transaction end between polls, from the summary', () => {
  const eos = (count, sum) => `sqlstream_query_records_processed_total{query="Q"} 1
sqlstream_query_transaction_end_seconds_sum{query="Q"} ${sum}
sqlstream_query_transaction_end_seconds_count{query="Q"} ${count}
`;
  const h = new History();
  h.add(0, parseMetrics(eos(10, 0.5)));
  h.add(2, parseMetrics(eos(14, 0.7)));
  h.add(4, parseMetrics(eos(14, 0.7))); // no transaction ended
  const [a, b] = h.txnMeanMs('Q');
  assert.ok(Math.abs(a - 50) < 1e-9, `mean ${a}`);
  assert.equal(b, null);
});

test('the mean at_least_once commit, the tasks\' consumer lag and each node\'s records', () => {
  const alos = (count, sum, lag0, source) => `sqlstream_query_records_processed_total{query="Q"} 1
sqlstream_query_commit_seconds_sum{query="Q"} ${sum}
sqlstream_query_commit_seconds_count{query="Q"} ${count}
sqlstream_task_consumer_lag{query="Q",task="0_0"} ${lag0}
sqlstream_task_consumer_lag{query="Q",task="0_1"} 2
sqlstream_node_records_total{node="Source-S",query="Q",subtopology="0"} ${source}
sqlstream_node_records_total{node="Sink-T",query="Q",subtopology="0"} 4
sqlstream_node_records_total{node="Source-S",query="OTHER",subtopology="0"} 99
`;
  const h = new History();
  assert.deepEqual(h.nodeFigures('Q'), {});
  h.add(0, parseMetrics(alos(1, 0.004, 10, 6)));
  assert.deepEqual(h.nodeFigures('Q'), { 'Source-S': { total: 6, rate: null }, 'Sink-T': { total: 4, rate: null } });
  h.add(2, parseMetrics(alos(3, 0.010, 0, 10)));
  const [mean] = h.commitMeanMs('Q');
  assert.ok(Math.abs(mean - 3) < 1e-9, `mean ${mean}`);
  assert.deepEqual(h.gauge('consumerLag', 'Q'), [2]);
  assert.deepEqual(h.nodeFigures('Q'), { 'Source-S': { total: 10, rate: 2 }, 'Sink-T': { total: 4, rate: 0 } });
  assert.deepEqual(perNode(parseMetrics(alos(1, 0, 0, 1)), 'OTHER'), { 'Source-S': 99 });
});

// Two hosts' /clusterMetrics answers at one poll: host a's and b's
// counters of query Q (a's transaction ends, b's consumer lags), and a
// third host that did not answer.
const cluster = (inA, inB, outA, outB, txnA, lagB) => ({
  hosts: [
    { host: 'a:1', self: true, metrics: `sqlstream_query_records_processed_total{query="Q"} ${inA}
sqlstream_query_records_out_total{query="Q"} ${outA}
sqlstream_query_transaction_end_seconds_sum{query="Q"} ${txnA[0]}
sqlstream_query_transaction_end_seconds_count{query="Q"} ${txnA[1]}
sqlstream_task_consumer_lag{query="Q",task="0_0"} 1
` },
    { host: 'b:2', metrics: `sqlstream_query_records_processed_total{query="Q"} ${inB}
sqlstream_query_records_out_total{query="Q"} ${outB}
sqlstream_task_consumer_lag{query="Q",task="0_1"} ${lagB}
sqlstream_task_consumer_lag{query="Q",task="0_2"} 2
` },
    { host: 'c:3', error: 'not alive', metrics: '' },
  ],
});

test('samples of every host, labelled by host; a silent host named', () => {
  const { samples, hosts } = hostSamples(cluster(1, 2, 0, 0, [0, 0], 5));
  assert.deepEqual(hosts, [{ host: 'a:1', self: true, error: '' }, { host: 'b:2', self: false, error: '' }, { host: 'c:3', self: false, error: 'not alive' }]);
  assert.deepEqual(perQueryHost(samples, 'sqlstream_task_consumer_lag'), { Q: { 'a:1': 1, 'b:2': 7 } });
  assert.deepEqual(perQuery(samples, 'sqlstream_query_records_processed_total'), { Q: 3 });
  assert.deepEqual(hostSamples(null), { samples: [], hosts: [] });
});

test('records in and out summed over the hosts, and per host', () => {
  const h = new History();
  const add = (t, ct) => h.add(t, hostSamples(ct).samples);
  add(0, cluster(10, 20, 5, 0, [0.1, 2], 5));
  add(2, cluster(30, 60, 9, 8, [0.3, 6], 0));
  assert.deepEqual(h.hostsOf('Q'), ['a:1', 'b:2']);
  assert.deepEqual(h.rate('processed', 'Q'), [30]);
  assert.deepEqual(h.rate('processed', 'Q', 'a:1'), [10]);
  assert.deepEqual(h.rate('processed', 'Q', 'b:2'), [20]);
  assert.deepEqual(h.rate('out', 'Q'), [6]);
  assert.equal(h.total('processed', 'Q'), 90);
  assert.equal(h.total('processed', 'Q', 'b:2'), 60);
  // The consumer lag over every task of every host.
  assert.deepEqual(h.gauge('consumerLag', 'Q'), [3]);
  assert.deepEqual(h.gauge('consumerLag', 'Q', 'b:2'), [2]);
  const [mean] = h.txnMeanMs('Q');
  assert.ok(Math.abs(mean - 50) < 1e-9, `mean ${mean}`);
});

test('a host that stops answering or restarts adds nothing for the interval, no drop and no jump', () => {
  const h = new History();
  const add = (t, ct) => h.add(t, hostSamples(ct).samples);
  add(0, cluster(10, 20, 0, 0, [0, 0], 0));
  const silentB = cluster(12, 0, 0, 0, [0, 0], 0);
  silentB.hosts[1] = { host: 'b:2', error: 'context deadline exceeded', metrics: '' };
  add(1, silentB);
  add(2, cluster(14, 40, 0, 0, [0, 0], 0)); // b is back
  add(3, cluster(16, 3, 0, 0, [0, 0], 0)); // b restarted: its counters from 0
  assert.deepEqual(h.rate('processed', 'Q'), [2, 2, 2]);
  assert.deepEqual(h.rate('processed', 'Q', 'b:2'), [null, null, 0]);
  const silent = new History();
  silent.add(0, hostSamples(cluster(1, 1, 0, 0, [0, 0], 0)).samples);
  silent.add(1, hostSamples(silentB).samples);
  assert.deepEqual(silent.hostsOf('Q'), ['a:1']);
  assert.deepEqual(silent.hostsSeen('Q'), ['a:1', 'b:2']);
  assert.deepEqual(seriesSummary(Object.fromEntries(figures(silent))['records/s in, per host']).map((s) => s.label), ['Q @ a:1', 'Q @ b:2']);
});

test('the mean latency over the hosts that observed some; a host\'s first summary counts from 0', () => {
  const at = (a, b) => parseMetrics(`sqlstream_query_records_processed_total{query="Q"} 1
${a ? `sqlstream_query_commit_seconds_sum{query="Q"} ${a[0]}\nsqlstream_query_commit_seconds_count{query="Q"} ${a[1]}` : ''}
`).map((s) => ({ ...s, labels: { ...s.labels, host: 'a' } })).concat(parseMetrics(`sqlstream_query_records_processed_total{query="Q"} 1
${b ? `sqlstream_query_commit_seconds_sum{query="Q"} ${b[0]}\nsqlstream_query_commit_seconds_count{query="Q"} ${b[1]}` : ''}
`).map((s) => ({ ...s, labels: { ...s.labels, host: 'b' } })));
  const h = new History();
  h.add(0, at([0.01, 1], null));
  h.add(2, at([0.03, 3], [0.03, 1])); // a: 2 commits of 10 ms; b: its first, 30 ms
  h.add(4, at([0.03, 3], [0.03, 1])); // none
  const [m, none] = h.commitMeanMs('Q');
  assert.ok(Math.abs(m - (0.02 + 0.03) / 3 * 1000) < 1e-9, `mean ${m}`);
  assert.equal(none, null);
  assert.ok(Math.abs(h.commitMeanMs('Q', 'b')[0] - 30) < 1e-9);
});

test('the charts: sums per query, and a series per query and host', () => {
  const h = new History();
  h.add(0, hostSamples(cluster(10, 20, 0, 0, [0, 0], 0)).samples, { Q: 4 });
  h.add(2, hostSamples(cluster(30, 30, 0, 0, [0, 0], 0)).samples, { Q: 1 });
  const byTitle = Object.fromEntries(figures(h));
  assert.deepEqual(byTitle['records/s in (all hosts)'], [{ label: 'Q', values: [15] }]);
  assert.deepEqual(seriesSummary(byTitle['records/s in, per host']), [{ label: 'Q @ a:1', points: 1, max: 10 }, { label: 'Q @ b:2', points: 1, max: 5 }]);
  assert.deepEqual(byTitle['store changelog lag, records (all hosts)'], [{ label: 'Q', values: [1] }]);
  assert.deepEqual(seriesSummary([{ label: 'x', values: [null] }]), [{ label: 'x', points: 0, max: null }]);
});
