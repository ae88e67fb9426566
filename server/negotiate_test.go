package server

import (
	"net/http/httptest"
	"testing"
)

func TestNegotiate(t *testing.T) {
	offers := []string{mediaDelimited, mediaJSON, mediaKsqlV1}
	for _, c := range []struct {
		accept string
		want   string // "" means 406
	}{
		{"", mediaDelimited},
		{"*/*", mediaDelimited},
		{"application/*", mediaDelimited},
		{"application/json", mediaJSON},
		{"application/vnd.ksql.v1+json; q=0.9, application/json; q=0.5", mediaKsqlV1},
		{"application/json;q=0.1, application/vnd.ksql.v1+json", mediaKsqlV1},
		{"text/html, application/json;q=0.2", mediaJSON},
		{"application/json;q=0", ""},
		{"text/*", ""},
		{"text/html", ""},
		{"garbage;;", ""},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		if c.accept != "" {
			r.Header.Set("Accept", c.accept)
		}
		got, ok := negotiate(r, offers...)
		if !ok {
			got = ""
		}
		if got != c.want {
			t.Errorf("Accept %q: got %q, want %q", c.accept, got, c.want)
		}
	}
}
