package format

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/sr"
)

// RegistryConfig is how to reach a Confluent-compatible schema registry:
// ksql.schema.registry.url and its basic.auth.user.info and ssl settings.
type RegistryConfig struct {
	// URLs are the registry's base URLs (comma separated in the property).
	URLs []string
	// UserInfo is "user:password" for HTTP basic authentication ("": none).
	UserInfo string
	// TLS configures https:// URLs (nil: the system's roots).
	TLS *tls.Config
	// MissingRetry is how long a schema id the registry answered as not
	// found stays not found without asking again, so that records all
	// carrying an unknown id (each still its own deserialization error)
	// cost one request per interval, not one each; an id registered later
	// is read once the interval is over. 0: DefaultMissingRetry.
	MissingRetry time.Duration
}

// DefaultMissingRetry is RegistryConfig.MissingRetry's default: a schema
// registered after the records naming it is read within seconds, and a
// topic of bad ids asks the registry a few times a minute at most.
const DefaultMissingRetry = 5 * time.Second

// RegistryClient is a SchemaRegistry over franz-go's sr.Client. Schemas by
// id never change, so it keeps them; it also remembers what it registered
// (the registry would answer the same id again), and for
// RegistryConfig.MissingRetry the ids the registry did not have.
type RegistryClient struct {
	cl    *sr.Client
	retry time.Duration
	now   func() time.Time // time.Now; tests move it

	mu         sync.Mutex
	byID       map[int]RegisteredSchema
	missing    map[int]missingID
	registered map[string]RegisteredSchema // subject + "\x00" + text
}

// missingID is a schema id the registry answered as not found, when, and
// the error it gave.
type missingID struct {
	at  time.Time
	err error
}

var _ SchemaRegistry = (*RegistryClient)(nil)

// NewRegistryClient returns a client of the registry cfg names. It does
// not contact the registry.
func NewRegistryClient(cfg RegistryConfig) (*RegistryClient, error) {
	if len(cfg.URLs) == 0 {
		return nil, errors.New("schema registry: no URL given (ksql.schema.registry.url)")
	}
	opts := []sr.ClientOpt{sr.URLs(cfg.URLs...), sr.UserAgent("sqlstream"),
		sr.HTTPClient(&http.Client{Timeout: registryTimeout, Transport: &http.Transport{TLSClientConfig: cfg.TLS}})}
	if cfg.UserInfo != "" {
		user, pass, ok := strings.Cut(cfg.UserInfo, ":")
		if !ok {
			return nil, errors.New("schema registry: basic.auth.user.info must be user:password")
		}
		opts = append(opts, sr.BasicAuth(user, pass))
	}
	cl, err := sr.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("schema registry: %w", err)
	}
	retry := cfg.MissingRetry
	if retry <= 0 {
		retry = DefaultMissingRetry
	}
	return &RegistryClient{cl: cl, retry: retry, now: time.Now, byID: map[int]RegisteredSchema{},
		missing: map[int]missingID{}, registered: map[string]RegisteredSchema{}}, nil
}

// SchemaByID returns the schema of id.
// An id the registry does not have is answered so (ErrSchemaNotFound)
// without asking again for MissingRetry.
func (c *RegistryClient) SchemaByID(ctx context.Context, id int) (RegisteredSchema, error) {
	c.mu.Lock()
	rs, ok := c.byID[id]
	miss, missing := c.missing[id]
	c.mu.Unlock()
	if ok {
		return rs, nil
	}
	if missing && c.now().Sub(miss.at) < c.retry && ctx.Value(askKey{}) == nil {
		return RegisteredSchema{}, miss.err
	}
	s, err := c.cl.SchemaByID(ctx, id)
	if err != nil {
		err = registryError(err, fmt.Sprintf("schema id %d", id))
		if errors.Is(err, ErrSchemaNotFound) {
			c.noteMissing(id, err)
		}
		return RegisteredSchema{}, err
	}
	rs = RegisteredSchema{Schema: fromSR(s), ID: id}
	c.mu.Lock()
	c.byID[id] = rs
	delete(c.missing, id)
	c.mu.Unlock()
	return rs, nil
}

