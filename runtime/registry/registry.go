package registry

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/internal/pemfile"
	"github.com/sqlstream/sqlstream/planner"
	"github.com/sqlstream/sqlstream/runtime/props"
	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// New builds the registry client of the engine's configuration, nil
// when ksql.schema.registry.url is not set.
func New(r props.RegistryConfig) (format.SchemaRegistry, error) {
	url := strings.TrimSpace(r.URL)
	if url == "" {
		return nil, nil
	}
	cfg := format.RegistryConfig{UserInfo: r.UserInfo}
	for _, u := range strings.Split(url, ",") {
		if u = strings.TrimSpace(u); u != "" {
			cfg.URLs = append(cfg.URLs, u)
		}
	}
	if r.Trust != "" || r.Key != "" {
		t, err := registryTLS(r)
		if err != nil {
			return nil, err
		}
		cfg.TLS = t
	}
	c, err := format.NewRegistryClient(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", props.SchemaRegistryURL, err)
	}
	return c, nil
}

func registryTLS(r props.RegistryConfig) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if loc := r.Trust; loc != "" {
		pool, err := pemfile.LoadCertPool(loc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", props.SchemaRegistryTrust, err)
		}
		cfg.RootCAs = pool
	}
	if loc := r.Key; loc != "" {
		cert, err := pemfile.LoadKeyPair(loc, loc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", props.SchemaRegistryKey, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	return cfg, nil
}

// Register registers the key and value schemas of src's registry
// formats under <topic>-key / -value, as ksqlDB's SchemaRegisterInjector:
// CREATE with columns only where the subject does not exist yet (always
// false), CREATE … AS SELECT always, so the subject's compatibility rule
// applies. A side whose columns came from the registry finds its subject
// there; one that names a KEY_/VALUE_SCHEMA_ID registers that schema and
// must get the same id back. It runs before any topic is
// created, so a refused schema leaves nothing behind but the subjects
// registered before it (the key's, when the value's is refused).
func Register(ctx context.Context, src *planner.Source, always bool, pos ast.Pos) error {
	keys := src.Schema.Keys()
	var vals []types.Column
	for _, c := range src.Schema.Columns {
		if c.NS == types.ValueNS {
			vals = append(vals, c)
		}
	}
	sides := []struct {
		spec format.Spec
		key  bool
		n    int
	}{{src.KeyFormat, true, len(keys)}, {src.ValueFormat, false, len(vals)}}
	for _, s := range sides {
		if !s.spec.UsesRegistry() || s.n == 0 {
			continue
		}
		if s.spec.SchemaID != 0 {
			if err := registerSchemaID(ctx, src, s.spec, s.key, pos); err != nil {
				return err
			}
			continue
		}
		cols := vals
		if s.key {
			cols = keys
		}
		if err := registerSide(ctx, src, s.spec, cols, s.key, always, pos); err != nil {
			return err
		}
	}
	return nil
}

func registerSide(ctx context.Context, src *planner.Source, spec format.Spec, cols []types.Column, key, always bool, pos ast.Pos) error {
	if !always {
		_, err := spec.Registry.Latest(ctx, spec.Subject)
		if err == nil {
			return nil
		}
		if !errors.Is(err, format.ErrSchemaNotFound) {
			return registryUnreachable(spec.Subject, err, pos)
		}
	}
	schema, err := format.RegistrySchema(spec, cols, key)
	if err != nil {
		return sqlerr.New(sqlerr.Semantic, pos, "Could not register schema for topic: %s: %v", src.Topic, err)
	}
	_, err = spec.Registry.Register(ctx, spec.Subject, schema)
	var inc *format.IncompatibleSchemaError
	switch {
	case errors.As(err, &inc):
		return sqlerr.New(sqlerr.Semantic, pos, "Could not register schema for topic: %s: %v", src.Topic, inc)
	case err != nil:
		return registryUnreachable(spec.Subject, err, pos)
	}
	return nil
}

// registerSchemaID registers the schema KEY_/VALUE_SCHEMA_ID names under
// the side's subject, as ksqlDB does, and refuses the statement when the
// registry gives it another id (the subject would then describe records
// the statement does not write).
func registerSchemaID(ctx context.Context, src *planner.Source, spec format.Spec, key bool, pos ast.Pos) error {
	rs, err := spec.Registry.SchemaByID(ctx, spec.SchemaID)
	if err != nil {
		return registryUnreachable(spec.Subject, err, pos)
	}
	got, err := spec.Registry.Register(ctx, spec.Subject, rs.Schema)
	var inc *format.IncompatibleSchemaError
	switch {
	case errors.As(err, &inc):
		return sqlerr.New(sqlerr.Semantic, pos, "Could not register schema for topic: %s: %v", src.Topic, inc)
	case err != nil:
		return registryUnreachable(spec.Subject, err, pos)
	case got.ID != spec.SchemaID:
		side := "VALUE"
		if key {
			side = "KEY"
		}
		return sqlerr.New(sqlerr.Semantic, pos, "Schema id registered is %d which is different from provided %s_SCHEMA_ID %d.\nTopic: %s\nSubject: %s\nSchema: %s",
			got.ID, side, spec.SchemaID, src.Topic, spec.Subject, rs.Text)
	}
	return nil
}

func registryUnreachable(subject string, err error, pos ast.Pos) error {
	return sqlerr.New(sqlerr.Kafka, pos, "Could not register schema for subject %s (check '%s' and that the registry is up, then retry): %v",
		subject, props.SchemaRegistryURL, err)
}

// DeleteSubjects removes the subjects of src's registry formats (DROP …
// DELETE TOPIC), soft then hard as ksqlDB.
func DeleteSubjects(ctx context.Context, src *planner.Source) error {
	var errs []error
	for _, spec := range []format.Spec{src.KeyFormat, src.ValueFormat} {
		if !spec.UsesRegistry() || spec.Registry == nil {
			continue
		}
		if err := spec.Registry.DeleteSubject(ctx, spec.Subject, true); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// DeleteInternal removes the subjects a query's internal topics
// registered (physical.Topology.Subjects), soft then hard, when the query
// ends as its topics do; ksqlDB's query cleanup does the same. A subject
// never registered is skipped; another failure is logged (the subject
// stays, harmless but for the registry's listing).
func DeleteInternal(reg format.SchemaRegistry, subjects []string, logger *slog.Logger) {
	if reg == nil || len(subjects) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, s := range subjects {
		if err := reg.DeleteSubject(ctx, s, true); err != nil && !errors.Is(err, format.ErrSchemaNotFound) {
			logger.Warn("could not delete the schema-registry subject of an internal topic", "subject", s, "err", err)
		}
	}
}
