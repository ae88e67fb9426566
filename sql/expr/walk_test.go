package expr

import (
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/sql/parser"
)

func TestColumnRefs(t *testing.T) {
	cases := []struct{ text, want string }{
		{"A + B * 2", "A B"},
		{"CASE WHEN S.X > 1 THEN Y ELSE Z END", "S.X Y Z"},
		{"TRANSFORM(ARR, x => x + K)", "ARR K"},
		{"ST->F[1] IN (1, Q)", "ST Q"},
		{"MAP('a' := V)", "V"},
		{"1", ""},
	}
	for _, c := range cases {
		e, err := parser.ParseExpr(c.text)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		var names []string
		for _, r := range ColumnRefs(e) {
			if r.Source != "" {
				names = append(names, r.Source+"."+r.Name)
			} else {
				names = append(names, r.Name)
			}
		}
		if got := strings.Join(names, " "); got != c.want {
			t.Errorf("ColumnRefs(%s) = %q, want %q", c.text, got, c.want)
		}
	}
}
