// Package javaprops reads Java properties files (java.util.Properties'
// format), which ksqlDB's configuration files and credentials files are:
// the server's --config file and Kafka Connect's basic-auth credentials
// file (ksql.connect.basic.auth.credentials.file). A leaf.
package javaprops

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Property is one key=value entry of a properties file, with the line it
// starts on so that later validation errors can point at it.
type Property struct {
	Key, Value string
	Line       int
}

// Error is a malformed entry of a properties file.
type Error struct {
	Line int // first physical line of the entry, from 1
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// Parse reads a Java-style properties file: `key=value`,
// `key: value` or `key value` entries, `#` and `!` comment lines, trailing
// backslash continuation, and \t \n \r \f \\ \uXXXX escapes. Unlike Java, a
// line with a key and no separator, or with an empty key, is an error that
// names the line, and so is a physical line over maxLine bytes.
// Later entries for a key replace earlier ones.
func Parse(r io.Reader) ([]Property, error) {
	var props []Property
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, maxLine)
	line := 0
	for {
		text, start, ok := logicalLine(sc, &line)
		if !ok {
			break
		}
		if isBlankOrComment(text) {
			continue
		}
		p, err := parseEntry(text)
		if err != nil {
			return nil, &Error{Line: start, Err: err}
		}
		p.Line = start
		props = append(props, p)
	}
	if err := sc.Err(); err != nil {
		return nil, scanError(err, line+1)
	}
	return props, nil
}

// maxLine is the longest physical line of a properties file
// (bufio.Scanner's default token limit, 64 KiB).
const maxLine = bufio.MaxScanTokenSize

// scanError names the physical line the scanner stopped on.
func scanError(err error, line int) error {
	if errors.Is(err, bufio.ErrTooLong) {
		err = fmt.Errorf("line longer than %d bytes", maxLine)
	}
	return &Error{Line: line, Err: err}
}

// logicalLine joins physical lines ending in an odd number of backslashes
// with the next one, whose leading whitespace is dropped. It returns the
// joined text and the number of its first physical line.
func logicalLine(sc *bufio.Scanner, line *int) (string, int, bool) {
	if !sc.Scan() {
		return "", 0, false
	}
	*line++
	start, text := *line, sc.Text()
	for continues(text) && !isBlankOrComment(text) && sc.Scan() {
		*line++
		text = text[:len(text)-1] + strings.TrimLeft(sc.Text(), " \t\f")
	}
	return text, start, true
}

func continues(text string) bool {
	n := len(text) - len(strings.TrimRight(text, `\`))
	return n%2 == 1
}

func isBlankOrComment(text string) bool {
	t := strings.TrimLeft(text, " \t\f")
	return t == "" || t[0] == '#' || t[0] == '!'
}

// parseEntry splits a logical line at its first unescaped '=', ':' or
// whitespace run and unescapes both sides.
func parseEntry(text string) (Property, error) {
	text = strings.TrimLeft(text, " \t\f")
	cut, sepLen := separator(text)
	if cut < 0 {
		return Property{}, fmt.Errorf("malformed entry %q: expected key=value", text)
	}
	if cut == 0 {
		return Property{}, fmt.Errorf("malformed entry %q: empty key", text)
	}
	key, err := unescape(text[:cut])
	if err != nil {
		return Property{}, fmt.Errorf("malformed key in %q: %w", text, err)
	}
	value, err := unescape(strings.TrimLeft(text[cut+sepLen:], " \t\f"))
	if err != nil {
		return Property{}, fmt.Errorf("malformed value in %q: %w", text, err)
	}
	return Property{Key: key, Value: value}, nil
}

// separator returns the index of the key/value separator and its length
// (whitespace around '=' or ':' belongs to the separator), or -1.
func separator(text string) (int, int) {
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\\':
			i++
		case c == '=' || c == ':':
			return i, 1
		case c == ' ' || c == '\t' || c == '\f':
			rest := strings.TrimLeft(text[i:], " \t\f")
			if rest == "" {
				return -1, 0
			}
			n := len(text) - len(rest) - i
			if rest[0] == '=' || rest[0] == ':' {
				n++
			}
			return i, n
		}
	}
	return -1, 0
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		n, err := writeEscape(&b, s[i:])
		if err != nil {
			return "", err
		}
		i += n
	}
	return b.String(), nil
}

// writeEscape writes the character escaped by the text after a backslash
// and returns how many bytes beyond the first it consumed.
func writeEscape(b *strings.Builder, rest string) (int, error) {
	switch rest[0] {
	case 't':
		b.WriteByte('\t')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 'f':
		b.WriteByte('\f')
	case 'u':
		if len(rest) < 5 {
			return 0, fmt.Errorf(`truncated \u escape`)
		}
		r, err := strconv.ParseUint(rest[1:5], 16, 32)
		if err != nil {
			return 0, fmt.Errorf(`bad escape "\%s"`, rest[:5])
		}
		b.WriteRune(rune(r))
		return 4, nil
	default:
		b.WriteByte(rest[0])
	}
	return 0, nil
}
