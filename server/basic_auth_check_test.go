package server

import (
	"strings"
	"testing"
)

func TestBasicAuthCheck(t *testing.T) {
	users, err := ParseUsers(strings.NewReader("alice: secret,admin\nbob: pw,guest\n"))
	if err != nil {
		t.Fatal(err)
	}
	allows := BasicAuthCheck([]string{"admin"}, users)
	for _, c := range []struct {
		user, password string
		want           bool
	}{
		{"alice", "secret", true},
		{"alice", "wrong", false},
		{"bob", "pw", false}, // no allowed role
		{"nobody", "secret", false},
	} {
		if got := allows(c.user, c.password); got != c.want {
			t.Errorf("%s/%s: got %v, want %v", c.user, c.password, got, c.want)
		}
	}
}
