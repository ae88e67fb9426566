package ast

import "strings"

// flatChain is the longest left-associative chain (1 + 2 + 3 …, a AND b
// AND …) printed the way ksqlDB prints it, with every link in its own
// parentheses: ((1 + 2) + 3). A longer chain is printed in one pair,
// (1 + 2 + 3 + …), which parses to the same tree: the parentheses of
// ksqlDB's form would nest once per link, past sqlerr.MaxDepth for a
// chain the parser accepts (a chain is one level of nesting), and the
// printed text would not parse again.
const flatChain = 16

// chainLevel is the precedence class of the left-associative operators
// that chain, 0 for the others.
func chainLevel(op BinaryOp) int {
	switch op {
	case OpAdd, OpSub:
		return 1
	case OpMul, OpDiv, OpMod:
		return 2
	case OpAnd:
		return 3
	case OpOr:
		return 4
	}
	return 0
}

// formatBinary writes e and the left operands of its chain in one loop,
// so a long chain costs no recursion.
func formatBinary(b *strings.Builder, e *Binary) {
	spine := []*Binary{e} // e and its chained left operands, top first
	if lvl := chainLevel(e.Op); lvl != 0 {
		for l, ok := e.L.(*Binary); ok && chainLevel(l.Op) == lvl; l, ok = l.L.(*Binary) {
			spine = append(spine, l)
		}
	}
	flat := len(spine) > flatChain
	if flat {
		b.WriteString("(")
	} else {
		b.WriteString(strings.Repeat("(", len(spine)))
	}
	formatExpr(b, spine[len(spine)-1].L)
	for i := len(spine) - 1; i >= 0; i-- {
		b.WriteString(" " + spine[i].Op.String() + " ")
		formatExpr(b, spine[i].R)
		if !flat {
			b.WriteString(")")
		}
	}
	if flat {
		b.WriteString(")")
	}
}
