package main

import (
	"log/slog"
	"os"
	"strings"
	"testing"
)

// The advertised listener is ksql.advertised.listener when set (checked),
// else the bound address with the scheme of listeners; an unspecified
// host becomes the machine's name.
func TestAdvertisedListener(t *testing.T) {
	host, _ := os.Hostname()
	log := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		props map[string]string
		bound string
		want  string
		err   string
	}{
		{props: map[string]string{}, bound: "127.0.0.1:41234", want: "http://127.0.0.1:41234"},
		{props: map[string]string{"listeners": "https://127.0.0.1:0"}, bound: "127.0.0.1:8443", want: "https://127.0.0.1:8443"},
		{props: map[string]string{"ksql.advertised.listener": "http://node-a.internal:8088/"}, bound: "0.0.0.0:8088", want: "http://node-a.internal:8088"},
		{props: map[string]string{}, bound: "0.0.0.0:8088", want: "http://" + host + ":8088"},
		{props: map[string]string{"ksql.advertised.listener": "node-a:8088"}, bound: "127.0.0.1:1", err: "want http(s)://host:port"},
	} {
		got, err := advertisedListener(tc.props, tc.bound, log)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%v on %s: %q, %v; want error %q", tc.props, tc.bound, got, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%v on %s: %q, %v; want %q", tc.props, tc.bound, got, err, tc.want)
		}
	}
}
