package qtt

import "testing"

func TestStripComments(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"none", `{"a": 1}`, `{"a": 1}`},
		{"line", "{\"a\": 1} // c\n", "{\"a\": 1}     \n"},
		{"block keeps newlines", "{/* x\ny */\"a\":1}", "{    \n    \"a\":1}"},
		{"inside string", `{"u": "http://x//y /* z */"}`, `{"u": "http://x//y /* z */"}`},
		{"escaped quote", `{"s": "a\"//b"} //c`, `{"s": "a\"//b"}    `},
		{"escaped backslash", `{"s": "a\\"} //c`, `{"s": "a\\"}    `},
		{"unterminated block", "1 /* x", "1     "},
		{"unterminated string", `"abc //`, `"abc //`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := string(StripComments([]byte(tc.in)))
			if got != tc.want {
				t.Fatalf("StripComments(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if len(got) != len(tc.in) {
				t.Fatalf("length changed: %d → %d", len(tc.in), len(got))
			}
		})
	}
}
