package parser

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Internal function names the rewriter emits for ksqlDB-only syntax. They
// are lower case: user function names are always upper-cased, so the two
// never collide. The converter turns them back into ast nodes.
const (
	fnDeref        = "__ksql_deref"        // (base, nameIdx): base->name
	fnSubscript    = "__ksql_sub"          // (base, index): base[index]
	fnCast         = "__ksql_cast"         // (expr, typeIdx): CAST(expr AS type)
	fnArray        = "__ksql_array"        // (elems…): ARRAY[elems…]
	fnMap          = "__ksql_map"          // (k, v, …): MAP(k := v, …)
	fnStruct       = "__ksql_struct"       // (nameIdx, v, …): STRUCT(name := v, …)
	fnLambda       = "__ksql_lambda"       // (paramsIdx, body): (params) => body
	fnStarCall     = "__ksql_starcall"     // (nameIdx): NAME(*)
	fnDistinctCall = "__ksql_distinctcall" // (nameIdx, args…): NAME(DISTINCT args…)
	fnStructStar   = "__ksql_structstar"   // (base): base->*
	fnDecimal      = "__ksql_decimal"      // ('text'): DECIMAL 'text'
	fnIsDistinct   = "__ksql_isdistinct"   // (right): marks `<=>` as IS DISTINCT FROM
	fnAtTimeZone   = "__ksql_tz"           // (expr, 'zone'): expr AT TIME ZONE 'zone'
)

// exprKeywords are the words that are operators or structure inside an
// expression, never names (they must be quoted to be used as names).
const exprKeywords = " AND OR NOT IS IN LIKE BETWEEN CASE WHEN THEN ELSE END ESCAPE AS DISTINCT FROM "

// piece is a fragment of rewritten text and the index of the user's token
// it stands for, so TiDB offsets map back to the user's text.
type piece struct {
	s   string
	tok int
}

// rewriter turns a range of the user's tokens into text TiDB can parse:
// every identifier is backticked (so keywords work as names), and
// ksqlDB-only syntax becomes calls of internal functions whose extra
// arguments index the side tables below.
type rewriter struct {
	p       *parser
	pieces  []piece
	names   []string
	typs    []*types.Type
	params  [][]string
	offsets []int // start offset of each piece, filled by text()
	depth   int   // nesting of expr calls, see enter
}

func (w *rewriter) emit(s string, tok int) { w.pieces = append(w.pieces, piece{s, tok}) }

// insert puts s before the piece at index at, mapped to that piece's token.
func (w *rewriter) insert(at int, s string) {
	tok := w.pieces[at].tok
	w.pieces = slices.Insert(w.pieces, at, piece{s, tok})
}

func (w *rewriter) addName(s string) string {
	w.names = append(w.names, s)
	return strconv.Itoa(len(w.names) - 1)
}

// text returns the rewritten text and records piece offsets.
func (w *rewriter) text() string {
	var b strings.Builder
	w.offsets = w.offsets[:0]
	for _, pc := range w.pieces {
		w.offsets = append(w.offsets, b.Len())
		b.WriteString(pc.s)
	}
	return b.String()
}

// tokenAt returns the index of the user's token behind rewritten offset off.
func (w *rewriter) tokenAt(off int) int {
	k, found := slices.BinarySearch(w.offsets, off)
	if !found {
		k--
	}
	if k < 0 {
		return w.pieces[0].tok
	}
	if k >= len(w.pieces) {
		return w.pieces[len(w.pieces)-1].tok
	}
	return w.pieces[k].tok
}

