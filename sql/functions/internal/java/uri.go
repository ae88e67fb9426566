package java

import (
	"fmt"
	"strconv"
	"strings"
)

// URI is a URI split into components as java.net.URI (RFC 2396) does,
// which is what ksqlDB's URL functions use. Components that are absent are
// nil; present ones are decoded (%XX sequences as UTF-8) except scheme and
// host. Port is -1 when absent.
type URI struct {
	Scheme, Host, Path, Query, Fragment *string
	Port                                int
}

// ParseURI parses s; a string that java.net.URI rejects (illegal
// characters, a bad escape, an empty scheme…) is an error.
func ParseURI(s string) (*URI, error) {
	if err := checkURIChars(s); err != nil {
		return nil, err
	}
	u := &URI{Port: -1}
	rest := s
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		frag := rest[i+1:]
		if strings.ContainsAny(frag, "#[]") {
			return nil, uriError(s, "illegal character in fragment")
		}
		u.Fragment, rest = decodedPtr(frag), rest[:i]
	}
	scheme, ssp, err := splitScheme(s, rest)
	if err != nil {
		return nil, err
	}
	if scheme != "" {
		u.Scheme = &scheme
		if !strings.HasPrefix(ssp, "/") {
			return u, nil // opaque: mailto:a@b
		}
	}
	return u, u.parseHierarchical(s, ssp)
}

func uriError(s, why string) error {
	return fmt.Errorf("URL input has invalid syntax: %s (%s)", s, why)
}

// checkURIChars rejects characters java.net.URI never accepts: ASCII
// controls, space and "<>\"{}|\\^`", and '%' not followed by two hex digits.
func checkURIChars(s string) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if i+2 >= len(s) || !IsHexByte(s[i+1]) || !IsHexByte(s[i+2]) {
				return uriError(s, fmt.Sprintf("malformed escape at index %d", i))
			}
		case c <= ' ' || c == 0x7f || strings.IndexByte("<>\"{}|\\^`", c) >= 0:
			return uriError(s, fmt.Sprintf("illegal character at index %d", i))
		}
	}
	return nil
}

// IsHexByte reports whether c is an ASCII hex digit, as the %XX escapes
// of java.net.URI and URLDecoder require.
func IsHexByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// splitScheme separates "scheme:" when the text before the first ':' (and
// before any '/', '?') is a valid scheme.
func splitScheme(s, rest string) (scheme, ssp string, err error) {
	i := strings.IndexAny(rest, ":/?")
	if i < 0 || rest[i] != ':' {
		return "", rest, nil
	}
	if i == 0 {
		return "", "", uriError(s, "expected scheme name")
	}
	if !isScheme(rest[:i]) {
		return "", "", uriError(s, "illegal character in scheme name")
	}
	if i == len(rest)-1 {
		return "", "", uriError(s, "expected scheme-specific part")
	}
	return rest[:i], rest[i+1:], nil
}

func isScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (i == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// parseHierarchical handles [//authority][path][?query].
func (u *URI) parseHierarchical(s, ssp string) error {
	rest, query, hasQuery := strings.Cut(ssp, "?")
	if hasQuery {
		u.Query = decodedPtr(query)
	}
	path, auth := rest, ""
	hasAuth := strings.HasPrefix(rest, "//")
	if hasAuth {
		auth, path = splitAuthority(rest[2:])
	}
	if strings.ContainsAny(path+query, "[]") {
		return uriError(s, "'[' and ']' are only allowed around an IPv6 host")
	}
	if hasAuth {
		if auth == "" && path == "" && !hasQuery && u.Fragment == nil {
			return uriError(s, "expected authority")
		}
		if err := u.parseAuthority(s, auth); err != nil {
			return err
		}
	}
	u.Path = decodedPtr(path)
	return nil
}

func splitAuthority(s string) (auth, path string) {
	if i := strings.IndexByte(s, '/'); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

// parseAuthority reads [userinfo@]host[:port]; an authority that is not a
// valid server address (java's registry-based authority) has no host and
// no port. Brackets may only enclose an IPv6 host.
func (u *URI) parseAuthority(s, auth string) error {
	if i := strings.LastIndexByte(auth, '@'); i >= 0 {
		auth = auth[i+1:]
	}
	if open := strings.IndexByte(auth, '['); open > 0 || open == 0 && strings.IndexByte(auth, ']') < 0 ||
		open < 0 && strings.IndexByte(auth, ']') >= 0 {
		return uriError(s, "malformed IPv6 address")
	}
	host, port := auth, ""
	if i := strings.LastIndexByte(auth, ':'); i >= 0 && !strings.HasSuffix(auth, "]") {
		host, port = auth[:i], auth[i+1:]
	}
	if !isServerHost(host) {
		return nil
	}
	if port != "" {
		p, err := strconv.ParseInt(port, 10, 32)
		if err != nil || strings.TrimLeft(port, "0123456789") != "" {
			return nil
		}
		u.Port = int(p)
	}
	u.Host = &host
	return nil
}

// isServerHost accepts an IPv6 reference, an IPv4 address or a host name
// whose labels are letters, digits and inner hyphens, the last label
// starting with a letter.
func isServerHost(h string) bool {
	if strings.HasPrefix(h, "[") {
		return strings.HasSuffix(h, "]") && len(h) > 2
	}
	labels := strings.Split(strings.TrimSuffix(h, "."), ".")
	if isIPv4(labels) {
		return true
	}
	for _, l := range labels {
		if !isHostLabel(l) {
			return false
		}
	}
	last := labels[len(labels)-1]
	return last[0] >= 'a' && last[0] <= 'z' || last[0] >= 'A' && last[0] <= 'Z'
}

func isIPv4(labels []string) bool {
	if len(labels) != 4 {
		return false
	}
	for _, l := range labels {
		n, err := strconv.Atoi(l)
		if err != nil || n < 0 || n > 255 || l == "" || l[0] == '+' || l[0] == '-' {
			return false
		}
	}
	return true
}

func isHostLabel(l string) bool {
	if l == "" || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

func decodedPtr(s string) *string {
	d := percentDecode(s)
	return &d
}

// percentDecode decodes %XX sequences (already validated) as UTF-8,
// replacing malformed sequences with U+FFFD.
func percentDecode(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var buf []byte
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			buf = append(buf, byte(v))
			i += 2
			continue
		}
		buf = append(buf, s[i])
	}
	return DecodeUTF8(buf)
}
