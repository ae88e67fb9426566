package repl

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
)

const (
	minCellWidth = 5
	clipped      = "..."
)

// cellWidth is the width of each query result cell: the configured
// COLUMN-WIDTH, else width / columns - 2 (at least 5).
func (c *console) cellWidth(columns int) int {
	switch {
	case c.colWidth > 0:
		return c.colWidth
	case columns > 0:
		return max(c.width/columns-2, minCellWidth)
	}
	return minCellWidth
}

// rowHeader renders the column names between "+-----+" lines, as the
// CLI's TabularRow header (always wrapped).
func (c *console) rowHeader(names []string) string {
	w := c.cellWidth(len(names))
	sep := separatorLine(w, len(names))
	return sep + "\n" + formatCells(names, w, true) + "\n" + sep
}

// rowLine renders one result row "|v1   |v2   |", wrapping long values
// onto more lines or clipping them with "..." (SET CLI WRAP OFF).
func (c *console) rowLine(cells []string) string {
	return formatCells(cells, c.cellWidth(len(cells)), c.wrap)
}

func separatorLine(width, n int) string {
	return "+" + strings.Repeat(strings.Repeat("-", width)+"+", n)
}

func formatCells(cells []string, width int, wrap bool) string {
	if len(cells) == 0 {
		return ""
	}
	split := make([][]string, len(cells))
	lines := 0
	for i, cell := range cells {
		split[i] = splitFixed(cell, width)
		lines = max(lines, len(split[i]))
	}
	if !wrap {
		lines = 1
	}
	var b strings.Builder
	for l := 0; l < lines; l++ {
		if l > 0 {
			b.WriteByte('\n')
		}
		b.WriteByte('|')
		for _, parts := range split {
			b.WriteString(cellPart(parts, l, lines, width))
			b.WriteByte('|')
		}
	}
	return b.String()
}

// cellPart returns line l of a cell, clipped with "..." on the last shown
// line when more non-blank text is hidden.
func cellPart(parts []string, l, shown, width int) string {
	if l >= len(parts) {
		return strings.Repeat(" ", width)
	}
	part := parts[l]
	if l == shown-1 && hiddenText(parts[shown:]) {
		r := []rune(part)
		return string(r[:max(len(r)-len(clipped), 0)]) + clipped
	}
	return part
}

func hiddenText(rest []string) bool {
	for _, p := range rest {
		if strings.TrimSpace(p) != "" {
			return true
		}
	}
	return false
}

// splitFixed cuts s into width-rune pieces, each padded to width.
func splitFixed(s string, width int) []string {
	r := []rune(s)
	var out []string
	for len(r) > width {
		out = append(out, string(r[:width]))
		r = r[width:]
	}
	out = append(out, padRight(string(r), width))
	return out
}

// cellText renders a JSON value as the Java CLI prints the decoded value:
// strings bare, null as "null", arrays as [a, b], objects as {K=v, …}.
func cellText(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	if err := writeJavaValue(&b, dec); err != nil {
		return string(raw)
	}
	return b.String()
}

func writeJavaValue(b *strings.Builder, dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		return writeJavaContainer(b, dec, t)
	case string:
		b.WriteString(t)
	case json.Number:
		b.WriteString(t.String())
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
		b.WriteString("null")
	}
	return nil
}

func writeJavaContainer(b *strings.Builder, dec *json.Decoder, open json.Delim) error {
	isObject := open == '{'
	if isObject {
		b.WriteByte('{')
	} else {
		b.WriteByte('[')
	}
	for i := 0; dec.More(); i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if isObject {
			key, err := dec.Token()
			if err != nil {
				return err
			}
			b.WriteString(key.(string) + "=")
		}
		if err := writeJavaValue(b, dec); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil && err != io.EOF {
		return err
	}
	if isObject {
		b.WriteByte('}')
	} else {
		b.WriteByte(']')
	}
	return nil
}

// schemaColumnNames extracts the column names from a /query header's
// LogicalSchema string: "`ID` STRING KEY, `S` STRUCT<`A` INT>" → ID, S.
func schemaColumnNames(schema string) []string {
	var names []string
	depth := 0
	for i := 0; i < len(schema); i++ {
		switch ch := schema[i]; {
		case ch == '<' || ch == '(':
			depth++
		case ch == '>' || ch == ')':
			depth--
		case ch == '`':
			name, end := readQuoted(schema, i)
			if depth == 0 {
				names = append(names, name)
			}
			i = end
		}
	}
	return names
}

// readQuoted reads a backquoted identifier starting at s[start] (“ is an
// escaped backquote) and returns it with the index of its closing quote.
func readQuoted(s string, start int) (string, int) {
	var b strings.Builder
	for i := start + 1; i < len(s); i++ {
		if s[i] != '`' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '`' {
			b.WriteByte('`')
			i++
			continue
		}
		return b.String(), i
	}
	return b.String(), len(s)
}
