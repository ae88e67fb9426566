package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/sqlstream/sqlstream/runtime/props"
)

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8081": true, "localhost:8081": true, "[::1]:8081": true,
		"0.0.0.0:8081": false, "[::]:8081": false, "10.1.2.3:8081": false, "nonsense": false,
	} {
		if got := isLoopback(addr); got != want {
			t.Errorf("%s: got %v, want %v", addr, got, want)
		}
	}
}

func TestLoopbackAddr(t *testing.T) {
	for bound, want := range map[string]string{
		"0.0.0.0:8081": "127.0.0.1:8081", "[::]:8081": "127.0.0.1:8081", "10.1.2.3:8081": "10.1.2.3:8081",
	} {
		if got := loopbackAddr(bound); got != want {
			t.Errorf("%s: got %s, want %s", bound, got, want)
		}
	}
}

// TestEngineProperties: a URL the engine's property table does not take
// is dropped with a warning that names it, never passed on to fail the
// engine's start; without one nothing changes.
func TestEngineProperties(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	got := engineProperties(map[string]string{"ksql.service.id": "x_"}, log)
	if len(got) != 1 || logs.Len() != 0 {
		t.Fatalf("no URL: %v, logged %q", got, logs.String())
	}
	got = engineProperties(map[string]string{props.SchemaRegistryURL: "http://127.0.0.1:8081"}, log)
	if _, kept := got[props.SchemaRegistryURL]; kept {
		if logs.Len() != 0 {
			t.Fatalf("kept the URL but warned: %q", logs.String())
		}
		return // the engine declares the property
	}
	if !strings.Contains(logs.String(), props.SchemaRegistryURL) {
		t.Fatalf("dropped the URL without saying so: %q", logs.String())
	}
}
