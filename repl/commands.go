package repl

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// cliCmd is one of the ksql CLI's own commands: typed on a line of its
// own, without a semicolon (one is allowed), any case. Its arguments are
// the line's further words; minArgs and maxArgs bound their number, and
// help is its paragraph in HELP.
type cliCmd struct {
	name             string
	minArgs, maxArgs int
	help             string
	run              func(s *session, ctx context.Context, args []string) error
}

// cliCommands lists the commands in the order HELP prints them (the ksql
// CLI's order). EXIT/QUIT and SET CLI … are matched in cliCommand.
func cliCommands() []cliCmd {
	return []cliCmd{
		{"clear", 0, 0, "clear:\n\tClear the current terminal.", (*session).clearScreen},
		{"exit", 0, 0, "exit:\n\tExit the CLI.", nil},
		{"help", 0, 0, "help:\n\tShow this message.", (*session).printHelp},
		{"history", 0, 0, "history:\n\tShow previous lines entered during the current CLI session. You can use up and down arrow keys to view previous lines.", (*session).printHistory},
		{"output", 0, 1, "output:\n\tView the current output format.\n\noutput <format>:\n\tSet the output format to <format> (valid formats: [JSON, TABULAR])\n\tFor example: \"output JSON\"", (*session).output},
		{"run script", 1, 1, "run script <path_to_sql_file>:\n\tRun commands from a file, as if they were entered one by one.\n\tFor example: \"run script '/path/to/statements.sql'\"", (*session).runScriptCmd},
		{"server", 0, 1, "server:\n\tShow the current server\n\nserver <server>:\n\tChange the current server to <server>\n\t example: \"server http://my.awesome.server.com:9098\"", (*session).server},
		{"spool", 1, 1, "spool [<path_to_file>|OFF]:\n\tStores issued commands and their results into a file. Only one spool may\n\tbe active at a time and can be closed by issuing ``SPOOL OFF``. Commands are\n\tprefixed with ``ksql> `` to differentiate from output.", (*session).spoolCmd},
		{"version", 0, 0, "version:\n\tGet the current sqlstream version.", (*session).printVersion},
	}
}

// matchCLICommand finds the command line starts with ("run script" is two
// words) and returns it with the rest of the line's words.
func matchCLICommand(words []string) (cliCmd, []string, bool) {
	for _, c := range cliCommands() {
		name := strings.Fields(c.name)
		if len(words) < len(name) {
			continue
		}
		if strings.EqualFold(strings.Join(words[:len(name)], " "), c.name) {
			return c, words[len(name):], true
		}
	}
	return cliCmd{}, nil, false
}

// runCLICommand checks the argument count, as the ksql CLI does, and runs c.
// A 'quoted' argument may hold blanks.
func (s *session) runCLICommand(ctx context.Context, c cliCmd, args []string) error {
	if len(args) > 1 && strings.HasPrefix(args[0], "'") {
		args = []string{strings.Join(args, " ")}
	}
	switch {
	case len(args) < c.minArgs:
		s.con.printError("Too few arguments to " + c.name + ". Usage:\n" + c.help)
		return nil
	case len(args) > c.maxArgs:
		s.con.printError("Too many arguments to " + c.name + ". Usage:\n" + c.help)
		return nil
	}
	return c.run(s, ctx, args)
}

func (s *session) printHelp(context.Context, []string) error {
	s.con.println()
	s.con.println("Description:")
	s.con.println("\tThe sqlstream CLI is a terminal-based interactive shell for running ksqlDB-dialect queries. " +
		"Each command should be on a separate line. For the statement syntax, see " +
		"https://docs.ksqldb.io/en/latest/developer-guide/syntax-reference/")
	s.con.println()
	for _, c := range cliCommands() {
		s.con.println(c.help)
		s.con.println()
	}
	s.con.println("Keyboard shortcuts:")
	s.con.println()
	s.con.println("CTRL+D:\n\tEnd your CLI session.")
	s.con.println("CTRL+C:\n\tStop the running query, or clear the current line.")
	s.con.println("Up and Down arrow keys:\n\tScroll up or down through your command history.")
	s.con.println()
	s.con.println("Default behavior:")
	s.con.println()
	s.con.println("    Lines are read one at a time and are sent to the server unless one of the following is true:")
	s.con.println()
	s.con.println("    1. The line is empty or entirely whitespace. In this case, no request is made to the server.")
	s.con.println()
	s.con.println("    2. The line is not a CLI command and does not end with a semicolon. In this case, the CLI " +
		"reads lines until one ends with a semicolon, and sends all of them to the server as one statement.")
	s.con.println()
	return nil
}

