package parser

import (
	"regexp"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
)

// quotedPair is a 'key' = 'value' (or "key" = 'value') pair of a text
// that does not parse.
var quotedPair = regexp.MustCompile(`('[^']+'|"[^"]+")\s*=\s*('[^']*')`)

// MaskText is text as ksqlDB's QueryMask shows it: a CREATE CONNECTOR's
// config values but connector.class's replaced by '[string]'
// (ast.MaskedText), other statements as written. A text that does not
// parse has every quoted 'key'='value' pair's value masked, a best
// effort for a failed statement that may hold credentials.
func MaskText(text string) string {
	stmts, err := Parse(text)
	if err == nil {
		for _, st := range stmts {
			if _, ok := st.(*ast.CreateConnector); ok {
				if len(stmts) == 1 {
					return ast.MaskedText(st)
				}
				parts := make([]string, len(stmts))
				for i, st := range stmts {
					parts[i] = ast.MaskedText(st)
				}
				return strings.Join(parts, "\n")
			}
		}
		return text
	}
	return quotedPair.ReplaceAllStringFunc(text, func(pair string) string {
		m := quotedPair.FindStringSubmatch(pair)
		key := m[1][1 : len(m[1])-1]
		if strings.EqualFold(key, "connector.class") {
			return pair
		}
		return m[1] + "=" + ast.MaskedValue
	})
}
