// /metrics parsing and per-query rates (node --test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMetrics, perQuery, perNode, History } from '../src/metrics.js';

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
