package functions

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// DefaultMaxResultBytes is sqlstream.function.max.result.bytes' default:
// the largest STRING or BYTES value LPAD, RPAD, REPLACE, REGEXP_REPLACE,
// CONCAT, CONCAT_WS, JSON_CONCAT and `||` build. It is ten times Kafka's default largest record (1 MB),
// so no value a record can carry is refused, while one call cannot
// allocate gigabytes (LPAD(s, 2147483647, 'x') would ask for 2 GB of
// characters, a REDUCE doubling a string would grow it without end).
const DefaultMaxResultBytes = 10 << 20

// ResultProperty is the property that sets the limit.
const ResultProperty = "sqlstream.function.max.result.bytes"

// RegistryOption configures NewRegistry.
type RegistryOption func(*Registry)

// WithMaxResultBytes sets the largest value, in bytes, the value-building
// functions return (default DefaultMaxResultBytes; n <= 0 keeps it).
func WithMaxResultBytes(n int) RegistryOption {
	return func(r *Registry) {
		if n > 0 {
			r.maxResult = n
		}
	}
}

// ResultSizeError is a function asked to build a value past the limit.
type ResultSizeError struct {
	Fn   string
	Size int64
	Max  int
}

func (e *ResultSizeError) Error() string {
	return fmt.Sprintf("%s would build a value of %d bytes, more than the limit of %d (%s)", e.Fn, e.Size, e.Max, ResultProperty)
}

// MaxResultBytes is the registry's value size limit (a nil registry's is
// the default).
func (r *Registry) MaxResultBytes() int {
	if r == nil {
		return DefaultMaxResultBytes
	}
	return r.maxResult
}

// CheckResult returns a *ResultSizeError when fn's result of size bytes is
// past the limit.
func (r *Registry) CheckResult(fn string, size int64) error {
	if limit := r.MaxResultBytes(); size > int64(limit) {
		return &ResultSizeError{Fn: fn, Size: size, Max: limit}
	}
	return nil
}

// padStringSize is the size in bytes of LPAD/RPAD(s, n, pad) on strings.
func padStringSize(s string, n int32, pad string) int64 {
	have := utf8.RuneCountInString(s)
	if pad == "" || int(n) <= have {
		return int64(len(s))
	}
	p := []rune(pad)
	k := int64(n) - int64(have)
	full, rest := k/int64(len(p)), k%int64(len(p))
	return int64(len(s)) + full*int64(len(pad)) + int64(len(string(p[:rest])))
}

// replaceSize is the size in bytes of REPLACE(s, old, new): as Java's
// replace, an empty old inserts new around every character.
func replaceSize(s, old, repl string) int64 {
	count := int64(utf8.RuneCountInString(s) + 1)
	if old != "" {
		count = int64(strings.Count(s, old))
	}
	return int64(len(s)) + count*(int64(len(repl))-int64(len(old)))
}

// concatSize is the size in bytes of the non-NULL STRING or BYTES values
// in args.
func concatSize(args []any) int64 {
	var n int64
	for _, a := range args {
		switch a := a.(type) {
		case string:
			n += int64(len(a))
		case []byte:
			n += int64(len(a))
		}
	}
	return n
}

// capped wraps fn, which builds a value of about size(args) bytes, with
// the registry's limit, checked before fn runs.
func (r *Registry) capped(name string, size func(args []any) int64, fn Fn) Fn {
	return func(args []any) (any, error) {
		if err := r.CheckResult(name, size(args)); err != nil {
			return nil, err
		}
		return fn(args)
	}
}

// concatWSSize is the size in bytes of CONCAT_WS(sep, args…): the
// separator goes between each two non-NULL values.
func concatWSSize(args []any) int64 {
	if args[0] == nil {
		return 0
	}
	sep, parts := concatSize(args[:1]), int64(0)
	for _, a := range args[1:] {
		if a != nil {
			parts++
		}
	}
	return concatSize(args[1:]) + sep*max(parts-1, 0)
}
