package parser

import (
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// matching returns the index of the bracket closing the ( or [ at i, or
// -1 when it is unbalanced. The table is built once per statement.
func (p *parser) matching(i int) int {
	if p.match == nil {
		p.match = matchBrackets(p.toks)
	}
	return p.match[i]
}

// matchBrackets pairs ( with ) and [ with ]; unpaired brackets get -1.
func matchBrackets(toks []token) []int {
	m := make([]int, len(toks))
	var stack []int
	for i, t := range toks {
		m[i] = -1
		switch {
		case t.isPunct("(") || t.isPunct("["):
			stack = append(stack, i)
		case t.isPunct(")") || t.isPunct("]"):
			if len(stack) == 0 {
				continue
			}
			open := stack[len(stack)-1]
			if (toks[open].Val == "(") != (t.Val == ")") {
				continue
			}
			stack = stack[:len(stack)-1]
			m[open], m[i] = i, open
		}
	}
	return m
}

// typeAt parses the type spelled by exactly the tokens [a, b).
func (p *parser) typeAt(a, b int) (*types.Type, error) {
	save := p.i
	defer func() { p.i = save }()
	p.i = a
	t, err := p.typ()
	if err != nil {
		return nil, err
	}
	if p.i != b {
		return nil, p.errAt(p.toks[p.i], sqlerr.Syntax, "unexpected text after type")
	}
	return t, nil
}
