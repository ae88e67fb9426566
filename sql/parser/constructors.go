package parser

import (
	"strconv"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// special rewrites CAST(…), MAP(…) and STRUCT(…) at i.
func (w *rewriter) special(i, b int) (int, error) {
	j, err := w.closing(i+1, b)
	if err != nil {
		return 0, err
	}
	switch w.p.toks[i].Val {
	case "CAST":
		err = w.cast(i, j)
	case "MAP":
		err = w.entries(i, j, fnMap, w.mapEntry)
	default:
		err = w.entries(i, j, fnStruct, w.structEntry)
	}
	return j + 1, err
}

// cast rewrites CAST(expr AS type) whose parentheses close at j.
func (w *rewriter) cast(i, j int) error {
	as := -1
	for k := i + 2; k < j; k++ {
		t := w.p.toks[k]
		if t.isPunct("(") || t.isPunct("[") {
			k = w.p.matching(k)
			continue
		}
		if t.is("AS") {
			as = k
		}
	}
	if as < 0 {
		return w.p.errAt(w.p.toks[j], sqlerr.Syntax, "expected AS in CAST")
	}
	typ, err := w.p.typeAt(as+1, j)
	if err != nil {
		return err
	}
	w.typs = append(w.typs, typ)
	w.emit(fnCast+"(", i)
	if err := w.expr(i+2, as); err != nil {
		return err
	}
	w.emit(", "+strconv.Itoa(len(w.typs)-1)+")", j)
	return nil
}

// entries rewrites MAP(k := v, …) or STRUCT(name := v, …) whose
// parentheses close at j.
func (w *rewriter) entries(i, j int, fn string, entry func(a, assign, b int) error) error {
	ranges, err := w.splitCommas(i+2, j)
	if err != nil {
		return err
	}
	w.emit(fn+"(", i)
	err = w.list(ranges, func(a, b int) error {
		assign := -1
		for k := a; k < b && assign < 0; k++ {
			if w.p.toks[k].isPunct(":=") {
				assign = k
			}
		}
		if assign < 0 || assign == a || assign == b-1 {
			return w.p.errAt(w.p.toks[a], sqlerr.Syntax, "expected `name := value`")
		}
		return entry(a, assign, b)
	})
	w.emit(")", j)
	return err
}

func (w *rewriter) mapEntry(a, assign, b int) error {
	if err := w.expr(a, assign); err != nil {
		return err
	}
	w.emit(", ", assign)
	return w.expr(assign+1, b)
}

func (w *rewriter) structEntry(a, assign, b int) error {
	t := w.p.toks[a]
	if assign != a+1 || (t.Kind != tIdent && t.Kind != tQuoted) {
		return w.p.errAt(t, sqlerr.Syntax, "expected a field name before :=")
	}
	if err := w.p.checkNotReserved(t); err != nil {
		return err
	}
	w.emit(w.addName(t.Val)+", ", a)
	return w.expr(assign+1, b)
}

// arrayCtor rewrites ARRAY[e, …].
func (w *rewriter) arrayCtor(i, b int) (int, error) {
	j, err := w.closing(i+1, b)
	if err != nil {
		return 0, err
	}
	ranges, err := w.splitCommas(i+2, j)
	if err != nil {
		return 0, err
	}
	w.emit(fnArray+"(", i)
	if err := w.list(ranges, w.expr); err != nil {
		return 0, err
	}
	w.emit(")", j)
	return j + 1, nil
}

// call rewrites NAME(args), NAME(*) and NAME(DISTINCT args). Names are
// upper-cased; arguments may be lambdas.
func (w *rewriter) call(i, b int) (int, error) {
	toks := w.p.toks
	j, err := w.closing(i+1, b)
	if err != nil {
		return 0, err
	}
	if err := w.p.checkNotReserved(toks[i]); err != nil {
		return 0, err
	}
	name := upper(toks[i].Val)
	if j == i+3 && toks[i+2].isPunct("*") {
		w.emit(fnStarCall+"("+w.addName(name)+")", i)
		return j + 1, nil
	}
	argStart := i + 2
	if toks[argStart].is("DISTINCT") {
		w.emit(fnDistinctCall+"("+w.addName(name), i)
		argStart++
		if argStart < j {
			w.emit(", ", argStart)
		}
	} else {
		w.emit(" "+quoteIdent(name)+"(", i)
	}
	ranges, err := w.splitCommas(argStart, j)
	if err != nil {
		return 0, err
	}
	if err := w.list(ranges, w.argument); err != nil {
		return 0, err
	}
	w.emit(")", j)
	return j + 1, nil
}

// argument rewrites one function argument: a lambda or an expression.
func (w *rewriter) argument(a, b int) error {
	if t := w.p.toks[a]; w.p.toks[a+1].isPunct("=>") {
		if err := w.p.checkNotReserved(t); err != nil {
			return err
		}
	}
	params, body, ok := w.lambdaHead(a, b)
	if !ok {
		return w.expr(a, b)
	}
	w.params = append(w.params, params)
	w.emit(fnLambda+"("+strconv.Itoa(len(w.params)-1)+", ", a)
	if body >= b {
		return w.p.errAt(w.p.toks[b], sqlerr.Syntax, "expected a lambda body")
	}
	if err := w.expr(body, b); err != nil {
		return err
	}
	w.emit(")", b-1)
	return nil
}

// lambdaHead recognizes `x =>` or `(x, y) =>` at a and returns the
// parameter names and the index of the body. A reserved word is no
// parameter (the argument is then read, and refused, as an expression).
func (w *rewriter) lambdaHead(a, b int) ([]string, int, bool) {
	toks := w.p.toks
	isName := func(t token) bool { return t.Kind == tQuoted || t.Kind == tIdent && !ast.IsReserved(t.Val) }
	if isName(toks[a]) && toks[a+1].isPunct("=>") {
		return []string{toks[a].Val}, a + 2, true
	}
	if !toks[a].isPunct("(") {
		return nil, 0, false
	}
	j := w.p.matching(a)
	if j < 0 || j+1 >= b || !toks[j+1].isPunct("=>") {
		return nil, 0, false
	}
	var params []string
	for k := a + 1; k < j; k += 2 {
		if !isName(toks[k]) || (k+1 < j && !toks[k+1].isPunct(",")) {
			return nil, 0, false
		}
		params = append(params, toks[k].Val)
	}
	return params, j + 2, true
}
