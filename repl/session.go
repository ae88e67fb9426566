package repl

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/api"
	"github.com/sqlstream/sqlstream/sql/script"
)

// Client-side statements, handled like the ksql CLI does.
var (
	setRE       = regexp.MustCompile(`(?is)^\s*SET\s+'((?:[^']|'')*)'\s*=\s*'((?:[^']|'')*)'\s*;?\s*$`)
	unsetRE     = regexp.MustCompile(`(?is)^\s*UNSET\s+'((?:[^']|'')*)'\s*;?\s*$`)
	defineRE    = regexp.MustCompile(`(?is)^\s*DEFINE\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*'((?:[^']|'')*)'\s*;?\s*$`)
	undefineRE  = regexp.MustCompile(`(?is)^\s*UNDEFINE\s+([A-Za-z_][A-Za-z0-9_]*)\s*;?\s*$`)
	showVarsRE  = regexp.MustCompile(`(?is)^\s*(?:SHOW|LIST)\s+VARIABLES\s*;?\s*$`)
	cliWrapRE   = regexp.MustCompile(`(?i)^SET\s+CLI\s+WRAP\s+(ON|OFF)$`)
	cliWidthRE  = regexp.MustCompile(`(?i)^SET\s+CLI\s+COLUMN-WIDTH\s+(\d+)$`)
	cliExitRE   = regexp.MustCompile(`(?i)^(EXIT|QUIT)$`)
	runScriptRE = regexp.MustCompile(`(?is)^\s*RUN\s+SCRIPT\s+'((?:[^']|'')*)'\s*;?\s*$`)
	errExitREPL = errors.New("exit")
)

// session is one REPL session: the client, the console, and the state the
// ksql CLI keeps on the client side (properties, variables).
type session struct {
	client      *client
	con         *console
	interactive bool
	interrupt   <-chan struct{}
	props       map[string]string // SET values, sent as streamsProperties
	vars        map[string]string // DEFINE values, sent as sessionVariables
	names       *completer        // nil when not interactive
	history     []string          // lines entered this session, for HISTORY
	version     string            // Config.Version, for VERSION
}

// request builds a KsqlRequest carrying the session's properties and
// variables.
func (s *session) request(ksql string) api.KsqlRequest {
	req := api.KsqlRequest{Ksql: ksql}
	if len(s.props) > 0 {
		req.StreamsProperties = make(map[string]any, len(s.props))
		for k, v := range s.props {
			req.StreamsProperties[k] = v
		}
	}
	if len(s.vars) > 0 {
		req.SessionVariables = api.Variables{}
		for k, v := range s.vars {
			req.SessionVariables[k] = v
		}
	}
	return req
}

// cliCommand runs a CLI command typed on its own line (no ';' needed, any
// case): EXIT, QUIT, SET CLI WRAP, SET CLI COLUMN-WIDTH and the commands
// of cliCommands (HELP, VERSION, HISTORY, SERVER, CLEAR, OUTPUT, SPOOL,
// RUN SCRIPT). It reports whether line was one; errExitREPL asks to leave.
func (s *session) cliCommand(ctx context.Context, line string) (bool, error) {
	cmd := strings.Join(strings.Fields(strings.TrimRight(strings.TrimSpace(line), ";")), " ")
	switch {
	case cliExitRE.MatchString(cmd):
		return true, errExitREPL
	case cliWrapRE.MatchString(cmd):
		s.con.wrap = strings.EqualFold(cliWrapRE.FindStringSubmatch(cmd)[1], "ON")
		return true, nil
	case cliWidthRE.MatchString(cmd):
		n, _ := strconv.Atoi(cliWidthRE.FindStringSubmatch(cmd)[1])
		s.con.colWidth = n
		return true, nil
	}
	c, args, ok := matchCLICommand(strings.Fields(cmd))
	if !ok || c.run == nil {
		return false, nil
	}
	return true, s.runCLICommand(ctx, c, args)
}

// handleStatements runs complete statements: consecutive server
// statements go to /ksql in one request; queries and client-side
// statements are handled one by one, in order.
func (s *session) handleStatements(ctx context.Context, stmts []script.Statement) {
	var batch strings.Builder
	flush := func() {
		if batch.Len() > 0 {
			s.execute(ctx, batch.String())
			batch.Reset()
		}
	}
	for _, st := range stmts {
		if s.handleSpecial(ctx, st.Text, flush) {
			continue
		}
		if batch.Len() > 0 {
			batch.WriteByte(' ')
		}
		batch.WriteString(st.Text)
	}
	flush()
}

