package format

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"

	"github.com/sqlstream/sqlstream/sql/types"
)

// TestMissingSchemaIDAskedOnce: records that all carry a schema id the
// registry does not have are each a DecodeError naming the id, but the
// registry is asked once per RegistryConfig.MissingRetry, not once a
// record; once the id is registered, the first record after the
// interval reads. A schema that cannot be read as the columns is
// compiled once, its error given to every record.
func TestMissingSchemaIDAskedOnce(t *testing.T) {
	fake := srfake.New()
	t.Cleanup(fake.Close)
	target, _ := url.Parse(fake.URL())
	proxy := httputil.NewSingleHostReverseProxy(target)
	var byID atomic.Int64
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/schemas/ids/") {
			byID.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	reg, err := NewRegistryClient(RegistryConfig{URLs: []string{front.URL}, MissingRetry: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	reg.now = func() time.Time { return now }
	c, err := NewValueCodec(Spec{Name: JSONSR, Registry: reg}, []types.Column{{Name: "A", Type: types.IntegerType}})
	if err != nil {
		t.Fatal(err)
	}
	var h sr.ConfluentHeader
	record, _ := h.AppendEncode(nil, 1, nil) // srfake's first id
	record = append(record, `{"A":7}`...)
	decode := func() (any, error) {
		row := make([]any, 1)
		err := c.Decode(record, row)
		return row[0], err
	}
	for i := 0; i < 50; i++ {
		_, err := decode()
		var de *DecodeError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "schema id 1: not found") {
			t.Fatalf("record %d with an unknown id: %v, want a DecodeError naming schema id 1", i, err)
		}
	}
	if n := byID.Load(); n != 1 {
		t.Fatalf("50 records of an unknown id asked the registry %d times, want 1", n)
	}
	if id, _, err := fake.RegisterSchema("t-value", sr.Schema{Type: sr.TypeJSON, Schema: `{"type":"object","properties":{"A":{"type":"integer"}}}`}); err != nil || id != 1 {
		t.Fatalf("register: id %d, %v (the test needs id 1)", id, err)
	}
	now = now.Add(59 * time.Second)
	if _, err := decode(); err == nil || !strings.Contains(err.Error(), "not found") || byID.Load() != 1 {
		t.Fatalf("within the interval: %v after %d requests, want not found without asking", err, byID.Load())
	}
	now = now.Add(time.Second)
	if v, err := decode(); err != nil || v != int32(7) {
		t.Fatalf("after the interval, the id registered since: %v (%T), %v; want 7", v, v, err)
	}
	if n := byID.Load(); n != 2 {
		t.Fatalf("the registry was asked %d times, want 2 (the schema is kept once read)", n)
	}

	// Registered, but not readable as the columns: compiled once.
	avroID, _, err := fake.RegisterSchema("a-value", sr.Schema{Type: sr.TypeJSON, Schema: `{"type":"array"}`})
	if err != nil {
		t.Fatal(err)
	}
	bad, _ := h.AppendEncode(nil, avroID, nil)
	bad = append(bad, `[1]`...)
	var first string
	for i := 0; i < 20; i++ {
		err := c.Decode(bad, make([]any, 1))
		if err == nil {
			t.Fatal("an array schema read as a row of A")
		}
		if i == 0 {
			first = err.Error()
		} else if err.Error() != first {
			t.Fatalf("record %d: %v, want the first record's error %s", i, err, first)
		}
	}
	if n := byID.Load(); n != 3 {
		t.Fatalf("the registry was asked %d times, want 3", n)
	}

	// ASSERT SCHEMA's polling asks within the interval too.
	ctx := context.Background()
	for i, want := range []int64{4, 4, 5} {
		if i == 2 {
			ctx = AskingRegistry(ctx)
		}
		if _, err := reg.SchemaByID(ctx, 99); !errors.Is(err, ErrSchemaNotFound) || byID.Load() != want {
			t.Fatalf("SchemaByID(99) #%d: %v after %d requests, want not found after %d", i, err, byID.Load(), want)
		}
	}
}

// TestCheckCompatibility: an external registry's answer through
// pkg/sr: the subject's level (FULL_TRANSITIVE, so checked against every
// version: POST /compatibility/subjects/s/versions), its refusal and
// messages; a subject with no version takes any schema; a level the
// registry will not say is an error, never a silent yes.
func TestCheckCompatibility(t *testing.T) {
	var checked atomic.Value
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/config/down":
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = w.Write([]byte(`{"error_code":50001,"message":"store down"}`))
		case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/config/"):
			_, _ = w.Write([]byte(`{"compatibilityLevel":"FULL_TRANSITIVE"}`))
		case r.Method == http.MethodPost && r.URL.Path == "/compatibility/subjects/fresh/versions":
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error_code":40401,"message":"Subject 'fresh' not found."}`))
		case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/compatibility/subjects/"):
			checked.Store(r.URL.Path)
			_, _ = w.Write([]byte(`{"is_compatible":false,"messages":["property T removed"]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(hs.Close)
	reg, err := NewRegistryClient(RegistryConfig{URLs: []string{hs.URL}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s := Schema{Type: JSONSchema, Text: `{"type":"object"}`}
	got, err := reg.CheckCompatibility(ctx, "s", s)
	if err != nil || got.Compatible || got.Rule != "FULL_TRANSITIVE" || len(got.Messages) != 1 || got.Messages[0] != "property T removed" {
		t.Errorf("s: %+v, %v; want refused under FULL_TRANSITIVE with the registry's message", got, err)
	}
	if p, _ := checked.Load().(string); p != "/compatibility/subjects/s/versions" {
		t.Errorf("a TRANSITIVE rule was checked at %q, want against every version", p)
	}
	if got, err := reg.CheckCompatibility(ctx, "fresh", s); err != nil || !got.Compatible {
		t.Errorf("a subject with no version: %+v, %v; want compatible", got, err)
	}
	if _, err := reg.CheckCompatibility(ctx, "down", s); err == nil {
		t.Error("a registry that does not say the level answered compatible")
	}
}
