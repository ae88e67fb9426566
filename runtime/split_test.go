package runtime

import "testing"

// TestSplitFirst: a ';' ends a statement only outside string literals,
// quoted identifiers (backticks or double quotes) and comments.
func TestSplitFirst(t *testing.T) {
	for _, tc := range []struct{ text, first, rest string }{
		{"SHOW STREAMS; SHOW TABLES;", "SHOW STREAMS;", " SHOW TABLES;"},
		{"SELECT 'a;b' FROM s; x", "SELECT 'a;b' FROM s;", " x"},
		{"SELECT 'it''s;' FROM s; x", "SELECT 'it''s;' FROM s;", " x"},
		{"SELECT `a;b` FROM s; x", "SELECT `a;b` FROM s;", " x"},
		{`SELECT "a;b" FROM s; x`, `SELECT "a;b" FROM s;`, " x"},
		{"SELECT 1 -- no; split\nFROM s; x", "SELECT 1 -- no; split\nFROM s;", " x"},
		{"SELECT /* ; */ 1 FROM s; x", "SELECT /* ; */ 1 FROM s;", " x"},
		{"SELECT 1 FROM s", "SELECT 1 FROM s", ""},
		{"SELECT 'open;", "SELECT 'open;", ""},
	} {
		first, rest := splitFirst(tc.text)
		if first != tc.first || rest != tc.rest {
			t.Errorf("splitFirst(%q) = %q, %q; want %q, %q", tc.text, first, rest, tc.first, tc.rest)
		}
	}
}
