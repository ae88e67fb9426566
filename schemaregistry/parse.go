package schemaregistry

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/hamba/avro/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The schema types, as Confluent names them. "" in a request is AVRO.
const (
	typeAvro     = "AVRO"
	typeProtobuf = "PROTOBUF"
	typeJSON     = "JSON"
)

// maxRefDepth bounds reference chains (a cycle is refused before this).
const maxRefDepth = 32

// parsed is a schema checked by its type's library: what compatibility
// checks and identity need.
type parsed struct {
	typ      string
	text     string // as stored and served: the submitted text (JSON compacted)
	identity string // equal for schemas Confluent would give one id
	refs     []Reference
	avro     avro.Schema
	proto    protoreflect.FileDescriptor
	json     any // the decoded JSON Schema document
}

// source is a stored schema a reference resolves to.
type source struct {
	typ  string
	text string
	refs []Reference
}

// resolver finds the schema a reference names (a soft-deleted version
// still resolves, as in Confluent).
type resolver func(Reference) (source, bool)

// normType maps a request's schemaType to the stored one.
func normType(t string) (string, error) {
	switch strings.ToUpper(t) {
	case "", typeAvro:
		return typeAvro, nil
	case typeProtobuf:
		return typeProtobuf, nil
	case typeJSON:
		return typeJSON, nil
	}
	return "", fmt.Errorf("unknown schemaType %q: want AVRO, PROTOBUF or JSON", t)
}

// parseSchema validates text with its references; the error is the
// library's message, for a 422.
func parseSchema(typ, text string, refs []Reference, resolve resolver) (*parsed, error) {
	p := &parsed{typ: typ, text: text, refs: refs}
	var err error
	switch typ {
	case typeAvro:
		err = p.parseAvro(resolve)
	case typeProtobuf:
		err = p.parseProtobuf(resolve)
	case typeJSON:
		err = p.parseJSON(resolve)
	default:
		err = fmt.Errorf("unknown schemaType %q", typ)
	}
	if err != nil {
		return nil, err
	}
	p.identity = typ + "\x00" + p.identity + "\x00" + string(mustJSON(refs))
	return p, nil
}

// parseAvro parses the referenced named types first into a cache of this
// schema's own (never hamba's process-wide default cache, which would let
// one subject's types leak into another's).
func (p *parsed) parseAvro(resolve resolver) error {
	cache := &avro.SchemaCache{}
	if err := avroRefs(p.refs, resolve, cache, 0); err != nil {
		return err
	}
	s, err := avro.ParseWithCache(p.text, "", cache)
	if err != nil {
		return err
	}
	full, err := json.Marshal(s)
	if err != nil {
		return err
	}
	p.avro, p.identity = s, string(full)
	p.text = compactJSON(p.text)
	return nil
}

func avroRefs(refs []Reference, resolve resolver, cache *avro.SchemaCache, depth int) error {
	if depth > maxRefDepth {
		return fmt.Errorf("references nested deeper than %d (a cycle?)", maxRefDepth)
	}
	for _, r := range refs {
		src, err := resolveRef(r, resolve, typeAvro)
		if err != nil {
			return err
		}
		if err := avroRefs(src.refs, resolve, cache, depth+1); err != nil {
			return err
		}
		if _, err := avro.ParseWithCache(src.text, "", cache); err != nil {
			return fmt.Errorf("reference %q (subject %s version %d): %w", r.Name, r.Subject, r.Version, err)
		}
	}
	return nil
}

func resolveRef(r Reference, resolve resolver, typ string) (source, error) {
	src, ok := resolve(r)
	if !ok {
		return source{}, fmt.Errorf("invalid reference %q: subject %s version %d not found", r.Name, r.Subject, r.Version)
	}
	if src.typ != typ {
		return source{}, fmt.Errorf("reference %q is a %s schema, not %s", r.Name, src.typ, typ)
	}
	return src, nil
}

// protoMain is the name the schema being registered compiles under.
const protoMain = "\x00schema.proto"

func (p *parsed) parseProtobuf(resolve resolver) error {
	files := map[string]string{protoMain: p.text}
	for name, text := range confluentProtos() {
		files[name] = text
	}
	if err := protoRefs(p.refs, resolve, files, 0); err != nil {
		return err
	}
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
		Accessor: protocompile.SourceAccessorFromMap(files),
	})}
	out, err := c.Compile(context.Background(), protoMain)
	if err != nil {
		return err
	}
	// Identity is the compiled descriptor without source positions and
	// comments, so texts that differ only in layout get one id.
	fdp := protodesc.ToFileDescriptorProto(out[0])
	fdp.SourceCodeInfo = nil
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(fdp)
	if err != nil {
		return err
	}
	p.proto, p.identity = out[0], string(b)
	return nil
}

func protoRefs(refs []Reference, resolve resolver, files map[string]string, depth int) error {
	if depth > maxRefDepth {
		return fmt.Errorf("references nested deeper than %d (a cycle?)", maxRefDepth)
	}
	for _, r := range refs {
		src, err := resolveRef(r, resolve, typeProtobuf)
		if err != nil {
			return err
		}
		files[r.Name] = src.text
		if err := protoRefs(src.refs, resolve, files, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (p *parsed) parseJSON(resolve resolver) error {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(p.text))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	if err := jsonRefs(c, p.refs, resolve, 0); err != nil {
		return err
	}
	if err := c.AddResource(jsonMain, doc); err != nil {
		return err
	}
	if _, err := c.Compile(jsonMain); err != nil {
		return err
	}
	p.text = compactJSON(p.text)
	p.json, p.identity = doc, p.text
	return nil
}

// jsonMain is the URL the schema being registered compiles under; a
// reference's name ("other.json", or an absolute URL) resolves against it
// as the schema's $ref does.
const jsonMain = "sqlstream:///schema.json"

func jsonRefURL(name string) string {
	base, _ := url.Parse(jsonMain)
	ref, err := url.Parse(name)
	if err != nil {
		return name
	}
	return base.ResolveReference(ref).String()
}

func jsonRefs(c *jsonschema.Compiler, refs []Reference, resolve resolver, depth int) error {
	if depth > maxRefDepth {
		return fmt.Errorf("references nested deeper than %d (a cycle?)", maxRefDepth)
	}
	for _, r := range refs {
		src, err := resolveRef(r, resolve, typeJSON)
		if err != nil {
			return err
		}
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(src.text))
		if err != nil {
			return fmt.Errorf("reference %q: %w", r.Name, err)
		}
		if err := c.AddResource(jsonRefURL(r.Name), doc); err != nil {
			return fmt.Errorf("reference %q: %w", r.Name, err)
		}
		if err := jsonRefs(c, src.refs, resolve, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// compactJSON removes insignificant white space, keeping key order (what
// Confluent's canonical form of an Avro or JSON schema also drops). text
// has already been parsed as JSON.
func compactJSON(text string) string {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(text)); err != nil {
		return text
	}
	return b.String()
}
