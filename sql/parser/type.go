package parser

import (
	"strconv"

	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// ParseType parses a ksqlDB type such as `ARRAY<STRUCT<A INT>>` or
// `DECIMAL(4, 2)`; WithTypes resolves custom type names.
func ParseType(text string, opts ...Option) (*types.Type, error) {
	s := newSession(text, opts)
	toks, err := tokenize(text, s.check)
	if err != nil {
		return nil, err
	}
	p := &parser{s: s, toks: toks}
	t, err := p.typ()
	if err != nil {
		return nil, err
	}
	if !p.at(tEOF) {
		return nil, p.unexpected()
	}
	return t, nil
}

// typ parses a type at the cursor, with ksqlDB's postfix ARRAY: INT
// ARRAY is ARRAY<INT>.
func (p *parser) typ() (*types.Type, error) {
	start := p.peek()
	t, err := p.baseType()
	if err != nil {
		return nil, err
	}
	for n := 1; p.peek().is("ARRAY") && !p.peekN(1).isPunct("<"); n++ {
		if p.depth+n > sqlerr.MaxDepth {
			return nil, tooDeep(p.s.src, start)
		}
		p.i++
		t = types.ArrayOf(t)
	}
	return t, nil
}

// baseType parses a type without postfix ARRAYs.
func (p *parser) baseType() (*types.Type, error) {
	t := p.peek()
	leave, err := enter(&p.depth, p.s.src, t)
	if err != nil {
		return nil, err
	}
	defer leave()
	if t.Kind == tQuoted {
		return p.namedType(t)
	}
	if t.Kind != tIdent || t.Val == "NULL" {
		return nil, p.expected("a type")
	}
	if prim := primitiveType(t.Val); prim != nil {
		p.i++
		return prim, p.typeParameters()
	}
	switch t.Val {
	case "DECIMAL":
		p.i++
		return p.decimalType()
	case "ARRAY":
		p.i++
		return p.arrayType()
	case "MAP":
		p.i++
		return p.mapType()
	case "STRUCT":
		p.i++
		return p.structType()
	}
	return p.namedType(t)
}

// typeParameters skips the parameters ksqlDB's grammar allows after a
// primitive type name and its type parser ignores: VARCHAR(10) is
// STRING. Each is an integer or the word STRING.
func (p *parser) typeParameters() error {
	if !p.peek().isPunct("(") {
		return nil
	}
	p.i++
	for {
		if t := p.peek(); t.Kind != tNumber && !t.is("STRING") {
			return p.expected("a type parameter (an integer)")
		}
		p.i++
		if p.peek().isPunct(")") {
			p.i++
			return nil
		}
		if err := p.expectPunct(","); err != nil {
			return err
		}
	}
}

// namedType resolves a custom type created with CREATE TYPE.
func (p *parser) namedType(t token) (*types.Type, error) {
	if typ, ok := p.s.customType(t.Val); ok {
		// The name expands to its whole type: custom types built from
		// custom types must not nest past the limit either.
		if p.depth+typeDepth(typ) > sqlerr.MaxDepth+1 {
			return nil, tooDeep(p.s.src, t)
		}
		p.i++
		return typ, nil
	}
	return nil, p.errAt(t, sqlerr.Unknown, "unknown type %s", t.Val)
}

// primitiveType returns the type named by an unquoted word, or nil.
func primitiveType(word string) *types.Type {
	switch word {
	case "BOOLEAN":
		return types.BooleanType
	case "INT", "INTEGER":
		return types.IntegerType
	case "BIGINT":
		return types.BigintType
	case "DOUBLE":
		return types.DoubleType
	case "STRING", "VARCHAR":
		return types.StringType
	case "BYTES":
		return types.BytesType
	case "TIMESTAMP":
		return types.TimestampType
	case "DATE":
		return types.DateType
	case "TIME":
		return types.TimeType
	}
	return nil
}

func (p *parser) decimalType() (*types.Type, error) {
	if err := p.expectPunct("("); err != nil {
		return nil, err
	}
	prec, err := p.smallInt("a precision")
	if err != nil {
		return nil, err
	}
	if err := p.expectPunct(","); err != nil {
		return nil, err
	}
	scaleTok := p.peek()
	scale, err := p.smallInt("a scale")
	if err != nil {
		return nil, err
	}
	if err := p.expectPunct(")"); err != nil {
		return nil, err
	}
	if prec < 1 || scale > prec {
		return nil, p.errAt(scaleTok, sqlerr.Type, "invalid DECIMAL(%d, %d): need 1 <= precision and scale <= precision", prec, scale)
	}
	return types.DecimalOf(prec, scale), nil
}

// smallInt consumes a non-negative integer literal.
func (p *parser) smallInt(what string) (int, error) {
	t := p.peek()
	if t.Kind != tNumber {
		return 0, p.expected(what)
	}
	n, err := strconv.Atoi(t.Val)
	if err != nil {
		return 0, p.errAt(t, sqlerr.Syntax, "expected %s (an integer)", what)
	}
	p.i++
	return n, nil
}

func (p *parser) arrayType() (*types.Type, error) {
	if err := p.expectPunct("<"); err != nil {
		return nil, err
	}
	elem, err := p.typ()
	if err != nil {
		return nil, err
	}
	if err := p.expectPunct(">"); err != nil {
		return nil, err
	}
	return types.ArrayOf(elem), nil
}

func (p *parser) mapType() (*types.Type, error) {
	if err := p.expectPunct("<"); err != nil {
		return nil, err
	}
	key, err := p.typ()
	if err != nil {
		return nil, err
	}
	if err := p.expectPunct(","); err != nil {
		return nil, err
	}
	val, err := p.typ()
	if err != nil {
		return nil, err
	}
	if err := p.expectPunct(">"); err != nil {
		return nil, err
	}
	return types.MapOf(key, val), nil
}

func (p *parser) structType() (*types.Type, error) {
	if p.acceptPunct("<>") { // the lexer reads STRUCT<> as STRUCT, <>
		return types.StructOf(), nil
	}
	if err := p.expectPunct("<"); err != nil {
		return nil, err
	}
	var fields []types.Field
	for !p.acceptPunct(">") {
		if len(fields) > 0 {
			if err := p.expectPunct(","); err != nil {
				return nil, err
			}
		}
		name, _, err := p.name("a field name")
		if err != nil {
			return nil, err
		}
		ft, err := p.typ()
		if err != nil {
			return nil, err
		}
		fields = append(fields, types.Field{Name: name, Type: ft})
	}
	return types.StructOf(fields...), nil
}

// typeDepth is how deeply t nests (1 for a primitive). Every type it is
// called on was itself parsed within the limit, so the recursion is
// bounded.
func typeDepth(t *types.Type) int {
	d := 0
	for _, c := range []*types.Type{t.Elem, t.Key} {
		if c != nil {
			d = max(d, typeDepth(c))
		}
	}
	for _, f := range t.Fields {
		d = max(d, typeDepth(f.Type))
	}
	return d + 1
}