// quoteIdent backticks a name for TiDB. Callers put a space before it:
// two adjacent quoted names would otherwise read as one name containing
// an escaped backtick.
func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// expr rewrites the tokens [a, b).
func (w *rewriter) expr(a, b int) error {
	leave, err := enter(&w.depth, w.p.s.src, w.p.toks[a])
	if err != nil {
		return err
	}
	defer leave()
	opens, closes := w.concatGroups(a, b)
	distinctNext, afterOperand, ops := false, false, 0
	for i := a; i < b; {
		if err := w.p.s.check(w.p.toks[i]); err != nil {
			return err
		}
		if ops += binaryOpToken(w.p.toks[i]); ops > maxLevelOperators {
			return w.p.errAt(w.p.toks[i], sqlerr.Syntax, "expression too long: more than %d operators at one level of nesting", maxLevelOperators)
		}
		for range opens[i] {
			w.emit("(", i)
		}
		t := w.p.toks[i]
		if afterOperand && t.Kind == tString {
			// MySQL would read `x 'y'` as an alias; ksqlDB rejects it.
			return w.p.errAt(t, sqlerr.Syntax, "syntax error")
		}
		// CASE … END is an operand too, though it is built token by token.
		afterOperand = w.primaryStart(t) || t.is("END")
		n, err := w.element(i, b, &distinctNext)
		if err != nil {
			return err
		}
		for range closes[n-1] {
			w.emit(")", n-1)
		}
		i = n
	}
	return nil
}

// maxLevelOperators bounds the binary operators at one level of an
// expression, before TiDB sees the text (TiDB builds a node of some
// hundred bytes per operator; a 32 MB request of 1+1+… would be gigabytes).
// The converter counts the precise bound, sqlerr.MaxChain links of the
// chains a walk goes down at once; an expression within it has at most a
// few operators per link (x = 1 OR x = 2 OR …: two), so this early bound
// is a multiple of it and refuses nothing the converter would accept in
// practice.
const maxLevelOperators = 8 * sqlerr.MaxChain

// binaryPuncts and binaryKeywords are the binary operators, counted
// against maxLevelOperators.
const (
	binaryPuncts   = " + - * / % = < > <= >= <> != || "
	binaryKeywords = " AND OR "
)

// binaryOpToken is 1 if t is a binary operator, else 0. A - may be a
// sign, which is counted too: the bound is on the text.
func binaryOpToken(t token) int {
	if t.Kind == tPunct && keywordSet(binaryPuncts, t.Val) || t.Kind == tIdent && keywordSet(binaryKeywords, t.Val) {
		return 1
	}
	return 0
}

// element rewrites one operand (with its postfix operators) or one
// operator token at i and returns the index after it. distinctNext is set
// by IS DISTINCT FROM and wraps the next operand in a marker.
func (w *rewriter) element(i, b int, distinctNext *bool) (int, error) {
	toks := w.p.toks
	t := toks[i]
	switch {
	case t.is("IS") && (toks[i+1].is("DISTINCT") || toks[i+1].is("NOT") && toks[i+2].is("DISTINCT")):
		n, not, err := w.isDistinct(i, b)
		if err != nil {
			return 0, err
		}
		w.emit(" <=> ", i)
		*distinctNext = !not
		return n, nil
	case w.primaryStart(t):
		w.emit(" ", i) // never glue two operands into one TiDB token
		start := len(w.pieces)
		n, err := w.primary(i, b)
		if err == nil {
			n, err = w.postfix(start, n, b)
		}
		if err != nil {
			return 0, err
		}
		if *distinctNext {
			w.insert(start, fnIsDistinct+"(")
			w.emit(")", n-1)
			*distinctNext = false
		}
		return n, nil
	case t.Kind == tVariable:
		return 0, w.p.errAt(t, sqlerr.Syntax, "variable ${%s} was not substituted", t.Val)
	}
	w.emit(" "+t.Val+" ", i)
	return i + 1, nil
}

// isDistinct consumes IS [NOT] DISTINCT FROM at i.
func (w *rewriter) isDistinct(i, b int) (int, bool, error) {
	toks := w.p.toks
	not := toks[i+1].is("NOT")
	n := i + 2
	if not {
		n++
	}
	if n >= b || !toks[n].is("FROM") {
		return 0, false, w.p.errAt(toks[min(n, b)], sqlerr.Syntax, "expected FROM after IS DISTINCT")
	}
	return n + 1, not, nil
}

// primaryStart reports whether t starts an operand.
func (w *rewriter) primaryStart(t token) bool {
	switch t.Kind {
	case tNumber, tString, tQuoted:
		return true
	case tIdent:
		return !keywordSet(exprKeywords, t.Val)
	}
	return t.isPunct("(")
}

