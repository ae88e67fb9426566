package functions

import (
	"errors"
	"strings"

	"github.com/sqlstream/sqlstream/sql/functions/internal/java"
)

// urlDefs are the URL functions. URLs are parsed as java.net.URI does (see
// java.ParseURI); a URL it rejects is a runtime error.
func urlDefs() []ScalarDef {
	return []ScalarDef{
		{Name: "URL_DECODE_PARAM", Category: CatURL,
			Description: "Decodes a previously encoded application/x-www-form-urlencoded String.",
			Overloads:   []Overload{{Sig: "URL_DECODE_PARAM(STRING input) STRING", Fn: urlDecodeParam}}},
		{Name: "URL_ENCODE_PARAM", Category: CatURL,
			Description: "Returns a version of the input with all URL sensitive characters encoded using the " +
				"application/x-www-form-urlencoded standard.",
			Overloads: []Overload{{Sig: "URL_ENCODE_PARAM(STRING input) STRING", Fn: urlEncodeParam}}},
		urlPart("URL_EXTRACT_FRAGMENT", "Extracts the fragment of an application/x-www-form-urlencoded encoded String input.",
			func(u *java.URI) *string { return u.Fragment }),
		urlPart("URL_EXTRACT_HOST", "Extracts the host-name of an application/x-www-form-urlencoded encoded String input.",
			func(u *java.URI) *string { return u.Host }),
		urlPart("URL_EXTRACT_PATH", "Extracts the path of an application/x-www-form-urlencoded encoded String input.",
			func(u *java.URI) *string { return u.Path }),
		urlPart("URL_EXTRACT_PROTOCOL", "Extracts the protocol of an application/x-www-form-urlencoded encoded String input.",
			func(u *java.URI) *string { return u.Scheme }),
		urlPart("URL_EXTRACT_QUERY", "Extracts the decoded query-string portion of an application/x-www-form-urlencoded encoded String input.",
			func(u *java.URI) *string { return u.Query }),
		{Name: "URL_EXTRACT_PORT", Category: CatURL,
			Description: "Extracts the port from an application/x-www-form-urlencoded encoded String. If there is no " +
				"port, this returns NULL.",
			Overloads: []Overload{{Sig: "URL_EXTRACT_PORT(STRING input) INTEGER", Fn: urlExtractPort}}},
		{Name: "URL_EXTRACT_PARAMETER", Category: CatURL,
			Description: "Extracts a parameter with a specified name encoded inside an application/x-www-form-urlencoded " +
				"String: the (decoded) value of the first parameter of that name, '' when it has no value, NULL when absent.",
			Overloads: []Overload{{Sig: "URL_EXTRACT_PARAMETER(STRING input, STRING paramToFind) STRING", Fn: urlExtractParameter}}},
	}
}

// urlPart declares a URL_EXTRACT_* function returning one component.
func urlPart(name, desc string, part func(*java.URI) *string) ScalarDef {
	return ScalarDef{Name: name, Category: CatURL, Description: desc,
		Overloads: []Overload{{Sig: name + "(STRING input) STRING", Fn: func(args []any) (any, error) {
			u, err := java.ParseURI(args[0].(string))
			if err != nil {
				return nil, err
			}
			if p := part(u); p != nil {
				return *p, nil
			}
			return nil, nil
		}}}}
}

func urlExtractPort(args []any) (any, error) {
	u, err := java.ParseURI(args[0].(string))
	if err != nil || u.Port < 0 {
		return nil, err
	}
	return int32(u.Port), nil
}

func urlExtractParameter(args []any) (any, error) {
	u, err := java.ParseURI(args[0].(string))
	if err != nil || u.Query == nil {
		return nil, err
	}
	want := args[1].(string)
	for _, param := range strings.Split(*u.Query, "&") {
		k, v, hasValue := strings.Cut(param, "=")
		if k == want {
			if !hasValue {
				return "", nil
			}
			return v, nil
		}
	}
	return nil, nil
}

// urlEncodeParam escapes as application/x-www-form-urlencoded: letters,
// digits and ".-*_" stay, space becomes '+', other bytes of the UTF-8
// encoding become %XX.
func urlEncodeParam(args []any) (any, error) {
	const hex = "0123456789ABCDEF"
	s := args[0].(string)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(".-*_", c) >= 0:
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xF])
		}
	}
	return b.String(), nil
}

// urlDecodeParam reverses urlEncodeParam: '+' is a space and %XX a byte of
// the UTF-8 encoding; a '%' without two hex digits is an error.
func urlDecodeParam(args []any) (any, error) {
	s := args[0].(string)
	buf := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '+':
			buf = append(buf, ' ')
		case '%':
			if i+2 >= len(s) || !java.IsHexByte(s[i+1]) || !java.IsHexByte(s[i+2]) {
				return nil, errors.New("URL_DECODE_PARAM: incomplete or illegal '%' escape in " + s)
			}
			buf = append(buf, hexNibble(s[i+1])<<4|hexNibble(s[i+2]))
			i += 2
		default:
			buf = append(buf, c)
		}
	}
	return java.DecodeUTF8(buf), nil
}

func hexNibble(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}