// handleSpecial handles a query or client-side statement (after flushing
// the pending batch) and reports whether it did.
func (s *session) handleSpecial(ctx context.Context, stmt string, flush func()) bool {
	word := script.FirstWord(stmt)
	var run func()
	switch {
	case word == "SELECT" || word == "PRINT":
		run = func() { s.runQuery(ctx, stmt, word == "PRINT") }
	case setRE.MatchString(stmt):
		m := setRE.FindStringSubmatch(stmt)
		run = func() { s.setProperty(ctx, unquote(m[1]), unquote(m[2])) }
	case unsetRE.MatchString(stmt):
		run = func() { s.unsetProperty(unquote(unsetRE.FindStringSubmatch(stmt)[1])) }
	case defineRE.MatchString(stmt):
		m := defineRE.FindStringSubmatch(stmt)
		run = func() { s.vars[m[1]] = unquote(m[2]) }
	case undefineRE.MatchString(stmt):
		run = func() { s.undefine(undefineRE.FindStringSubmatch(stmt)[1]) }
	case showVarsRE.MatchString(stmt):
		run = func() { s.showVariables(stmt) }
	case runScriptRE.MatchString(stmt):
		run = func() { s.runScript(ctx, unquote(runScriptRE.FindStringSubmatch(stmt)[1])) }
	default:
		return false
	}
	flush()
	run()
	return true
}

func unquote(s string) string { return strings.ReplaceAll(s, "''", "'") }

// execute sends statements to /ksql and prints the result.
func (s *session) execute(ctx context.Context, ksql string) {
	entities, err := s.client.execute(ctx, s.request(ksql))
	if err != nil {
		s.printFailure(err)
		return
	}
	for _, e := range entities {
		if cs, ok := e.(*api.CommandStatusEntity); ok && cs.CommandStatus.Status == api.StatusError {
			s.con.printError(firstLine(cs.CommandStatus.Message))
			return
		}
	}
	s.con.printEntities(entities)
	if s.names != nil && changesCatalog(ksql) {
		s.names.refresh(ctx, s.client)
	}
}

// printFailure prints an error response: a statement error's entities
// first (the statements that did run), then the message.
func (s *session) printFailure(err error) {
	var se *api.StatementError
	if errors.As(err, &se) && len(se.Entities) > 0 {
		s.con.printEntities(se.Entities)
	}
	s.con.printError(err.Error())
}

func (s *session) setProperty(ctx context.Context, name, value string) {
	if err := s.client.isValidProperty(ctx, name); err != nil {
		s.printFailure(err)
		return
	}
	prior, had := s.props[name]
	s.props[name] = value
	if had {
		s.con.printf("Successfully changed local property '%s' from '%s' to '%s'.\n", name, prior, value)
		return
	}
	s.con.printf("Successfully changed local property '%s' to '%s'. Use the UNSET command to revert your change.\n", name, value)
}

func (s *session) unsetProperty(name string) {
	old, had := s.props[name]
	if !had {
		s.con.printError(fmt.Sprintf("Cannot unset local property '%s' which was never set in the first place", name))
		return
	}
	delete(s.props, name)
	s.con.printf("Successfully unset local property '%s' (value was '%s').\n", name, old)
}

func (s *session) undefine(name string) {
	if _, ok := s.vars[name]; !ok {
		s.con.printf("Cannot undefine variable '%s' which was never defined.\n", name)
		return
	}
	delete(s.vars, name)
}

// showVariables lists the session variables, kept on the client.
func (s *session) showVariables(stmt string) {
	names := make([]string, 0, len(s.vars))
	for n := range s.vars {
		names = append(names, n)
	}
	sort.Strings(names)
	list := &api.VariablesList{StatementText: strings.TrimSpace(stmt)}
	for _, n := range names {
		list.Variables = append(list.Variables, api.Variable{Name: n, Value: s.vars[n]})
	}
	s.con.printEntities([]api.Entity{list})
}

// changesCatalog reports whether statements may add or remove sources
// (so completion names need a refresh).
func changesCatalog(ksql string) bool {
	stmts, _ := script.Split(ksql)
	for _, st := range stmts {
		switch script.FirstWord(st.Text) {
		case "CREATE", "DROP", "ALTER":
			return true
		}
	}
	return false
}

// setOutput switches between the TABULAR and JSON output modes.
func (s *session) setOutput(mode string) {
	switch strings.ToUpper(mode) {
	case "JSON":
		s.con.jsonOutput = true
	case "TABULAR":
		s.con.jsonOutput = false
	default:
		s.con.printf("Invalid output format: '%s' (valid formats: [JSON, TABULAR])\n", mode)
		return
	}
	s.con.printf("Output format set to %s\n", strings.ToUpper(mode))
}

// runScript runs the statements of a file (RUN SCRIPT 'path').
func (s *session) runScript(ctx context.Context, path string) {
	text, err := os.ReadFile(path)
	if err != nil {
		s.con.printError("Failed to read script: " + err.Error())
		return
	}
	s.handleStatements(ctx, script.All(string(text)))
}