// askKey marks a context whose SchemaByID asks the registry even for an
// id it recently did not have.
type askKey struct{}

// AskingRegistry returns ctx for a SchemaByID that asks the registry
// about an id it answered as missing less than MissingRetry ago (ASSERT
// SCHEMA polls an id until it is registered).
func AskingRegistry(ctx context.Context) context.Context {
	return context.WithValue(ctx, askKey{}, true)
}

// maxMissing bounds the ids remembered as missing (records of random
// bytes name any of 2^32): past it, expired ones are forgotten, then any.
const maxMissing = 1024

func (c *RegistryClient) noteMissing(id int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if len(c.missing) >= maxMissing {
		for k, m := range c.missing {
			if now.Sub(m.at) >= c.retry || len(c.missing) >= maxMissing {
				delete(c.missing, k)
			}
		}
	}
	c.missing[id] = missingID{at: now, err: err}
}

// Latest returns the latest version of subject.
func (c *RegistryClient) Latest(ctx context.Context, subject string) (RegisteredSchema, error) {
	ss, err := c.cl.SchemaByVersion(ctx, subject, -1)
	if err != nil {
		return RegisteredSchema{}, registryError(err, "subject "+subject)
	}
	return fromSubjectSchema(ss), nil
}

// SubjectsByID returns the subjects holding schema id (ErrSchemaNotFound
// when no subject does).
func (c *RegistryClient) SubjectsByID(ctx context.Context, id int) ([]string, error) {
	subjects, err := c.cl.SubjectsByID(ctx, id)
	if err != nil {
		return nil, registryError(err, fmt.Sprintf("schema id %d", id))
	}
	return subjects, nil
}

// Register registers s under subject.
func (c *RegistryClient) Register(ctx context.Context, subject string, s Schema) (RegisteredSchema, error) {
	key := subject + "\x00" + s.Text
	c.mu.Lock()
	rs, ok := c.registered[key]
	c.mu.Unlock()
	if ok {
		return rs, nil
	}
	ss, err := c.cl.CreateSchema(ctx, subject, toSR(s))
	if err != nil {
		return RegisteredSchema{}, c.registerError(ctx, subject, err)
	}
	rs = fromSubjectSchema(ss)
	if rs.Subject == "" {
		rs.Subject = subject
	}
	c.mu.Lock()
	c.registered[key] = rs
	c.mu.Unlock()
	return rs, nil
}

// DeleteSubject soft-deletes subject, then, when permanent, hard-deletes
// it (a registry refuses a hard delete of a live subject). A subject that
// does not exist is not an error.
func (c *RegistryClient) DeleteSubject(ctx context.Context, subject string, permanent bool) error {
	if _, err := c.cl.DeleteSubject(ctx, subject, sr.SoftDelete); err != nil && !notFound(err) {
		return registryError(err, "subject "+subject)
	}
	if permanent {
		if _, err := c.cl.DeleteSubject(ctx, subject, sr.HardDelete); err != nil && !notFound(err) {
			return registryError(err, "subject "+subject)
		}
	}
	c.mu.Lock()
	for k := range c.registered {
		if strings.HasPrefix(k, subject+"\x00") {
			delete(c.registered, k)
		}
	}
	c.mu.Unlock()
	return nil
}

// registerError turns a refused registration into IncompatibleSchemaError
// (with the subject's compatibility level) or a plain error.
func (c *RegistryClient) registerError(ctx context.Context, subject string, err error) error {
	var re *sr.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusConflict {
		return registryError(err, "registering under subject "+subject)
	}
	rule := ""
	if res := c.cl.Compatibility(sr.WithParams(ctx, sr.DefaultToGlobal), subject); len(res) == 1 && res[0].Err == nil {
		rule = res[0].Level.String()
	}
	return &IncompatibleSchemaError{Subject: subject, Rule: rule, Detail: re.Error()}
}

