// The REST API of the server that served the page: same origin, so the
// browser's BASIC credentials (asked for by the 401 challenge on "/")
// and cookies travel with every request, and nothing goes elsewhere.

const JSON_V1 = 'application/vnd.ksql.v1+json';
const DELIMITED = 'application/vnd.ksqlapi.delimited.v1';

// ApiError is a failed request: the HTTP status, ksqlDB's error code and
// message, and the statement text the server named.
export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `HTTP ${status}`);
    this.status = status;
    this.code = body && body.error_code;
    this.statementText = body && body.statementText;
  }
}

async function decode(resp) {
  const text = await resp.text();
  try {
    return JSON.parse(text);
  } catch (_) {
    return { message: text.trim() || resp.statusText };
  }
}

// ksql runs statements through POST /ksql and returns its entities;
// vars are the session's DEFINE values for ${name} substitution.
export async function ksql(sql, props = {}, vars = {}) {
  const resp = await fetch('/ksql', {
    method: 'POST',
    headers: { 'Content-Type': JSON_V1, Accept: JSON_V1 },
    body: JSON.stringify({ ksql: sql, streamsProperties: props, sessionVariables: vars }),
  });
  const body = await decode(resp);
  if (!resp.ok) throw new ApiError(resp.status, body);
  return body;
}

// getJSON reads a GET endpoint's JSON answer.
export async function getJSON(path) {
  const resp = await fetch(path, { headers: { Accept: 'application/json' } });
  const body = await decode(resp);
  if (!resp.ok) throw new ApiError(resp.status, body);
  return body;
}

// getText reads a GET endpoint's text answer (/metrics).
export async function getText(path) {
  const resp = await fetch(path);
  if (!resp.ok) throw new ApiError(resp.status, await decode(resp));
  return resp.text();
}

// queryStream runs a query (SELECT or PRINT) through POST /query-stream
// in the delimited format and calls on.header(header), on.row(values),
// on.line(text) for PRINT's lines and on.error(ApiError) for an error the
// stream carries. It resolves when the stream ends; abort the signal to
// stop it (closeQuery then ends the server's side at once).
export async function queryStream(sql, props, vars, on, signal) {
  const resp = await fetch('/query-stream', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: DELIMITED },
    body: JSON.stringify({ sql, properties: props, sessionVariables: vars }),
    signal,
  });
  if (!resp.ok) throw new ApiError(resp.status, await decode(resp));
  const reader = resp.body.getReader();
  const utf8 = new TextDecoder();
  let buf = '';
  let first = true;
  const emit = (line) => {
    if (line.trim() === '') return;
    let v;
    try {
      v = JSON.parse(line);
    } catch (_) {
      on.line(line);
      return;
    }
    if (Array.isArray(v)) on.row(v);
    else if (first && v.queryId !== undefined) on.header(v);
    else if (v['@type'] === 'generic_error' || v['@type'] === 'statement_error' || v.error_code) on.error(new ApiError(resp.status, v));
    else on.line(line);
    first = false;
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += utf8.decode(value, { stream: true });
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      emit(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
  }
  emit(buf + utf8.decode());
}

// closeQuery ends a push query on the server (POST /close-query).
export async function closeQuery(queryId) {
  const resp = await fetch('/close-query', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ queryId }),
  });
  if (!resp.ok && resp.status !== 400) throw new ApiError(resp.status, await decode(resp));
}
