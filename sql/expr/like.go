package expr

import (
	"strings"
	"unicode/utf8"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// like compiles X [NOT] LIKE pattern [ESCAPE c]: % matches any run of
// characters, _ exactly one, and the escape character makes the next
// character literal. A constant pattern is compiled once; prefix, suffix
// and contains patterns use plain string tests. A NULL operand gives NULL
// (ksqlDB's matcher fails on it, which a filter also treats as no match).
func (c *compiler) like(e *ast.Like) (*node, error) {
	x, err := c.compile(e.X)
	if err != nil {
		return nil, err
	}
	pat, err := c.compile(e.Pattern)
	if err != nil {
		return nil, err
	}
	for _, n := range []*node{x, pat} {
		if k := n.typ.Kind; k != types.KindString && k != types.KindUnknown {
			return nil, errAt(sqlerr.Type, e, "LIKE requires STRING operands, got %s LIKE %s", typeName(x.typ), typeName(pat.typ))
		}
	}
	escape, err := c.likeEscape(e)
	if err != nil {
		return nil, err
	}
	var n *node
	if pat.isConst && pat.value != nil {
		n = constLike(x, compileLike(pat.value.(string), escape), e.Not)
	} else {
		n = dynamicLike(x, pat, escape, e.Not)
	}
	return fold(n, x, pat), nil
}

func (c *compiler) likeEscape(e *ast.Like) (rune, error) {
	if e.Escape == nil {
		return -1, nil
	}
	n, err := c.compile(e.Escape)
	if err != nil {
		return 0, err
	}
	s, ok := n.value.(string)
	if !n.isConst || !ok || utf8.RuneCountInString(s) != 1 {
		return 0, errAt(sqlerr.Semantic, e.Escape, "ESCAPE must be a single character string literal")
	}
	r, _ := utf8.DecodeRuneInString(s)
	return r, nil
}

func constLike(x *node, match func(string) bool, not bool) *node {
	xe := x.eval
	return &node{typ: types.BooleanType, eval: func(row *types.Row, env *evalEnv) (any, error) {
		v, err := xe(row, env)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, nil
		}
		return match(v.(string)) != not, nil
	}}
}

func dynamicLike(x, pat *node, escape rune, not bool) *node {
	xe, pe := x.eval, pat.eval
	return &node{typ: types.BooleanType, eval: func(row *types.Row, env *evalEnv) (any, error) {
		v, err := xe(row, env)
		if err != nil {
			return nil, err
		}
		p, err := pe(row, env)
		if err != nil {
			return nil, err
		}
		if v == nil || p == nil {
			return nil, nil
		}
		return compileLike(p.(string), escape)(v.(string)) != not, nil
	}}
}

// likeToken is one element of a parsed pattern: a literal run, '_' (one
// character) or '%' (any run).
type likeToken struct {
	lit  string
	kind byte // 0 literal, '_' or '%'
}

func parseLike(p string, escape rune) []likeToken {
	var toks []likeToken
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			toks = append(toks, likeToken{lit: lit.String()})
			lit.Reset()
		}
	}
	escaped := false
	for _, r := range p {
		switch {
		case escaped:
			lit.WriteRune(r)
			escaped = false
		case r == escape:
			escaped = true
		case r == '%' || r == '_':
			flush()
			toks = append(toks, likeToken{kind: byte(r)})
		default:
			lit.WriteRune(r)
		}
	}
	flush()
	return toks
}

// compileLike returns a matcher for pattern p.
func compileLike(p string, escape rune) func(string) bool {
	toks := parseLike(p, escape)
	switch {
	case len(toks) == 0:
		return func(s string) bool { return s == "" }
	case len(toks) == 1 && toks[0].kind == 0:
		lit := toks[0].lit
		return func(s string) bool { return s == lit }
	case len(toks) == 2 && toks[0].kind == 0 && toks[1].kind == '%':
		lit := toks[0].lit
		return func(s string) bool { return strings.HasPrefix(s, lit) }
	case len(toks) == 2 && toks[0].kind == '%' && toks[1].kind == 0:
		lit := toks[1].lit
		return func(s string) bool { return strings.HasSuffix(s, lit) }
	case len(toks) == 3 && toks[0].kind == '%' && toks[1].kind == 0 && toks[2].kind == '%':
		lit := toks[1].lit
		return func(s string) bool { return strings.Contains(s, lit) }
	}
	return func(s string) bool { return matchLike(toks, s) }
}

// matchLike matches s against toks, backtracking only to the last '%'.
func matchLike(toks []likeToken, s string) bool {
	ti, si := 0, 0
	starTok, starS := -1, 0
	for {
		if ti < len(toks) {
			t := toks[ti]
			switch {
			case t.kind == '%':
				starTok, starS = ti, si
				ti++
				continue
			case t.kind == '_' && si < len(s):
				_, w := utf8.DecodeRuneInString(s[si:])
				si += w
				ti++
				continue
			case t.kind == 0 && strings.HasPrefix(s[si:], t.lit):
				si += len(t.lit)
				ti++
				continue
			}
		} else if si == len(s) {
			return true
		}
		if starTok < 0 || starS >= len(s) {
			return false
		}
		_, w := utf8.DecodeRuneInString(s[starS:])
		starS += w
		ti, si = starTok+1, starS
	}
}
