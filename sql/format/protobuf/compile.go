package protobuf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"github.com/bufbuild/protocompile/reporter"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
)

// mainFile is the path the schema being compiled is known by; refs may not
// use it.
const mainFile = "sqlstream/schema.proto"

// builtin returns the imports Confluent's serializers resolve without a
// reference, beyond protocompile's google/protobuf/*.proto: Confluent's own
// meta and decimal types and the two google.type messages ksqlDB maps DATE
// and TIME to. They are written here from the published definitions
// (field names and numbers are the wire contract). decimal.proto imports
// meta.proto publicly so a schema that imports only the decimal type (as
// Confluent's tools write) can use (confluent.field_meta) on its fields.
func builtin(path string) (string, bool) {
	switch path {
	case "confluent/meta.proto":
		return metaProto, true
	case "confluent/type/decimal.proto":
		return decimalProto, true
	case "google/type/date.proto":
		return dateProto, true
	case "google/type/timeofday.proto":
		return timeOfDayProto, true
	}
	return "", false
}

const metaProto = `syntax = "proto3";
package confluent;
import "google/protobuf/descriptor.proto";
message Meta {
  string doc = 1;
  map<string, string> params = 2;
  repeated string tags = 3;
}
extend google.protobuf.FileOptions { Meta file_meta = 1088; }
extend google.protobuf.MessageOptions { Meta message_meta = 1088; }
extend google.protobuf.FieldOptions { Meta field_meta = 1088; }
extend google.protobuf.EnumOptions { Meta enum_meta = 1088; }
extend google.protobuf.EnumValueOptions { Meta enum_value_meta = 1088; }
`

const decimalProto = `syntax = "proto3";
package confluent.type;
import public "confluent/meta.proto";
message Decimal {
  bytes value = 1;
  uint32 precision = 2;
  int32 scale = 3;
}
`

const dateProto = `syntax = "proto3";
package google.type;
message Date {
  int32 year = 1;
  int32 month = 2;
  int32 day = 3;
}
`

const timeOfDayProto = `syntax = "proto3";
package google.type;
message TimeOfDay {
  int32 hours = 1;
  int32 minutes = 2;
  int32 seconds = 3;
  int32 nanos = 4;
}
`

// compile parses and links schema text (with its references) into a file
// descriptor. Errors name the file, line and column protocompile reports.
func compile(schema string, refs Refs) (linker.File, error) {
	if _, clash := refs[mainFile]; clash {
		return nil, schemaErr("a schema reference may not be named %q", mainFile)
	}
	access := func(path string) (io.ReadCloser, error) {
		if path == mainFile {
			return io.NopCloser(strings.NewReader(schema)), nil
		}
		if text, ok := refs[path]; ok {
			return io.NopCloser(strings.NewReader(text)), nil
		}
		if text, ok := builtin(path); ok {
			return io.NopCloser(strings.NewReader(text)), nil
		}
		return nil, fmt.Errorf("%s: %w (not a schema reference)", path, fs.ErrNotExist)
	}
	c := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(&protocompile.SourceResolver{Accessor: access}),
		MaxParallelism: 1,
		Reporter:       reporter.NewReporter(nil, nil),
	}
	files, err := c.Compile(context.Background(), mainFile)
	if err != nil {
		return nil, schemaErr("invalid protobuf schema: %s", strings.TrimPrefix(err.Error(), mainFile+":"))
	}
	return files[0], nil
}

func schemaErr(format string, args ...any) error {
	return sqlerr.New(sqlerr.Semantic, ast.Pos{}, format, args...)
}

// message finds the message named fullName in f: "" is the first
// top-level message; otherwise the full name, with or without the file's
// package.
func message(f protoreflect.FileDescriptor, fullName string) (protoreflect.MessageDescriptor, error) {
	if fullName == "" {
		if f.Messages().Len() == 0 {
			return nil, schemaErr("protobuf schema has no message")
		}
		return f.Messages().Get(0), nil
	}
	for _, name := range []string{fullName, string(f.Package()) + "." + fullName} {
		if md, ok := findMessage(f.Messages(), protoreflect.FullName(name)); ok {
			return md, nil
		}
	}
	return nil, schemaErr("protobuf schema has no message %q", fullName)
}

func findMessage(ms protoreflect.MessageDescriptors, name protoreflect.FullName) (protoreflect.MessageDescriptor, bool) {
	for i := 0; i < ms.Len(); i++ {
		md := ms.Get(i)
		if md.FullName() == name {
			return md, true
		}
		if strings.HasPrefix(string(name), string(md.FullName())+".") {
			if found, ok := findMessage(md.Messages(), name); ok {
				return found, true
			}
		}
	}
	return nil, false
}

// MessageIndexes returns the message-index path of the message fullName
// ("" = the first message) in schema, as Confluent's wire header carries
// it: the message's index among the file's top-level messages, then among
// each enclosing message's nested ones.
func MessageIndexes(schema string, refs Refs, fullName string) ([]int, error) {
	f, err := compile(schema, refs)
	if err != nil {
		return nil, err
	}
	md, err := message(f, fullName)
	if err != nil {
		return nil, err
	}
	var path []int
	for d := protoreflect.Descriptor(md); d != nil; d = d.Parent() {
		if m, ok := d.(protoreflect.MessageDescriptor); ok {
			path = append([]int{m.Index()}, path...)
		}
	}
	return path, nil
}

// MessageByIndexes returns the full name of the message a wire header's
// index path names in schema. An empty path is the first message (the
// header's shortcut for [0]).
func MessageByIndexes(schema string, refs Refs, indexes []int) (string, error) {
	f, err := compile(schema, refs)
	if err != nil {
		return "", err
	}
	if len(indexes) == 0 {
		indexes = []int{0}
	}
	ms := f.Messages()
	var md protoreflect.MessageDescriptor
	for depth, i := range indexes {
		if i < 0 || i >= ms.Len() {
			return "", errors.New(indexErr(indexes, depth, ms.Len()))
		}
		md = ms.Get(i)
		ms = md.Messages()
	}
	return string(md.FullName()), nil
}

func indexErr(indexes []int, depth, n int) string {
	return fmt.Sprintf("protobuf message index %v: index %d at depth %d is out of range (%d messages there)", indexes, indexes[depth], depth, n)
}
