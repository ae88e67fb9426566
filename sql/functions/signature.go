package functions

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/sqlstream/sqlstream/sql/types"
)

// pattern is a parameter or return type of a parsed signature: a concrete
// type, a type variable, a DECIMAL of any precision, a STRUCT of any shape
// or a lambda.
type pattern struct {
	kind       types.Kind
	variable   string // "T", "K1"; kind is unused when set
	anyDecimal bool   // DECIMAL without (p, s)
	anyStruct  bool   // STRUCT without fields
	prec, sc   int
	elem, key  *pattern
	fields     []patternField
	lambda     []*pattern // LAMBDA<in…, out>: inputs then the result
}

type patternField struct {
	name string
	typ  *pattern
}

// param is one formal parameter of a signature.
type param struct {
	name string
	typ  *pattern
	text string // the type as written, for DESCRIBE FUNCTION
}

// signature is a parsed Overload.Sig.
type signature struct {
	name     string
	params   []param
	variadic int // index of the variadic parameter, -1 when none
	ret      *pattern
	retText  string
}

// sigLexer splits a signature into tokens: words, numbers and the
// punctuation ( ) < > , and "...".
type sigLexer struct {
	toks []string
	pos  int
}

func lexSignature(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := rune(s[i])
		switch {
		case unicode.IsSpace(c):
			i++
		case strings.HasPrefix(s[i:], "..."):
			toks = append(toks, "...")
			i += 3
		case strings.ContainsRune("()<>,", c):
			toks = append(toks, string(c))
			i++
		default:
			j := i
			for j < len(s) && (isWordByte(s[j])) {
				j++
			}
			if j == i {
				j = i + 1
			}
			toks = append(toks, s[i:j])
			i = j
		}
	}
	return toks
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

func (l *sigLexer) peek() string {
	if l.pos < len(l.toks) {
		return l.toks[l.pos]
	}
	return ""
}

func (l *sigLexer) next() string {
	t := l.peek()
	l.pos++
	return t
}

func (l *sigLexer) expect(tok string) error {
	if got := l.next(); got != tok {
		return fmt.Errorf("expected %q, got %q", tok, got)
	}
	return nil
}

// parseSignature parses "NAME(TYPE [name][...], …) RETURN".
func parseSignature(sig string) (*signature, error) {
	l := &sigLexer{toks: lexSignature(sig)}
	s := &signature{name: strings.ToUpper(l.next()), variadic: -1}
	if err := l.expect("("); err != nil {
		return nil, fmt.Errorf("signature %q: %w", sig, err)
	}
	if err := s.parseParams(l); err != nil {
		return nil, fmt.Errorf("signature %q: %w", sig, err)
	}
	start := l.pos
	ret, err := parsePattern(l)
	if err != nil {
		return nil, fmt.Errorf("signature %q: return type: %w", sig, err)
	}
	if l.pos != len(l.toks) {
		return nil, fmt.Errorf("signature %q: unexpected %q after the return type", sig, l.peek())
	}
	s.ret, s.retText = ret, joinTokens(l.toks[start:])
	return s, nil
}

func (s *signature) parseParams(l *sigLexer) error {
	if l.peek() == ")" {
		l.next()
		return nil
	}
	for {
		p, variadic, err := parseParam(l)
		if err != nil {
			return err
		}
		if variadic {
			if s.variadic >= 0 {
				return fmt.Errorf("more than one variadic parameter")
			}
			s.variadic = len(s.params)
		}
		s.params = append(s.params, p)
		switch l.next() {
		case ",":
		case ")":
			return nil
		default:
			return fmt.Errorf("expected \",\" or \")\" after parameter %d", len(s.params))
		}
	}
}

func parseParam(l *sigLexer) (param, bool, error) {
	start := l.pos
	typ, err := parsePattern(l)
	if err != nil {
		return param{}, false, err
	}
	p := param{typ: typ, text: joinTokens(l.toks[start:l.pos])}
	variadic := false
	if l.peek() == "..." {
		l.next()
		variadic = true
	}
	if t := l.peek(); t != "," && t != ")" && t != "..." && t != "" {
		p.name = l.next()
	}
	if l.peek() == "..." {
		l.next()
		variadic = true
	}
	return p, variadic, nil
}

