// The statement splitter and the error-position mapping (node --test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { split, kind, parseSet, errorOffset } from '../src/script.js';

test('split keeps offsets and skips quotes and comments', () => {
  const src = "-- lead\nSELECT ';' FROM s;  /* x; */ SHOW `a;b`;\n\n;;INSERT INTO t VALUES ('it''s');";
  const got = split(src);
  assert.deepEqual(got.map((s) => s.text), ["SELECT ';' FROM s;", 'SHOW `a;b`;', "INSERT INTO t VALUES ('it''s');"]);
  for (const s of got) assert.equal(src.slice(s.from, s.from + s.text.length), s.text);
});

test('an unterminated last statement is a statement', () => {
  assert.deepEqual(split('SHOW STREAMS; SHOW TABLES').map((s) => s.text), ['SHOW STREAMS;', 'SHOW TABLES']);
  assert.deepEqual(split('  -- only a comment\n'), []);
});

test('kind sends queries to /query-stream and SET to the session', () => {
  assert.equal(kind('select 1 from s;'), 'query');
  assert.equal(kind('PRINT t;'), 'query');
  assert.equal(kind("SET 'a'='b';"), 'set');
  assert.equal(kind("unset 'a';"), 'unset');
  assert.equal(kind("DEFINE x = 'y';"), 'define');
  assert.equal(kind('CREATE STREAM s (a INT) WITH (...);'), 'statement');
});

test('parseSet reads quoted names and values', () => {
  assert.deepEqual(parseSet("SET 'auto.offset.reset' = 'earliest';"), { name: 'auto.offset.reset', value: 'earliest' });
  assert.deepEqual(parseSet("SET 'a' = 'it''s'"), { name: 'a', value: "it's" });
  assert.deepEqual(parseSet("UNSET 'a';"), { name: 'a', value: undefined });
  assert.equal(parseSet('SET a = b;'), null);
  assert.equal(parseSet("SET 'a';"), null);
});

test('errorOffset maps line:column of a statement into the editor text', () => {
  const src = 'SHOW STREAMS;\nSELECT *\n  FROM nowhere;';
  const [, stmt] = split(src);
  const off = errorOffset('line 2:8: NOWHERE does not exist.', stmt, src);
  assert.equal(src.slice(off, off + 7), 'nowhere');
  assert.equal(errorOffset('no position here', stmt, src), -1);
});
