// A query's figures across hosts, from GET /clusterTasks (node --test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { queryOnHosts, nodeTotals, NodeRates, storeSizes, globalStores, upgradedAt, totals, taskRows } from '../src/cluster.js';

const task = (taskId, role, stores, extra = {}) => ({ taskId, role, state: role === 'ACTIVE' ? 'RUNNING' : undefined, stores, ...extra });
const ct = (a, b) => ({
  hosts: [
    { host: 'h1:1', self: true, queries: [{ queryId: 'Q', recordsProcessed: 5, lateRecords: 1, nodes: a, upgradedAtMs: 0,
      tasks: [task('0_0', 'ACTIVE', [{ store: 'S', partition: 0, lag: 0, keys: 3, bytes: 300 }], { consumerLag: 0 }),
        task('0_1', 'STANDBY', [{ store: 'S', partition: 1, lag: 2, keys: 4, bytes: 400 }])],
      globalStores: [{ store: 'G-GlobalStore', rows: 7, bytes: 70, lag: 0 }] }] },
    { host: 'h2:2', queries: [{ queryId: 'Q', recordsProcessed: 6, lateRecords: 0, nodes: b, upgradedAtMs: 1000,
      tasks: [task('0_1', 'ACTIVE', [{ store: 'S', partition: 1, lag: 0, keys: 4, bytes: 400 }], { consumerLag: -1 })],
      globalStores: [{ store: 'G-GlobalStore', rows: 6, bytes: 60, lag: 1 }] }] },
    { host: 'h3:3', error: 'not alive', queries: [] },
  ],
});

const nodes = (src, glob, since = 0) => [{ subTopology: 0, node: 'Source-S', records: src, sinceMs: since }, { subTopology: 1, node: 'Source-G', records: glob }];

test('every host of the query, one that did not answer marked', () => {
  const hs = queryOnHosts(ct(nodes(1, 2), nodes(3, 2)), 'Q');
  assert.deepEqual(hs.map((h) => [h.host, h.self, h.error, !!h.q]), [['h1:1', true, '', true], ['h2:2', false, '', true], ['h3:3', false, 'not alive', false]]);
  assert.deepEqual(queryOnHosts(ct([], []), 'OTHER').map((h) => h.q), [null, null, null]);
});

test('nodes add up over hosts; a global store\'s section takes the largest host', () => {
  const hs = queryOnHosts(ct(nodes(1, 7), nodes(3, 6, 1000)), 'Q');
  assert.deepEqual(nodeTotals(hs, new Set([1])), { 'Source-S': { total: 4, since: 1000 }, 'Source-G': { total: 7, since: 0 } });
  assert.equal(totals(hs, 'recordsProcessed'), 11);
  assert.equal(totals(hs, 'lateRecords'), 1);
  assert.equal(upgradedAt(hs), 1000);
});

test('records/s between two polls, never negative', () => {
  const r = new NodeRates();
  r.add(10, { A: { total: 4, since: 0 } });
  assert.deepEqual(r.figures(), { A: { total: 4, since: 0, rate: null } });
  r.add(12, { A: { total: 10, since: 0 }, B: { total: 1, since: 0 } });
  assert.deepEqual(r.figures(), { A: { total: 10, since: 0, rate: 3 }, B: { total: 1, since: 0, rate: null } });
  r.add(14, { A: { total: 2, since: 0 } }); // a host stopped answering
  assert.equal(r.figures().A.rate, 0);
});

test('store sizes of the active copies, lag of every copy; global stores per host', () => {
  const hs = queryOnHosts(ct([], []), 'Q');
  assert.deepEqual(storeSizes(hs), { S: { keys: 7, bytes: 700, lag: 2 } });
  assert.deepEqual(globalStores(hs), { 'G-GlobalStore': { rows: 7, bytes: 70, lag: 1, hosts: ['h1:1', 'h2:2'] } });
});

test('a row per task and host', () => {
  const rows = taskRows(queryOnHosts(ct([], []), 'Q'));
  assert.deepEqual(rows.map((r) => [r.task, r.host, r.role, r.consumer, r.lag.join()]), [
    ['0_0', 'h1:1', 'ACTIVE RUNNING', '0', '0'],
    ['0_1', 'h1:1', 'STANDBY', '', '2'],
    ['0_1', 'h2:2', 'ACTIVE RUNNING', '?', '0'],
  ]);
  assert.equal(rows[0].stores[0], 'S: 3 keys, ~300 B');
});
