package planner

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/format"
	"github.com/sqlstream/sqlstream/sql/format/avro"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// PropSchemaRegistryURL is the engine property that configures the schema
// registry; errors name it.
const PropSchemaRegistryURL = "ksql.schema.registry.url"

// registryTimeout bounds the planner's calls to the schema registry
// (inference on CREATE).
const registryTimeout = 30 * time.Second

// applySchemaProps reads side's (KEY or VALUE) schema-registry WITH
// properties into spec: <side>_SCHEMA_ID, <side>_SCHEMA_FULL_NAME and
// <side>_PROTOBUF_NULLABLE_REPRESENTATION. checkFormatProps has checked
// the format accepts them.
func applySchemaProps(spec *format.Spec, w *withProps, side string) error {
	if v, pos, ok := w.str(side + "_SCHEMA_ID"); ok {
		id, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || id <= 0 {
			return sqlerr.New(sqlerr.Semantic, pos, "Invalid value for %s_SCHEMA_ID: '%s' (a positive schema id)", side, v)
		}
		spec.SchemaID = id
	}
	for _, prop := range fullNameProps(side) {
		if v, _, ok := w.str(prop); ok {
			spec.FullName = v
		}
	}
	prop := side + "_PROTOBUF_NULLABLE_REPRESENTATION"
	if v, pos, ok := w.str(prop); ok {
		switch up := strings.ToUpper(v); {
		case spec.Name != format.Protobuf && spec.Name != format.ProtobufNoSR:
			return sqlerr.New(sqlerr.Semantic, pos, "%s does not support the following configs: [nullableRepresentation]", spec.Name)
		case up == "WRAPPER" || up == "OPTIONAL":
			spec.NullableRepresentation = up
		default:
			return sqlerr.New(sqlerr.Semantic, pos, "Invalid value for %s: '%s' (WRAPPER or OPTIONAL)", prop, v)
		}
	}
	return nil
}

// bindRegistry gives the registry formats of src their subjects and the
// registry, or refuses them when none is configured, with ksqlDB's
// message.
func (p *Planner) bindRegistry(src *Source, pos ast.Pos) error {
	for _, side := range []struct {
		spec    *format.Spec
		subject string
	}{{&src.KeyFormat, format.KeySubject(src.Topic)}, {&src.ValueFormat, format.ValueSubject(src.Topic)}} {
		if !side.spec.UsesRegistry() {
			continue
		}
		if p.Defaults.SchemaRegistry == nil {
			return sqlerr.New(sqlerr.Semantic, pos, "Cannot create topic '%s' with format %s without configuring '%s'",
				src.Topic, side.spec.Name, PropSchemaRegistryURL)
		}
		side.spec.Subject, side.spec.Registry = side.subject, p.Defaults.SchemaRegistry
	}
	if src.KeyFormat.Name == format.Avro && src.KeyFormat.FullName == "" {
		src.KeyFormat.FullName = avro.KeySchemaName(src.Name) // ksqlDB's <Source>Key record
	}
	return nil
}

// inferColumns fills in the columns CREATE leaves out from the schema
// registry, as ksqlDB: the value columns when none are declared (and the
// value format infers), the key column when none is declared and the key
// format infers. The schema is the latest of <topic>-value / -key, or
// the one KEY_/VALUE_SCHEMA_ID names (whose field names keep their case).
func (p *Planner) inferColumns(src *Source, pos ast.Pos) error {
	if err := p.bindRegistry(src, pos); err != nil {
		return err
	}
	var keys, vals []types.Column
	if len(src.Schema.Keys()) == 0 && schemaInference(src.KeyFormat.Name) {
		cols, err := p.inferSide(src, src.KeyFormat, true, pos)
		if err != nil {
			return err
		}
		for _, c := range cols {
			c.NS = types.KeyNS
			keys = append(keys, c)
		}
	}
	if len(valueColumns(src.Schema)) == 0 && schemaInference(src.ValueFormat.Name) {
		cols, err := p.inferSide(src, src.ValueFormat, false, pos)
		if err != nil {
			return err
		}
		vals = cols
	}
	if keys == nil && vals == nil {
		return nil
	}
	all := append(keys, src.Schema.Columns...)
	src.Schema = &types.Schema{Columns: append(all, vals...)}
	src.Inferred = true
	return nil
}

func (p *Planner) inferSide(src *Source, spec format.Spec, key bool, pos ast.Pos) ([]types.Column, error) {
	ctx, cancel := context.WithTimeout(context.Background(), registryTimeout)
	defer cancel()
	what := "values"
	if key {
		what = "keys"
	}
	var rs format.RegisteredSchema
	var err error
	if spec.SchemaID != 0 {
		rs, err = spec.Registry.SchemaByID(ctx, spec.SchemaID)
	} else {
		rs, err = spec.Registry.Latest(ctx, spec.Subject)
	}
	switch {
	case errors.Is(err, format.ErrSchemaNotFound) && spec.SchemaID != 0:
		return nil, sqlerr.New(sqlerr.Semantic, pos, "Schema for message %s on topic '%s' does not exist in the Schema Registry.Schema Id: %d", what, src.Topic, spec.SchemaID)
	case errors.Is(err, format.ErrSchemaNotFound):
		return nil, sqlerr.New(sqlerr.Semantic, pos, "Schema for message %s on topic '%s' does not exist in the Schema Registry.Subject: %s", what, src.Topic, spec.Subject)
	case err != nil:
		return nil, sqlerr.New(sqlerr.Kafka, pos, "Could not read the schema of %s from the schema registry (check '%s' and that the registry is up, then retry): %v", spec.Subject, PropSchemaRegistryURL, err)
	}
	if want, _ := format.SchemaTypeOf(spec.Name); rs.Type != want {
		return nil, sqlerr.New(sqlerr.Semantic, pos, "Format and fetched schema type using %s_SCHEMA_ID %d are different. Format: [%s], Fetched schema type: [%s].",
			strings.ToUpper(strings.TrimSuffix(what, "s")), spec.SchemaID, spec.Name, rs.Type)
	}
	refs, err := format.ResolveReferences(ctx, spec.Registry, rs.Schema)
	if err != nil {
		return nil, sqlerr.New(sqlerr.Semantic, pos, "Unable to infer the columns of %s from schema id %d: %v", spec.Subject, rs.ID, err)
	}
	unwrapped := spec.WrapSingle != nil && !*spec.WrapSingle
	cols, err := format.InferColumns(spec.Name, rs, format.InferOptions{Key: key, Unwrapped: unwrapped, KeepCase: spec.SchemaID != 0, FullName: spec.FullName, Refs: refs})
	if err != nil {
		return nil, sqlerr.New(sqlerr.Semantic, pos, "Unable to infer the columns of %s from schema id %d: %v", spec.Subject, rs.ID, err)
	}
	return cols, nil
}