// primary rewrites one operand starting at i and returns the index after it.
func (w *rewriter) primary(i, b int) (int, error) {
	toks := w.p.toks
	t, next := toks[i], toks[i+1]
	switch {
	case t.Kind == tNumber:
		if _, err := w.p.numberLiteral(t); err != nil {
			return 0, err
		}
		// The value is read back from our token; TiDB only needs a
		// number here (its test driver panics on very long decimals).
		w.emit("1", i)
		return i + 1, nil
	case t.Kind == tString && i > 0 && toks[i-1].is("ESCAPE"):
		// TiDB wants a one-byte escape; ksqlDB one character of any size.
		if utf8.RuneCountInString(t.Val) != 1 {
			return 0, w.p.errAt(t, sqlerr.Syntax, "Expected single character escape but got: %s", t.Val)
		}
		w.emit("'!'", i)
		return i + 1, nil
	case t.Kind == tString:
		w.emit(t.Raw, i)
		return i + 1, nil
	case t.is("TRUE") || t.is("FALSE") || t.is("NULL"):
		w.emit(t.Val, i)
		return i + 1, nil
	case t.isPunct("("):
		return w.group(i, b)
	case t.Kind == tIdent && next.isPunct("(") && keywordSet(" CAST MAP STRUCT ", t.Val):
		return w.special(i, b)
	case t.is("ARRAY") && next.isPunct("["):
		return w.arrayCtor(i, b)
	case t.is("DECIMAL") && next.Kind == tString:
		w.emit(fnDecimal+"(", i)
		w.emit(next.Raw, i+1)
		w.emit(")", i+1)
		return i + 2, nil
	case next.isPunct("("):
		return w.call(i, b)
	}
	return w.column(i)
}

// column rewrites NAME, SRC.NAME or SRC.* (also a select item's alias)
// and returns the index after it. Reserved words are refused as names.
func (w *rewriter) column(i int) (int, error) {
	toks := w.p.toks
	if !w.timeUnitArg(i) {
		if err := w.p.checkNotReserved(toks[i]); err != nil {
			return 0, err
		}
	}
	w.emit(" "+quoteIdent(toks[i].Val), i)
	if !toks[i+1].isPunct(".") {
		return i + 1, nil
	}
	switch n := toks[i+2]; {
	case n.Kind == tIdent || n.Kind == tQuoted:
		if err := w.p.checkNotReserved(n); err != nil {
			return 0, err
		}
		w.emit(".", i+1)
		w.emit(quoteIdent(n.Val), i+2)
		return i + 3, nil
	case n.isPunct("*"):
		w.emit(".*", i+1)
		return i + 3, nil
	}
	return i + 1, nil
}

// timeUnitArg reports whether the word at i is a whole function argument
// naming a time unit, as in TIMESTAMPADD(MILLISECONDS, 5, ts): ksqlDB's
// grammar reads those units (reserved words otherwise) as windowUnit.
func (w *rewriter) timeUnitArg(i int) bool {
	toks := w.p.toks
	if i == 0 || !(toks[i-1].isPunct("(") || toks[i-1].isPunct(",")) || !(toks[i+1].isPunct(",") || toks[i+1].isPunct(")")) {
		return false
	}
	_, ok := unitMillis(toks[i].Val)
	return ok
}

// closing returns the index of the bracket closing the one at i, within b.
func (w *rewriter) closing(i, b int) (int, error) {
	j := w.p.matching(i)
	if j < 0 || j >= b {
		return 0, w.p.errAt(w.p.toks[i], sqlerr.Syntax, "unbalanced %s", w.p.toks[i].Val)
	}
	return j, nil
}

func (w *rewriter) group(i, b int) (int, error) {
	j, err := w.closing(i, b)
	if err != nil {
		return 0, err
	}
	w.emit("(", i)
	if err := w.expr(i+1, j); err != nil {
		return 0, err
	}
	w.emit(")", j)
	return j + 1, nil
}

