package qtt

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/sqlstream/sqlstream/sql/types"
)

// checkPost verifies post.sources and post.topics against the driver's
// catalog and topics; it returns one line per failed check.
func checkPost(p *Post, sources []SourceInfo, topics []TopicInfo) []string {
	if p == nil {
		return nil
	}
	var problems []string
	for _, spec := range p.Sources {
		problems = append(problems, checkSource(spec, sources)...)
	}
	if p.Topics != nil {
		problems = append(problems, checkTopics(*p.Topics, sources, topics)...)
	}
	return problems
}

func checkSource(spec SourceSpec, sources []SourceInfo) []string {
	src := findSource(sources, spec.Name)
	if src == nil {
		return []string{fmt.Sprintf("source %s: does not exist", spec.Name)}
	}
	var problems []string
	add := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf("source %s: ", spec.Name)+fmt.Sprintf(format, args...))
	}
	if spec.Type != "" && !strings.EqualFold(spec.Type, src.Kind) {
		add("expected a %s, got a %s", strings.ToUpper(spec.Type), src.Kind)
	}
	if spec.Schema != nil {
		if want, got := NormalizeSchema(*spec.Schema), NormalizeSchema(RenderSchema(src.Schema)); want != got {
			add("schema: expected %s, got %s", want, got)
		}
	}
	if why := checkKeyFormat(spec.KeyFormat, src); why != "" {
		add("key format: %s", why)
	}
	if f := spec.ValueFormat; f != nil && f.Format != "" && !strings.EqualFold(f.Format, src.ValueFormat.Name) {
		add("value format: expected %s, got %s", f.Format, src.ValueFormat.Name)
	}
	return problems
}

func findSource(sources []SourceInfo, name string) *SourceInfo {
	for i := range sources {
		if strings.EqualFold(sources[i].Name, name) {
			return &sources[i]
		}
	}
	return nil
}

// checkKeyFormat compares the key format name and the window details.
func checkKeyFormat(f *FormatSpec, src *SourceInfo) string {
	if f == nil {
		return ""
	}
	if f.Format != "" && !strings.EqualFold(f.Format, src.KeyFormat.Name) {
		return fmt.Sprintf("expected %s, got %s", f.Format, src.KeyFormat.Name)
	}
	gotType := ""
	if src.Windowed {
		gotType = strings.ToUpper(src.WindowType)
	}
	if !strings.EqualFold(f.WindowType, gotType) {
		return fmt.Sprintf("expected window type %q, got %q", strings.ToUpper(f.WindowType), gotType)
	}
	if f.WindowSize != nil && *f.WindowSize != src.WindowSize {
		return fmt.Sprintf("expected window size %d, got %d", *f.WindowSize, src.WindowSize)
	}
	return ""
}

// checkTopics: no topic may match the blacklist (a full-match regex, as
// Java's String.matches), and every listed topic must exist as described.
func checkTopics(spec PostTopicsSpec, sources []SourceInfo, topics []TopicInfo) []string {
	var problems []string
	if spec.Blacklist != "" {
		re, err := regexp.Compile("^(?:" + spec.Blacklist + ")$")
		if err != nil {
			return []string{fmt.Sprintf("post.topics.blacklist: %v", err)}
		}
		for _, t := range topics {
			if re.MatchString(t.Name) {
				problems = append(problems, fmt.Sprintf("topic %s exists but matches the blacklist %q", t.Name, spec.Blacklist))
			}
		}
	}
	for _, want := range spec.Topics {
		if why := checkTopic1(want, sources, topics); why != "" {
			problems = append(problems, fmt.Sprintf("topic %s: %s", want.Name, why))
		}
	}
	return problems
}

func checkTopic1(want TopicSpec, sources []SourceInfo, topics []TopicInfo) string {
	var got *TopicInfo
	for i := range topics {
		if topics[i].Name == want.Name {
			got = &topics[i]
		}
	}
	if got == nil {
		return "does not exist"
	}
	if want.Partitions != nil && *want.Partitions != got.Partitions {
		return fmt.Sprintf("expected %d partitions, got %d", *want.Partitions, got.Partitions)
	}
	src := pickSource(sources, want.Name, true)
	if src == nil {
		return checkInternalTopic(want, registryOf(sources))
	}
	if f := want.KeyFormat; f != nil && f.Format != "" && !strings.EqualFold(f.Format, src.KeyFormat.Name) {
		return fmt.Sprintf("key format: expected %s, got %s", f.Format, src.KeyFormat.Name)
	}
	if f := want.ValueFormat; f != nil && f.Format != "" && !strings.EqualFold(f.Format, src.ValueFormat.Name) {
		return fmt.Sprintf("value format: expected %s, got %s", f.Format, src.ValueFormat.Name)
	}
	if why := checkRegisteredSchema("key", want.KeySchema, src.KeyFormat); why != "" {
		return why
	}
	return checkRegisteredSchema("value", want.ValueSchema, src.ValueFormat)
}

// RenderSchema prints a schema the way ksqlDB's post.sources lists it:
// "`K` STRING KEY, `V` BIGINT", with HEADERS / HEADER('k') markers.
func RenderSchema(s *types.Schema) string {
	if s == nil {
		return ""
	}
	parts := make([]string, 0, len(s.Columns))
	for _, c := range s.Columns {
		p := "`" + c.Name + "` " + c.Type.String()
		switch {
		case c.NS == types.KeyNS:
			p += " KEY"
		case c.NS == types.HeaderNS && c.HeaderKey == "":
			p += " HEADERS"
		case c.NS == types.HeaderNS:
			p += " HEADER('" + strings.ReplaceAll(c.HeaderKey, "'", "''") + "')"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ", ")
}

// typeSynonyms maps alternative type spellings to the canonical ones.
var typeSynonyms = map[string]string{"INT": "INTEGER", "VARCHAR": "STRING"}

// NormalizeSchema canonicalizes a schema string so that spellings that
// mean the same compare equal: unquoted words upper-cased (INT→INTEGER,
// VARCHAR→STRING, PRIMARY KEY→KEY), backquotes dropped around identifiers
// that keep their case, and single spaces between tokens except around
// punctuation.
func NormalizeSchema(s string) string {
	var b strings.Builder
	prevWord := false
	toks := schemaTokens(s)
	for i, tok := range toks {
		if tok == "PRIMARY" && i+1 < len(toks) && toks[i+1] == "KEY" {
			continue
		}
		word := tok[0] != '<' && tok[0] != '>' && tok[0] != ',' && tok[0] != '(' && tok[0] != ')'
		if word && prevWord {
			b.WriteByte(' ')
		}
		if tok == "," {
			tok = ", "
		}
		b.WriteString(tok)
		prevWord = word
	}
	return strings.TrimSpace(b.String())
}

// schemaTokens splits a schema into normalized tokens.
func schemaTokens(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '`' || c == '\'':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				j = len(s) - i - 1
			}
			tok := s[i+1 : i+1+j]
			if c == '\'' {
				tok = "'" + tok + "'"
			}
			toks = append(toks, tok)
			i += j + 2
		case strings.IndexByte("<>,()", c) >= 0:
			toks = append(toks, string(c))
			i++
		default:
			j := i
			for j < len(s) && strings.IndexByte(" \t\n\r`'<>,()", s[j]) < 0 {
				j++
			}
			toks = append(toks, canonicalWord(s[i:j]))
			i = j
		}
	}
	return toks
}

func canonicalWord(w string) string {
	up := strings.ToUpper(w)
	if syn, ok := typeSynonyms[up]; ok {
		return syn
	}
	return up
}
