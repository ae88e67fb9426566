// Splitting editor text into statements, as sql/script does on the
// server: semicolons outside strings, quoted identifiers and comments end
// a statement; each keeps its offset in the text, so an error's line:column
// maps back to the editor.

// split returns [{text, from}] for each non-blank statement of src.
export function split(src) {
  const out = [];
  let start = 0;
  let i = 0;
  const push = (end) => {
    const raw = src.slice(start, end);
    const lead = leadingSkip(raw);
    const text = raw.slice(lead).trimEnd();
    // Blank statements (";;") are dropped, as sql/script drops them.
    if (text.replace(/;$/, '').trim() !== '') out.push({ text, from: start + lead });
  };
  while (i < src.length) {
    const c = src[i];
    if (c === "'" || c === '"' || c === '`') {
      i = closeQuote(src, i, c);
    } else if (c === '-' && src[i + 1] === '-') {
      const nl = src.indexOf('\n', i);
      i = nl < 0 ? src.length : nl + 1;
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      i = end < 0 ? src.length : end + 2;
    } else if (c === ';') {
      push(i + 1);
      start = ++i;
    } else {
      i++;
    }
  }
  push(src.length);
  return out;
}

// closeQuote returns the index after the quote opened at i (a doubled
// quote is an escaped one).
function closeQuote(src, i, q) {
  for (let j = i + 1; j < src.length; j++) {
    if (src[j] !== q) continue;
    if (src[j + 1] === q) {
      j++;
      continue;
    }
    return j + 1;
  }
  return src.length;
}

// leadingSkip is the length of the white space and comments before a
// statement's first token.
function leadingSkip(s) {
  let i = 0;
  for (;;) {
    while (i < s.length && /\s/.test(s[i])) i++;
    if (s.startsWith('--', i)) {
      const nl = s.indexOf('\n', i);
      i = nl < 0 ? s.length : nl + 1;
    } else if (s.startsWith('/*', i)) {
      const end = s.indexOf('*/', i + 2);
      i = end < 0 ? s.length : end + 2;
    } else {
      return i;
    }
  }
}

// kind classifies a statement: "query" (SELECT, PRINT: /query-stream),
// "set" / "unset" (session properties) and "define" / "undefine"
// (variables), kept by the console as the REPL keeps them, or
// "statement" (/ksql).
export function kind(text) {
  const first = (text.match(/^[A-Za-z]+/) || [''])[0].toUpperCase();
  if (first === 'SELECT' || first === 'PRINT') return 'query';
  if (first === 'SET') return 'set';
  if (first === 'UNSET') return 'unset';
  if (first === 'DEFINE') return 'define';
  if (first === 'UNDEFINE') return 'undefine';
  return 'statement';
}

// parseSet reads SET 'name' = 'value'; (or UNSET 'name';) and returns
// {name, value}, or null when the statement is not of that shape.
export function parseSet(text) {
  const m = text.match(/^(SET|UNSET)\s+'((?:[^']|'')*)'\s*(?:=\s*'((?:[^']|'')*)')?\s*;?$/is);
  if (!m) return null;
  const unq = (s) => (s === undefined ? undefined : s.replace(/''/g, "'"));
  if (m[1].toUpperCase() === 'SET' && m[3] === undefined) return null;
  return { name: unq(m[2]), value: unq(m[3]) };
}

// errorOffset maps an error message's "line L:C" (1-based, in the
// statement sent) to an offset in the editor text, or -1.
export function errorOffset(message, stmt, src) {
  const m = /line (\d+):(\d+)/.exec(message || '');
  if (!m) return -1;
  let off = stmt.from;
  for (let line = 1; line < Number(m[1]); line++) {
    const nl = src.indexOf('\n', off);
    if (nl < 0) return -1;
    off = nl + 1;
  }
  return Math.min(off + Number(m[2]) - 1, src.length);
}