// postfix applies ->field, ->*, [index] and AT TIME ZONE to the operand
// whose pieces start at start. It builds the chain in one pass: each
// operator's closing text is emitted as it is met and the opening calls,
// innermost last, are inserted at start once at the end (inserting each
// one as it came would move the chain's pieces once per operator). Each
// operator wraps the operand before it, so each counts one level of
// nesting, also for the index expressions inside the chain.
func (w *rewriter) postfix(start, i, b int) (int, error) {
	var opens []string // opening calls, innermost first
	defer func(d int) { w.depth = d }(w.depth)
	for {
		open, n, err := w.postfixOp(i, b)
		if err != nil {
			return 0, err
		}
		if open == "" {
			break
		}
		opens = append(opens, open)
		i = n
	}
	if len(opens) > 0 {
		slices.Reverse(opens)
		w.insertAll(start, opens)
	}
	return i, nil
}

// postfixOp rewrites the postfix operator at i and returns the call it
// opens ("" when none is at i) and the index after it.
func (w *rewriter) postfixOp(i, b int) (string, int, error) {
	toks := w.p.toks
	t := toks[i]
	isOp := t.isPunct("->") || t.isPunct("[") ||
		t.is("AT") && toks[i+1].is("TIME") && toks[i+2].is("ZONE") && toks[i+3].Kind == tString
	if i >= b || !isOp {
		return "", i, nil
	}
	if _, err := enter(&w.depth, w.p.s.src, t); err != nil {
		return "", 0, err
	}
	if err := w.p.s.check(t); err != nil {
		return "", 0, err
	}
	switch {
	case t.isPunct("->"):
		return w.deref(i)
	case t.isPunct("["):
		return w.subscript(i, b)
	}
	w.emit(", "+toks[i+3].Raw+")", i+3)
	return fnAtTimeZone + "(", i + 4, nil
}

// subscript rewrites [index] at i.
func (w *rewriter) subscript(i, b int) (string, int, error) {
	j, err := w.closing(i, b)
	if err != nil {
		return "", 0, err
	}
	w.emit(", ", i)
	if err := w.expr(i+1, j); err != nil {
		return "", 0, err
	}
	w.emit(")", j)
	return fnSubscript + "(", j + 1, nil
}

func (w *rewriter) deref(i int) (string, int, error) {
	n := w.p.toks[i+1]
	switch {
	case n.Kind == tIdent || n.Kind == tQuoted:
		if err := w.p.checkNotReserved(n); err != nil {
			return "", 0, err
		}
		w.emit(", "+w.addName(n.Val)+")", i+1)
		return fnDeref + "(", i + 2, nil
	case n.isPunct("*"):
		w.emit(")", i+1)
		return fnStructStar + "(", i + 2, nil
	}
	return "", 0, w.p.errAt(n, sqlerr.Syntax, "expected a field name or * after ->")
}

// insertAll puts the texts ss before the piece at index at, in one move,
// each mapped to that piece's token.
func (w *rewriter) insertAll(at int, ss []string) {
	tok := w.pieces[at].tok
	add := make([]piece, len(ss))
	for k, s := range ss {
		add[k] = piece{s, tok}
	}
	w.pieces = slices.Insert(w.pieces, at, add...)
}

// splitCommas splits [a, b) at top-level commas.
func (w *rewriter) splitCommas(a, b int) ([][2]int, error) {
	var out [][2]int
	if a == b {
		return nil, nil
	}
	start := a
	for i := a; i < b; i++ {
		t := w.p.toks[i]
		if t.isPunct("(") || t.isPunct("[") {
			j, err := w.closing(i, b)
			if err != nil {
				return nil, err
			}
			i = j
			continue
		}
		if t.isPunct(",") {
			if i == start {
				return nil, w.p.errAt(t, sqlerr.Syntax, "expected an expression")
			}
			out = append(out, [2]int{start, i})
			start = i + 1
		}
	}
	if start == b {
		return nil, w.p.errAt(w.p.toks[b], sqlerr.Syntax, "expected an expression")
	}
	return append(out, [2]int{start, b}), nil
}

// list rewrites comma-separated elements with each, separated by ", ".
func (w *rewriter) list(ranges [][2]int, each func(a, b int) error) error {
	for k, r := range ranges {
		if k > 0 {
			w.emit(", ", r[0]-1)
		}
		if err := each(r[0], r[1]); err != nil {
			return err
		}
	}
	return nil
}
