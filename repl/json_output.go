package repl

import (
	"bytes"
	"encoding/json"
	"github.com/sqlstream/sqlstream/api"
	"strconv"
	"strings"
)

// jacksonPretty re-indents JSON the way Jackson's default pretty printer
// does (the CLI's OUTPUT JSON mode): objects one field per line indented
// by two spaces per object level, arrays inline "[ a, b ]", "key" : value,
// empty containers "{ }" and "[ ]". Key order and number text are kept.
func jacksonPretty(raw []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	p := &prettyPrinter{dec: dec}
	if err := p.value(); err != nil {
		return "", err
	}
	return p.b.String(), nil
}

type prettyPrinter struct {
	dec   *json.Decoder
	b     strings.Builder
	depth int // object nesting; arrays are inline and do not indent
}

func (p *prettyPrinter) value() error {
	tok, err := p.dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return p.object()
		}
		return p.array()
	case string:
		p.b.WriteString(jacksonQuote(t))
	case json.Number:
		p.b.WriteString(t.String())
	case bool:
		p.b.WriteString(strconv.FormatBool(t))
	case nil:
		p.b.WriteString("null")
	}
	return nil
}

func (p *prettyPrinter) object() error {
	p.b.WriteByte('{')
	p.depth++
	n := 0
	for ; p.dec.More(); n++ {
		if n > 0 {
			p.b.WriteByte(',')
		}
		p.newline()
		key, err := p.dec.Token()
		if err != nil {
			return err
		}
		p.b.WriteString(jacksonQuote(key.(string)) + " : ")
		if err := p.value(); err != nil {
			return err
		}
	}
	p.depth--
	if n == 0 {
		p.b.WriteByte(' ')
	} else {
		p.newline()
	}
	p.b.WriteByte('}')
	_, err := p.dec.Token()
	return err
}

func (p *prettyPrinter) array() error {
	p.b.WriteString("[ ")
	n := 0
	for ; p.dec.More(); n++ {
		if n > 0 {
			p.b.WriteString(", ")
		}
		if err := p.value(); err != nil {
			return err
		}
	}
	if n > 0 {
		p.b.WriteByte(' ')
	}
	p.b.WriteByte(']')
	_, err := p.dec.Token()
	return err
}

func (p *prettyPrinter) newline() {
	p.b.WriteByte('\n')
	p.b.WriteString(strings.Repeat("  ", p.depth))
}

// jacksonQuote quotes s escaping only what JSON requires (Jackson leaves
// <, > and & alone).
func jacksonQuote(s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(buf.String(), "\n")
}

// printJSON prints v as the CLI's OUTPUT JSON mode does.
func (c *console) printJSON(v any) {
	raw, err := api.Marshal(v)
	if err == nil {
		var out string
		if out, err = jacksonPretty(raw); err == nil {
			c.println(out)
			return
		}
	}
	c.printError("cannot print as JSON: " + err.Error())
}
