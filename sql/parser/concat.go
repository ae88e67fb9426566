package parser

// In ksqlDB `||` binds more loosely than + and - (and * / %), while
// TiDB's PIPES_AS_CONCAT gives it a precedence above *. concatGroups
// finds each top-level chain `x || y || …` in [a, b) and returns where to
// put parentheses around its operands so TiDB groups them as ksqlDB does:
// opens[i] parentheses open before token i, closes[j] close after token j.
func (w *rewriter) concatGroups(a, b int) (opens, closes map[int]int) {
	if !w.hasTopLevelConcat(a, b) {
		return nil, nil
	}
	opens, closes = map[int]int{}, map[int]int{}
	for i := a; i < b; {
		end, ok := w.arith(i, b)
		if !ok {
			i++
			continue
		}
		operands := [][2]int{{i, end}}
		for end < b && w.p.toks[end].isPunct("||") {
			next, ok := w.arith(end+1, b)
			if !ok {
				break
			}
			operands = append(operands, [2]int{end + 1, next})
			end = next
		}
		if len(operands) > 1 {
			for _, o := range operands {
				opens[o[0]]++
				closes[o[1]-1]++
			}
		}
		i = end
	}
	return opens, closes
}

func (w *rewriter) hasTopLevelConcat(a, b int) bool {
	for i := a; i < b; i++ {
		t := w.p.toks[i]
		if (t.isPunct("(") || t.isPunct("[")) && w.p.matching(i) > i {
			i = w.p.matching(i)
			continue
		}
		if t.isPunct("||") {
			return true
		}
	}
	return false
}

// arith returns the end of the arithmetic expression starting at i:
// [+|-]… operand (op [+|-]… operand)… with op one of + - * / %.
func (w *rewriter) arith(i, b int) (int, bool) {
	end, ok := w.signedOperand(i, b)
	if !ok {
		return i, false
	}
	for end < b && isArithOp(w.p.toks[end]) {
		next, ok := w.signedOperand(end+1, b)
		if !ok {
			break
		}
		end = next
	}
	return end, true
}

func isArithOp(t token) bool {
	return t.Kind == tPunct && len(t.Val) == 1 && (t.Val == "+" || t.Val == "-" || t.Val == "*" || t.Val == "/" || t.Val == "%")
}

func (w *rewriter) signedOperand(i, b int) (int, bool) {
	for i < b && (w.p.toks[i].isPunct("-") || w.p.toks[i].isPunct("+")) {
		i++
	}
	if i >= b || !w.primaryStart(w.p.toks[i]) {
		return i, false
	}
	return w.operandEnd(i, b), true
}

// operandEnd returns the index after the operand at i and its postfix
// operators, following the same shapes as primary and postfix.
func (w *rewriter) operandEnd(i, b int) int {
	toks := w.p.toks
	t, next := toks[i], toks[i+1]
	switch {
	case t.isPunct("("):
		i = w.closeOrEnd(i, b)
	case t.is("ARRAY") && next.isPunct("["), next.isPunct("(") && t.Kind != tNumber && t.Kind != tString:
		i = w.closeOrEnd(i+1, b)
	case t.is("DECIMAL") && next.Kind == tString:
		i += 2
	case (t.Kind == tIdent || t.Kind == tQuoted) && next.isPunct("."):
		i += 3
	default:
		i++
	}
	return w.postfixEnd(i, b)
}

// closeOrEnd returns the index after the bracket closing the one at i, or
// b when it is unbalanced (the rewrite reports that error).
func (w *rewriter) closeOrEnd(i, b int) int {
	if j := w.p.matching(i); j > i && j < b {
		return j + 1
	}
	return b
}

func (w *rewriter) postfixEnd(i, b int) int {
	toks := w.p.toks
	for i < b {
		switch t := toks[i]; {
		case t.isPunct("->"):
			i += 2
		case t.isPunct("["):
			i = w.closeOrEnd(i, b)
		case t.is("AT") && toks[i+1].is("TIME"):
			i += 4
		default:
			return i
		}
	}
	return min(i, b)
}
