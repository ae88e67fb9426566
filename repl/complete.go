package repl

import (
	"context"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/chzyer/readline"
	"github.com/sqlstream/sqlstream/api"
)

// keywords offered by completion.
const keywordList = `SELECT FROM WHERE GROUP BY HAVING EMIT CHANGES FINAL LIMIT PARTITION WINDOW
TUMBLING HOPPING SESSION SIZE ADVANCE GRACE PERIOD RETENTION JOIN LEFT RIGHT FULL OUTER INNER ON
WITHIN AS AND OR NOT NULL IS IN BETWEEN LIKE CASE WHEN THEN ELSE END CAST TRUE FALSE
CREATE STREAM TABLE SOURCE OR REPLACE INSERT INTO VALUES WITH KEY PRIMARY HEADERS HEADER
DROP DELETE TOPIC TERMINATE PAUSE RESUME ALL QUERY QUERIES DESCRIBE EXTENDED EXPLAIN
SHOW LIST STREAMS TABLES TOPICS PROPERTIES FUNCTIONS FUNCTION TYPES TYPE VARIABLES
SET UNSET DEFINE UNDEFINE PRINT BEGINNING INTERVAL SAMPLE IF EXISTS ALTER ADD COLUMN
STRUCT ARRAY MAP VARCHAR STRING INT INTEGER BIGINT DOUBLE DECIMAL BOOLEAN BYTES
TIMESTAMP DATE TIME EXIT QUIT`

// completer completes keywords, the names of streams, tables and their
// columns, and the persistent queries' ids that TERMINATE, PAUSE, RESUME
// and EXPLAIN take (fetched from the server with SHOW STREAMS/TABLES/
// QUERIES and DESCRIBE).
type completer struct {
	mu       sync.Mutex
	keywords []string
	names    []string
}

var _ readline.AutoCompleter = (*completer)(nil)

func newCompleter() *completer {
	return &completer{keywords: strings.Fields(keywordList)}
}

// Do returns the completions of the word before pos (readline's API: the
// missing suffixes, and the length of the typed prefix).
func (c *completer) Do(line []rune, pos int) ([][]rune, int) {
	start := pos
	for start > 0 && isIdentRune(line[start-1]) {
		start--
	}
	prefix := string(line[start:pos])
	if prefix == "" {
		return nil, 0
	}
	var out [][]rune
	for _, cand := range c.candidates(prefix) {
		out = append(out, []rune(cand[len(prefix):]+" "))
	}
	return out, len([]rune(prefix))
}

// candidates are the words starting with prefix (case-insensitively),
// keywords in the case the user types them.
func (c *completer) candidates(prefix string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	upper := strings.ToUpper(prefix)
	lower := prefix == strings.ToLower(prefix)
	seen := map[string]bool{}
	var out []string
	add := func(w string) {
		if len(w) > len(prefix) && strings.HasPrefix(strings.ToUpper(w), upper) && !seen[w] {
			seen[w] = true
			out = append(out, prefix+w[len(prefix):])
		}
	}
	for _, n := range c.names {
		add(n)
	}
	for _, k := range c.keywords {
		if lower {
			k = strings.ToLower(k)
		}
		add(k)
	}
	sort.Strings(out)
	return out
}

func isIdentRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// refresh reloads source and column names from the server. Failures keep
// the old names: completion is a convenience.
func (c *completer) refresh(ctx context.Context, cl *client) {
	entities, err := cl.execute(ctx, api.KsqlRequest{Ksql: "SHOW STREAMS; SHOW TABLES; SHOW QUERIES;"})
	if err != nil {
		return
	}
	sources, queries := listedNames(entities)
	names := append(sources, queries...)
	names = append(names, columnNames(ctx, cl, sources)...)
	c.mu.Lock()
	c.names = names
	c.mu.Unlock()
}

// listedNames are the streams and tables, and the persistent queries'
// ids, that SHOW STREAMS, TABLES and QUERIES answered.
func listedNames(entities []api.Entity) (sources, queries []string) {
	for _, e := range entities {
		switch e := e.(type) {
		case *api.StreamsList:
			sources = appendSourceNames(sources, e.Streams)
		case *api.TablesList:
			sources = appendSourceNames(sources, e.Tables)
		case *api.QueriesList:
			for _, q := range e.Queries {
				if q.QueryType == api.QueryPersistent {
					queries = append(queries, q.ID)
				}
			}
		}
	}
	return sources, queries
}

func appendSourceNames(names []string, sources []api.SourceInfo) []string {
	for _, s := range sources {
		names = append(names, s.Name)
	}
	return names
}

// columnNames describes every source and returns their column names.
func columnNames(ctx context.Context, cl *client, sources []string) []string {
	if len(sources) == 0 {
		return nil
	}
	var stmts strings.Builder
	for _, s := range sources {
		stmts.WriteString("DESCRIBE `" + strings.ReplaceAll(s, "`", "``") + "`; ")
	}
	entities, err := cl.execute(ctx, api.KsqlRequest{Ksql: stmts.String()})
	if err != nil {
		return nil
	}
	var cols []string
	for _, e := range entities {
		if d, ok := e.(*api.SourceDescriptionEntity); ok {
			for _, f := range d.SourceDescription.Fields {
				cols = append(cols, f.Name)
			}
		}
	}
	return cols
}
