package topicname

import (
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	for _, tc := range []struct{ name, err string }{
		{"page-views", ""},
		{"a.b_c-D9", ""},
		{strings.Repeat("t", MaxLen), ""},
		{strings.Repeat("t", MaxLen+1), "250 characters long, the maximum is 249"},
		{"", "empty"},
		{".", `cannot be "."`},
		{"..", `cannot be ".."`},
		{"with space", `illegal character " " at position 5`},
		{"slash/topic", `illegal character "/"`},
		{"é", `illegal character`},
	} {
		err := Validate(tc.name)
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("Validate(%.20q) = %v, want nil", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("Validate(%.20q) = %v, want an error containing %q", tc.name, err, tc.err)
		}
	}
}
