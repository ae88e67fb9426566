package repl

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// console writes results like the ksql CLI's Console: entity tables,
// descriptions, query rows. Errors go to a separate writer.
type console struct {
	out    io.Writer
	errOut io.Writer
	width  int
	// clipTables cuts table dash lines at width, as on a terminal; piped
	// output keeps them as wide as the table.
	clipTables bool
	// jsonOutput is the OUTPUT JSON mode: entities and rows as pretty JSON.
	jsonOutput bool
	// Query row layout (SET CLI WRAP / SET CLI COLUMN-WIDTH).
	wrap     bool
	colWidth int // 0: width / columns
	// spool, while SPOOL is on, gets a copy of out and errOut (and the
	// input lines); termOut and termErr are the writers without it.
	spool            *spoolFile
	termOut, termErr io.Writer
}

// spoolTo starts copying the console's output to a new file at path.
func (c *console) spoolTo(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	c.termOut, c.termErr = c.out, c.errOut
	c.spool = &spoolFile{path: path, f: f}
	c.out, c.errOut = io.MultiWriter(c.termOut, f), io.MultiWriter(c.termErr, f)
	return nil
}

// spoolInput copies an input line to the spool file (not the terminal,
// which shows it already).
func (c *console) spoolInput(line string) {
	if c.spool != nil {
		fmt.Fprintln(c.spool.f, line)
	}
}

// stopSpool closes the spool file and returns its path ("" when none was
// open) and the error of closing it.
func (c *console) stopSpool() (string, error) {
	if c.spool == nil {
		return "", nil
	}
	sp := c.spool
	c.spool, c.out, c.errOut = nil, c.termOut, c.termErr
	return sp.path, sp.f.Close()
}

func (c *console) println(a ...any) { fmt.Fprintln(c.out, a...) }

func (c *console) printf(format string, a ...any) { fmt.Fprintf(c.out, format, a...) }

// kv prints a "%-20s : %s" line, the CLI's label layout.
func (c *console) kv(label string, value any) { c.printf("%-20s : %v\n", label, value) }

// printError prints an error message (the server's text, carets included).
func (c *console) printError(msg string) { fmt.Fprintln(c.errOut, msg) }

// table is the CLI's entity table: column headers, rows, optional header
// and footer lines.
type table struct {
	headers     []string
	rows        [][]string
	headerLines []string
	footer      []string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// print writes the table: " A | B " rows padded to each column's width,
// a dash line under the headers and after the rows, no wider than the
// console.
func (t *table) print(c *console) {
	for _, l := range t.headerLines {
		c.println(l)
	}
	if len(t.headers) > 0 {
		widths, sepLen := t.columnWidths()
		if c.clipTables {
			sepLen = min(c.width, sepLen)
		}
		sep := strings.Repeat("-", sepLen)
		c.printf("%s", formatRow(t.headers, widths))
		c.println(sep)
		for _, r := range t.rows {
			c.printf("%s", formatRow(r, widths))
		}
		c.println(sep)
	}
	for _, l := range t.footer {
		c.println(l)
	}
}

func (t *table) columnWidths() (widths []int, sepLen int) {
	widths = make([]int, len(t.headers))
	sepLen = -1
	for i, h := range t.headers {
		widths[i] = textWidth(h)
		for _, r := range t.rows {
			widths[i] = max(widths[i], multiLineWidth(r[i]))
		}
		sepLen += widths[i] + 3
	}
	return widths, sepLen
}

func formatRow(cells []string, widths []int) string {
	var b strings.Builder
	b.WriteByte(' ')
	for i, cell := range cells {
		if i > 0 {
			b.WriteString(" | ")
		}
		b.WriteString(padRight(cell, widths[i]))
	}
	b.WriteString(" \n")
	return b.String()
}

// padRight pads s with spaces to n characters, as Java's %-ns does (the
// whole string counts, newlines included).
func padRight(s string, n int) string {
	if w := textWidth(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

func textWidth(s string) int { return utf8.RuneCountInString(s) }

func multiLineWidth(s string) int {
	w := 0
	for _, line := range strings.Split(s, "\n") {
		w = max(w, textWidth(line))
	}
	return w
}
