package qtt

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// fileCount is one row of the summary table.
type fileCount struct {
	File string `json:"file"`
	// Format is the format the file was read as (QTT, RQTT, SQL).
	Format  string `json:"format,omitempty"`
	Passed  int    `json:"passed"`
	Failed  int    `json:"failed"`
	Skipped int    `json:"skipped"`
	// Deviated counts variants on the deviation list (deviations.go).
	Deviated int `json:"deviated,omitempty"`
}

func (c *fileCount) add(s Status) {
	switch s {
	case Passed:
		c.Passed++
	case Failed:
		c.Failed++
	case Skipped:
		c.Skipped++
	case Deviated:
		c.Deviated++
	}
}

// countByFile tallies results per file (in order of first appearance) and
// in total.
func countByFile(results []Result) ([]fileCount, fileCount) {
	var rows []fileCount
	index := map[string]int{}
	var total fileCount
	for _, r := range results {
		i, ok := index[r.Variant.File]
		if !ok {
			i = len(rows)
			index[r.Variant.File] = i
			rows = append(rows, fileCount{File: r.Variant.File, Format: r.Variant.Format})
		}
		rows[i].add(r.Status)
		total.add(r.Status)
	}
	return rows, total
}

// WriteReport prints the human report: with verbose, one block per
// variant first; then the per-file table, the failing variants with their
// reasons, the deviations with theirs, and the closing line "qtt: N
// passed, M failed, K skipped" (plus ", D deviations" when there are).
func WriteReport(w io.Writer, results []Result, verbose bool) {
	if verbose {
		for _, r := range results {
			writeVariant(w, r)
		}
		fmt.Fprintln(w)
	}
	rows, total := countByFile(results)
	writeTable(w, rows, total.Deviated > 0)
	writeFailures(w, results)
	writeDeviations(w, results)
	fmt.Fprintf(w, "qtt: %d passed, %d failed, %d skipped", total.Passed, total.Failed, total.Skipped)
	if total.Deviated > 0 {
		fmt.Fprintf(w, ", %d deviations", total.Deviated)
	}
	fmt.Fprintln(w)
}

// writeVariant prints one variant's status and, unless it passed, its
// reason, details and diff, indented.
func writeVariant(w io.Writer, r Result) {
	fmt.Fprintf(w, "%-4s %s\n", strings.ToUpper(r.Status.String()[:4]), r.Variant.ID())
	if r.Status == Passed {
		return
	}
	fmt.Fprintf(w, "     %s\n", flatten(r.Reason))
	for _, line := range r.Detail {
		if line != r.Reason {
			fmt.Fprintf(w, "       %s\n", line)
		}
	}
	for _, line := range r.Diff {
		fmt.Fprintf(w, "       %s\n", line)
	}
}

// writeTable prints the per-file counts and the format each file was read
// as; the deviated column only when some variant deviated.
func writeTable(w io.Writer, rows []fileCount, deviated bool) {
	width := len("file")
	for _, r := range rows {
		width = max(width, len(r.File))
	}
	fmt.Fprintf(w, "%-*s  %-6s  %6s  %6s  %7s", width, "file", "format", "passed", "failed", "skipped")
	if deviated {
		fmt.Fprintf(w, "  %8s", "deviated")
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		fmt.Fprintf(w, "%-*s  %-6s  %6d  %6d  %7d", width, r.File, cmp.Or(r.Format, "-"), r.Passed, r.Failed, r.Skipped)
		if deviated {
			fmt.Fprintf(w, "  %8d", r.Deviated)
		}
		fmt.Fprintln(w)
	}
}

func writeFailures(w io.Writer, results []Result) {
	fmt.Fprintln(w)
	any := false
	for _, r := range results {
		if r.Status == Failed {
			fmt.Fprintf(w, "FAIL %s: %s\n", r.Variant.ID(), flatten(r.Reason))
			any = true
		}
	}
	if any {
		fmt.Fprintln(w)
	}
}

// jsonReport is the --json file's shape.
type jsonReport struct {
	Passed   int           `json:"passed"`
	Failed   int           `json:"failed"`
	Skipped  int           `json:"skipped"`
	Deviated int           `json:"deviated,omitempty"`
	Files    []fileCount   `json:"files"`
	Variants []jsonVariant `json:"variants"`
}

type jsonVariant struct {
	File       string   `json:"file"`
	Name       string   `json:"name"`
	Status     string   `json:"status"`
	Reason     string   `json:"reason,omitempty"`
	Detail     []string `json:"detail,omitempty"`
	DurationMs float64  `json:"durationMs"`
}

// WriteJSON writes the machine-readable results.
func WriteJSON(w io.Writer, results []Result) error {
	rows, total := countByFile(results)
	rep := jsonReport{Passed: total.Passed, Failed: total.Failed, Skipped: total.Skipped, Deviated: total.Deviated, Files: rows,
		Variants: make([]jsonVariant, len(results))}
	if rep.Files == nil {
		rep.Files = []fileCount{}
	}
	for i, r := range results {
		ms, _ := strconv.ParseFloat(strconv.FormatFloat(r.Duration.Seconds()*1000, 'f', 3, 64), 64)
		rep.Variants[i] = jsonVariant{File: r.Variant.File, Name: r.Variant.Name, Status: r.Status.String(),
			Reason: r.Reason, Detail: r.Detail, DurationMs: ms}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// flatten keeps a reason on one line.
func flatten(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(strings.TrimSpace(s), "\r", ""), "\n", " ⏎ ")
}