// joinTokens re-renders tokens in ksqlDB's type syntax spacing.
func joinTokens(toks []string) string {
	var b strings.Builder
	for i, t := range toks {
		if t == "," {
			b.WriteString(", ")
			continue
		}
		if i > 0 && isWordByte(t[0]) && isWordByte(toks[i-1][0]) {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return b.String()
}

// signaturePrimitive returns the primitive type a signature type name
// denotes.
func signaturePrimitive(name string) (*types.Type, bool) {
	switch name {
	case "BOOLEAN":
		return types.BooleanType, true
	case "INT", "INTEGER":
		return types.IntegerType, true
	case "BIGINT":
		return types.BigintType, true
	case "DOUBLE":
		return types.DoubleType, true
	case "STRING", "VARCHAR":
		return types.StringType, true
	case "BYTES":
		return types.BytesType, true
	case "TIMESTAMP":
		return types.TimestampType, true
	case "DATE":
		return types.DateType, true
	case "TIME":
		return types.TimeType, true
	}
	return nil, false
}

func parsePattern(l *sigLexer) (*pattern, error) {
	word := l.next()
	up := strings.ToUpper(word)
	if t, ok := signaturePrimitive(up); ok {
		return &pattern{kind: t.Kind}, nil
	}
	switch up {
	case "DECIMAL":
		return parseDecimalPattern(l)
	case "ARRAY":
		return parseNested(l, types.KindArray, 1)
	case "MAP":
		return parseNested(l, types.KindMap, 2)
	case "STRUCT":
		return parseStructPattern(l)
	case "LAMBDA":
		return parseLambdaPattern(l)
	}
	if isTypeVariable(word) {
		return &pattern{variable: word}, nil
	}
	return nil, fmt.Errorf("unknown type %q", word)
}

// isTypeVariable reports whether w is a capital letter followed by digits.
func isTypeVariable(w string) bool {
	if w == "" || w[0] < 'A' || w[0] > 'Z' {
		return false
	}
	for i := 1; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

func parseDecimalPattern(l *sigLexer) (*pattern, error) {
	if l.peek() != "(" {
		return &pattern{kind: types.KindDecimal, anyDecimal: true}, nil
	}
	l.next()
	p, err1 := strconv.Atoi(l.next())
	if err := l.expect(","); err != nil {
		return nil, err
	}
	s, err2 := strconv.Atoi(l.next())
	if err1 != nil || err2 != nil {
		return nil, fmt.Errorf("bad DECIMAL precision or scale")
	}
	if err := l.expect(")"); err != nil {
		return nil, err
	}
	return &pattern{kind: types.KindDecimal, prec: p, sc: s}, nil
}

func parseNested(l *sigLexer, kind types.Kind, n int) (*pattern, error) {
	if err := l.expect("<"); err != nil {
		return nil, err
	}
	var parts []*pattern
	for i := 0; i < n; i++ {
		if i > 0 {
			if err := l.expect(","); err != nil {
				return nil, err
			}
		}
		p, err := parsePattern(l)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
	}
	if err := l.expect(">"); err != nil {
		return nil, err
	}
	if kind == types.KindMap {
		return &pattern{kind: kind, key: parts[0], elem: parts[1]}, nil
	}
	return &pattern{kind: kind, elem: parts[0]}, nil
}

func parseStructPattern(l *sigLexer) (*pattern, error) {
	if l.peek() != "<" {
		return &pattern{kind: types.KindStruct, anyStruct: true}, nil
	}
	l.next()
	p := &pattern{kind: types.KindStruct}
	for l.peek() != ">" {
		name := l.next()
		t, err := parsePattern(l)
		if err != nil {
			return nil, err
		}
		p.fields = append(p.fields, patternField{name: name, typ: t})
		if l.peek() == "," {
			l.next()
		}
	}
	l.next()
	return p, nil
}

func parseLambdaPattern(l *sigLexer) (*pattern, error) {
	if err := l.expect("<"); err != nil {
		return nil, err
	}
	p := &pattern{}
	for {
		t, err := parsePattern(l)
		if err != nil {
			return nil, err
		}
		p.lambda = append(p.lambda, t)
		if l.peek() != "," {
			break
		}
		l.next()
	}
	if len(p.lambda) < 2 {
		return nil, fmt.Errorf("LAMBDA needs at least one input and a result type")
	}
	return p, l.expect(">")
}

// isLambda reports whether the pattern is a LAMBDA<…> parameter.
func (p *pattern) isLambda() bool { return p.lambda != nil }
