// The SQL editor: CodeMirror 6 with a ksqlDB dialect (the REPL's
// keyword list), completion of keywords and of the catalog's stream,
// table and column names, Ctrl/Cmd-Enter to run, and a mark on the
// position an error names.

import { EditorState, StateEffect, StateField, Compartment } from '@codemirror/state';
import { EditorView, keymap, lineNumbers, highlightActiveLine, Decoration, drawSelection } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { syntaxHighlighting, defaultHighlightStyle, bracketMatching } from '@codemirror/language';
import { autocompletion, completionKeymap, closeBrackets } from '@codemirror/autocomplete';
import { sql, SQLDialect } from '@codemirror/lang-sql';

// KEYWORDS are repl/complete.go's keywordList and GLOBAL.
const KEYWORDS = `global select from where group by having emit changes final limit partition window
tumbling hopping session size advance grace period retention join left right full outer inner on
within as and or not null is in between like case when then else end cast true false
create stream table source or replace insert into values with key primary headers header
drop delete topic terminate pause resume all query queries describe extended explain
show list streams tables topics properties functions function types type variables
set unset define undefine print beginning interval sample if exists alter add column`;
const TYPES = 'struct array map varchar string int integer bigint double decimal boolean bytes timestamp date time';

const ksqlDialect = SQLDialect.define({
  keywords: KEYWORDS.replace(/\s+/g, ' '),
  types: TYPES,
  backslashEscapes: false,
  identifierQuotes: '`',
  caseInsensitiveIdentifiers: true,
});

const setError = StateEffect.define();
const errorMark = Decoration.mark({ class: 'cm-sql-error' });

// errorField holds the range of the last error, cleared by any edit.
const errorField = StateField.define({
  create: () => Decoration.none,
  update(marks, tr) {
    for (const e of tr.effects) {
      if (e.is(setError)) {
        if (e.value === null) return Decoration.none;
        return Decoration.set([errorMark.range(e.value.from, e.value.to)]);
      }
    }
    return tr.docChanged ? Decoration.none : marks;
  },
  provide: (f) => EditorView.decorations.from(f),
});

// createEditor mounts the editor in parent; onRun is called by
// Ctrl/Cmd-Enter. It returns {view, text(), setText(), markError(),
// setSchema()}.
export function createEditor(parent, onRun, initial) {
  const lang = new Compartment();
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: initial,
      extensions: [
        lineNumbers(),
        history(),
        drawSelection(),
        highlightActiveLine(),
        bracketMatching(),
        closeBrackets(),
        autocompletion(),
        syntaxHighlighting(defaultHighlightStyle),
        lang.of(sql({ dialect: ksqlDialect, upperCaseKeywords: true })),
        errorField,
        keymap.of([
          { key: 'Mod-Enter', run: () => (onRun(), true) },
          ...defaultKeymap,
          ...historyKeymap,
          ...completionKeymap,
        ]),
        EditorView.lineWrapping,
      ],
    }),
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    setText(t) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: t } });
    },
    // markError marks the token at offset (or clears the mark for -1).
    markError(offset) {
      if (offset < 0) {
        view.dispatch({ effects: setError.of(null) });
        return;
      }
      const doc = view.state.doc.toString();
      const from = Math.min(offset, Math.max(doc.length - 1, 0));
      let to = from;
      while (to < doc.length && /[^\s;,()]/.test(doc[to])) to++;
      if (to === from) to = Math.min(from + 1, doc.length);
      view.dispatch({ effects: setError.of({ from, to }), selection: { anchor: from }, scrollIntoView: true });
    },
    // setSchema makes completion offer these sources and their columns:
    // {NAME: ['COL', …]}.
    setSchema(schema) {
      // The names completion offers, for tests to wait on.
      parent.dataset.completion = Object.keys(schema).sort().join(' ');
      view.dispatch({
        effects: lang.reconfigure(sql({ dialect: ksqlDialect, upperCaseKeywords: true, schema })),
      });
    },
  };
}