func notFound(err error) bool {
	var re *sr.ResponseError
	return errors.As(err, &re) && (re.StatusCode == http.StatusNotFound || sr.IsNotFoundError(re.ErrorCode))
}

// registryError says what was asked; a 404 also wraps ErrSchemaNotFound.
func registryError(err error, what string) error {
	if notFound(err) {
		return fmt.Errorf("%s: %w (%v)", what, ErrSchemaNotFound, err)
	}
	return fmt.Errorf("schema registry: %s: %w", what, err)
}

func toSR(s Schema) sr.Schema {
	out := sr.Schema{Schema: s.Text}
	switch s.Type {
	case ProtobufSchema:
		out.Type = sr.TypeProtobuf
	case JSONSchema:
		out.Type = sr.TypeJSON
	default:
		out.Type = sr.TypeAvro
	}
	for _, r := range s.References {
		out.References = append(out.References, sr.SchemaReference{Name: r.Name, Subject: r.Subject, Version: r.Version})
	}
	return out
}

func fromSR(s sr.Schema) Schema {
	out := Schema{Text: s.Schema, Type: AvroSchema}
	switch s.Type {
	case sr.TypeProtobuf:
		out.Type = ProtobufSchema
	case sr.TypeJSON:
		out.Type = JSONSchema
	}
	for _, r := range s.References {
		out.References = append(out.References, SchemaReference{Name: r.Name, Subject: r.Subject, Version: r.Version})
	}
	return out
}

func fromSubjectSchema(ss sr.SubjectSchema) RegisteredSchema {
	return RegisteredSchema{Schema: fromSR(ss.Schema), ID: ss.ID, Version: ss.Version, Subject: ss.Subject}
}

// SchemaByVersion returns subject's schema at version (SchemaVersionLookup).
func (c *RegistryClient) SchemaByVersion(ctx context.Context, subject string, version int) (RegisteredSchema, error) {
	ss, err := c.cl.SchemaByVersion(ctx, subject, version)
	if err != nil {
		return RegisteredSchema{}, registryError(err, fmt.Sprintf("subject %s version %d", subject, version))
	}
	return fromSubjectSchema(ss), nil
}

var _ SchemaVersionLookup = (*RegistryClient)(nil)

// Compatibility is a registry's answer whether a schema may be
// registered under a subject: the subject's rule (its compatibility
// level, or the global one) and, when not, the registry's reasons.
type Compatibility struct {
	Compatible bool
	Rule       string
	Messages   []string
}

// CompatibilityChecker is the registry's compatibility check (POST
// /compatibility/subjects/{subject}/versions…, under GET /config's
// level), which an upgrade asks before its tasks write a kept subject's
// new schema; RegistryClient implements it.
type CompatibilityChecker interface {
	CheckCompatibility(ctx context.Context, subject string, s Schema) (Compatibility, error)
}

var _ CompatibilityChecker = (*RegistryClient)(nil)

// CheckCompatibility asks whether s may be registered under subject: a
// subject with no schema takes any; a TRANSITIVE rule is checked
// against every version, the others against the latest.
func (c *RegistryClient) CheckCompatibility(ctx context.Context, subject string, s Schema) (Compatibility, error) {
	res := c.cl.Compatibility(sr.WithParams(ctx, sr.DefaultToGlobal), subject)
	if len(res) != 1 || res[0].Err != nil {
		err := fmt.Errorf("no answer")
		if len(res) == 1 {
			err = res[0].Err
		}
		return Compatibility{}, registryError(err, "compatibility level of subject "+subject)
	}
	out := Compatibility{Rule: res[0].Level.String(), Compatible: true}
	version := -1
	if strings.HasSuffix(out.Rule, "_TRANSITIVE") {
		version = -2
	}
	is, err := c.cl.CheckCompatibility(ctx, subject, version, toSR(s))
	switch {
	case notFound(err):
		return out, nil // no version yet: the first schema is accepted
	case err != nil:
		return Compatibility{}, registryError(err, "compatibility check under subject "+subject)
	}
	out.Compatible, out.Messages = is.Is, is.Messages
	return out, nil
}
