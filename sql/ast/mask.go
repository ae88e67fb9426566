package ast

import "strings"

// MaskedValue replaces a connector config value in a masked statement
// text (ksqlDB's QueryMask).
const MaskedValue = "'[string]'"

// MaskedText is a statement's text as ksqlDB's QueryMask shows it in
// answers and errors: a CREATE CONNECTOR as written but with every config
// value except connector.class's replaced by '[string]' (credentials live
// there), every other statement as written.
func MaskedText(s Statement) string {
	c, ok := s.(*CreateConnector)
	if !ok {
		return s.Text()
	}
	text := c.Text()
	var b strings.Builder
	last := 0
	for _, p := range c.Config {
		if strings.EqualFold(p.Name, "connector.class") || p.Value == nil {
			continue
		}
		start := p.Value.P.Offset - c.P.Offset
		end := literalEnd(text, start)
		if start < last || end < 0 {
			return maskedFormat(c) // positions not into this text: rebuild it
		}
		b.WriteString(text[last:start])
		b.WriteString(MaskedValue)
		last = end
	}
	b.WriteString(text[last:])
	return b.String()
}

// literalEnd is the offset just past the literal starting at start in
// text (a quoted string with ” escapes, or a bare number or word), -1
// when start is not inside text.
func literalEnd(text string, start int) int {
	if start < 0 || start >= len(text) {
		return -1
	}
	if text[start] == '\'' {
		for i := start + 1; i < len(text); i++ {
			if text[i] != '\'' {
				continue
			}
			if i+1 < len(text) && text[i+1] == '\'' {
				i++
				continue
			}
			return i + 1
		}
		return -1
	}
	i := start
	for i < len(text) && !strings.ContainsRune(" \t\r\n,)", rune(text[i])) {
		i++
	}
	return i
}

// maskedFormat is the canonical text of c with its values masked.
func maskedFormat(c *CreateConnector) string {
	var b strings.Builder
	b.WriteString("CREATE " + c.Scope.String() + " CONNECTOR ")
	if c.IfNotExists {
		b.WriteString("IF NOT EXISTS ")
	}
	b.WriteString(QuoteName(c.Name) + " WITH (")
	for i, p := range c.Config {
		if i > 0 {
			b.WriteString(", ")
		}
		v := MaskedValue
		if strings.EqualFold(p.Name, "connector.class") {
			v = formatLiteral(p.Value)
		}
		b.WriteString(QuoteString(p.Name) + "=" + v)
	}
	b.WriteString(")")
	return b.String()
}