// printVersion prints the CLI's version (Config.Version), else the
// server's.
func (s *session) printVersion(ctx context.Context, _ []string) error {
	v := s.version
	if v == "" {
		info, err := s.client.info(ctx)
		if err != nil {
			s.con.printError(err.Error())
			return nil
		}
		v = info.Version
	}
	s.con.printf("Version: %s\n", v)
	return nil
}

// printHistory lists the lines entered in this session, numbered from 1
// as the ksql CLI does.
func (s *session) printHistory(context.Context, []string) error {
	for i, line := range s.history {
		s.con.printf("%4d: %s\n", i+1, line)
	}
	return nil
}

// clearScreen clears a terminal (ANSI: cursor home, erase display); with
// piped output there is nothing to clear.
func (s *session) clearScreen(context.Context, []string) error {
	if s.interactive {
		s.con.printf("\x1b[H\x1b[2J")
	}
	return nil
}

func (s *session) output(_ context.Context, args []string) error {
	if len(args) == 0 {
		mode := "TABULAR"
		if s.con.jsonOutput {
			mode = "JSON"
		}
		s.con.printf("Output format: %s\n", mode)
		return nil
	}
	s.setOutput(args[0])
	return nil
}

func (s *session) runScriptCmd(ctx context.Context, args []string) error {
	s.runScript(ctx, cleanQuotes(args[0]))
	return nil
}

// server prints the server's URL, or switches to another server and
// checks that it answers /info.
func (s *session) server(ctx context.Context, args []string) error {
	if len(args) == 0 {
		s.con.println(s.client.base)
		return nil
	}
	u, err := url.Parse(args[0])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		s.con.printError("Server URL must begin with protocol (e.g., http:// or https://): " + args[0])
		return nil
	}
	s.client.setBase(args[0])
	s.con.println("Server now: " + s.client.base)
	info, err := s.client.info(ctx)
	if err != nil {
		s.con.printError("Couldn't connect to the server at " + s.client.base + ": " + err.Error())
		return nil
	}
	s.con.printf("Server v%s, status %s\n", info.Version, info.ServerStatus)
	if s.names != nil {
		s.names.refresh(ctx, s.client)
	}
	return nil
}

// spoolCmd starts copying the session (commands prefixed "ksql> ", and
// their output) to a file, or stops with SPOOL OFF.
func (s *session) spoolCmd(_ context.Context, args []string) error {
	if strings.EqualFold(args[0], "OFF") {
		s.stopSpool()
		return nil
	}
	path, err := filepath.Abs(cleanQuotes(args[0]))
	if err == nil {
		s.stopSpool() // one spool at a time
		err = s.con.spoolTo(path)
	}
	if err != nil {
		s.con.printError(fmt.Sprintf("Cannot spool to %s: %v", args[0], err))
		return nil
	}
	s.con.println("Session will be spooled to " + path)
	s.con.println("Enter SPOOL OFF to disable")
	return nil
}

func (s *session) stopSpool() {
	if path, err := s.con.stopSpool(); path != "" {
		if err != nil {
			s.con.printError(fmt.Sprintf("Spool to %s failed: %v", path, err))
			return
		}
		s.con.println("Spool written to " + path)
	}
}

// cleanQuotes takes the quotes off a 'quoted' argument (” is a quote).
func cleanQuotes(arg string) string {
	if len(arg) < 2 || !strings.HasPrefix(arg, "'") || !strings.HasSuffix(arg, "'") {
		return arg
	}
	return unquote(arg[1 : len(arg)-1])
}

// spoolFile is the open SPOOL target of a console.
type spoolFile struct {
	path string
	f    *os.File
}
