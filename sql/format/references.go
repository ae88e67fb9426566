package format

import (
	"context"
	"errors"
	"fmt"
)

// SchemaVersionLookup is an optional extra of a SchemaRegistry: a subject's
// schema at a version, which schema references name. Without it a
// reference resolves to its subject's latest version.
type SchemaVersionLookup interface {
	SchemaByVersion(ctx context.Context, subject string, version int) (RegisteredSchema, error)
}

// maxReferenceDepth bounds chains of references (a cycle is an error).
const maxReferenceDepth = 16

// ResolveReferences returns the texts of the schemas s references, and of
// those they reference, by reference name (a protobuf import path, an
// Avro named type): what the avro and protobuf packages take as Refs.
func ResolveReferences(ctx context.Context, reg SchemaRegistry, s Schema) (map[string]string, error) {
	if len(s.References) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	return out, resolveInto(ctx, reg, s.References, out, 0)
}

func resolveInto(ctx context.Context, reg SchemaRegistry, refs []SchemaReference, out map[string]string, depth int) error {
	if depth > maxReferenceDepth {
		return fmt.Errorf("schema references nest deeper than %d (a cycle?)", maxReferenceDepth)
	}
	for _, r := range refs {
		if _, done := out[r.Name]; done {
			continue
		}
		rs, err := referenced(ctx, reg, r)
		if err != nil {
			err = fmt.Errorf("reference %s (subject %s version %d): %w", r.Name, r.Subject, r.Version, err)
			if !errors.Is(err, ErrSchemaNotFound) {
				// A registry that does not answer: a record is retried,
				// not skipped as undecodable (as for the schema itself).
				return &RegistryUnavailableError{Err: err}
			}
			return err
		}
		out[r.Name] = rs.Text
		if err := resolveInto(ctx, reg, rs.References, out, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func referenced(ctx context.Context, reg SchemaRegistry, r SchemaReference) (RegisteredSchema, error) {
	if vl, ok := reg.(SchemaVersionLookup); ok && r.Version > 0 {
		return vl.SchemaByVersion(ctx, r.Subject, r.Version)
	}
	return reg.Latest(ctx, r.Subject)
}
