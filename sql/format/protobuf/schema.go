package protobuf

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Schema is the proto3 schema ksqlDB registers for cols, printed as
// Confluent's canonical text: one message (ConnectDefault1 unless
// o.FullName names it, with its package) with a field per column numbered
// from 1; STRUCTs and MAP entries as messages nested where they are used,
// named ConnectDefault2, ConnectDefault3Entry … depth first (as Confluent's
// converter names ksqlDB's unnamed schemas); DECIMAL as
// confluent.type.Decimal with its precision and scale in
// (confluent.field_meta); TIMESTAMP, DATE and TIME as
// google.protobuf.Timestamp, google.type.Date and google.type.TimeOfDay;
// imports in first-use order; nulls as o.NullableRepresentation asks
// (see field).
func Schema(cols []types.Column, o Options) (string, error) {
	if err := o.validate(); err != nil {
		return "", err
	}
	p := &printer{rep: o.representation()}
	for _, part := range strings.Split(o.FullName, ".") {
		if o.FullName != "" && !validName(part) {
			return "", unsupported("PROTOBUF cannot name a message %q: each part of a full name is letters, digits and '_', not starting with a digit", o.FullName)
		}
	}
	pkg, name := splitFullName(o.FullName)
	if name == "" {
		name = p.nextName("")
	}
	fields := make([]types.Field, len(cols))
	for i, c := range cols {
		fields[i] = types.Field{Name: c.Name, Type: c.Type}
	}
	body, err := p.message(name, fields, 0)
	if err != nil {
		return "", err
	}
	return p.file(pkg, body), nil
}

func splitFullName(full string) (pkg, name string) {
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		return full[:i], full[i+1:]
	}
	return "", full
}

type printer struct {
	rep     string
	imports []string // in first-use order
	counter int
}

func (p *printer) nextName(suffix string) string {
	p.counter++
	return "ConnectDefault" + strconv.Itoa(p.counter) + suffix
}

func (p *printer) file(pkg, body string) string {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\n\n")
	if pkg != "" {
		b.WriteString("package " + pkg + ";\n\n")
	}
	for _, imp := range p.imports {
		b.WriteString("import \"" + imp + "\";\n")
	}
	if len(p.imports) > 0 {
		b.WriteString("\n")
	}
	b.WriteString(body)
	return b.String()
}

// message prints a message of fields at nesting depth: its fields, then a
// blank line and its nested messages.
func (p *printer) message(name string, fields []types.Field, depth int) (string, error) {
	if depth > sqlerr.MaxDepth {
		return "", sqlerr.TooDeep(ast.Pos{})
	}
	indent := strings.Repeat("  ", depth)
	var b, nested strings.Builder
	b.WriteString(indent + "message " + name + " {\n")
	for i, f := range fields {
		line, msgs, err := p.field(f, i+1, depth+1)
		if err != nil {
			return "", err
		}
		b.WriteString(line)
		for _, m := range msgs {
			nested.WriteString("\n" + m)
		}
	}
	b.WriteString(nested.String())
	b.WriteString(indent + "}\n")
	return b.String(), nil
}

// field prints one field line and the nested messages its type needs.
// As Confluent's converter does for ksqlDB's all-optional schemas, OPTIONAL
// labels every field that is not repeated and WRAPPER wraps every
// primitive, array elements and map keys and values included.
func (p *printer) field(f types.Field, num, depth int) (string, []string, error) {
	if !validName(f.Name) {
		return "", nil, unsupported("PROTOBUF cannot name a field %q: protobuf names are letters, digits and '_', not starting with a digit", f.Name)
	}
	indent := strings.Repeat("  ", depth)
	tail := " " + f.Name + " = " + strconv.Itoa(num)
	label, t := "", f.Type
	switch t.Kind {
	case types.KindArray:
		label, t = "repeated ", t.Elem
		if t.Kind == types.KindArray || t.Kind == types.KindMap {
			return "", nil, unsupported("PROTOBUF cannot write column %s: an ARRAY of %s has no protobuf type (repeated fields do not nest)", f.Name, t.Kind)
		}
	case types.KindMap:
		entry, msg, err := p.mapEntry(f.Name, t, depth)
		return indent + "repeated " + entry + tail + ";\n", []string{msg}, err
	default:
		if p.rep == NullableOptional {
			label = "optional "
		}
	}
	if t.Kind == types.KindStruct {
		name := p.nextName("")
		if name == f.Name {
			name += "Message" // a message type may not share its field's name
		}
		msg, err := p.message(name, t.Fields, depth)
		return indent + label + name + tail + ";\n", []string{msg}, err
	}
	typ, err := p.scalar(f.Name, t)
	if err != nil {
		return "", nil, err
	}
	opts := ""
	if t.Kind == types.KindDecimal {
		opts = decimalOptions(t, indent)
	}
	return indent + label + typ + tail + opts + ";\n", nil, nil
}

// mapEntry prints a MAP's entry message (key = 1, value = 2; not a
// protobuf map_entry, as Confluent writes it).
func (p *printer) mapEntry(name string, t *types.Type, depth int) (string, string, error) {
	if t.Key.Kind != types.KindString {
		return "", "", unsupported("PROTOBUF format only supports MAP types with STRING keys")
	}
	entry := p.nextName("Entry")
	msg, err := p.message(entry, []types.Field{{Name: "key", Type: types.StringType}, {Name: "value", Type: t.Elem}}, depth)
	return entry, msg, err
}

// scalar is the protobuf type of a non-container SQL type; it records
// the imports the type needs.
func (p *printer) scalar(name string, t *types.Type) (string, error) {
	if p.rep == NullableWrapper && isPrimitive(t.Kind) {
		p.addImport("google/protobuf/wrappers.proto")
		return "google.protobuf." + wrapperName(t.Kind), nil
	}
	switch t.Kind {
	case types.KindDecimal:
		p.addImport("confluent/meta.proto")
		p.addImport("confluent/type/decimal.proto")
		return "confluent.type.Decimal", nil
	case types.KindTimestamp:
		p.addImport("google/protobuf/timestamp.proto")
		return "google.protobuf.Timestamp", nil
	case types.KindDate:
		p.addImport("google/type/date.proto")
		return "google.type.Date", nil
	case types.KindTime:
		p.addImport("google/type/timeofday.proto")
		return "google.type.TimeOfDay", nil
	}
	if s, ok := scalarName(t.Kind); ok {
		return s, nil
	}
	return "", unsupported("PROTOBUF cannot write column %s of type %s", name, t)
}

// addImport records an import once, in first-use order (the order
// Confluent's schema builder adds dependencies in).
func (p *printer) addImport(path string) {
	if !slices.Contains(p.imports, path) {
		p.imports = append(p.imports, path)
	}
}

// decimalOptions is the (confluent.field_meta) option of a DECIMAL field,
// laid out as Confluent's schema printer writes option values, indented
// from the field's indent.
func decimalOptions(t *types.Type, indent string) string {
	param := func(key string, v int) string {
		return indent + "    {\n" + indent + "      key: \"" + key + "\",\n" +
			indent + "      value: \"" + strconv.Itoa(v) + "\"\n" + indent + "    }"
	}
	return " [(confluent.field_meta) = {\n" + indent + "  params: [\n" +
		param("precision", t.Precision) + ",\n" + param("scale", t.Scale) + "\n" +
		indent + "  ]\n" + indent + "}]"
}

func validName(name string) bool {
	for i, c := range name {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return name != ""
}

func isPrimitive(k types.Kind) bool {
	_, ok := scalarName(k)
	return ok
}

// scalarName is the protobuf type of a primitive SQL type.
func scalarName(k types.Kind) (string, bool) {
	switch k {
	case types.KindBoolean:
		return "bool", true
	case types.KindInteger:
		return "int32", true
	case types.KindBigint:
		return "int64", true
	case types.KindDouble:
		return "double", true
	case types.KindString:
		return "string", true
	case types.KindBytes:
		return "bytes", true
	}
	return "", false
}

// wrapperName is the google.protobuf wrapper message of a primitive type.
func wrapperName(k types.Kind) string {
	switch k {
	case types.KindBoolean:
		return "BoolValue"
	case types.KindInteger:
		return "Int32Value"
	case types.KindBigint:
		return "Int64Value"
	case types.KindDouble:
		return "DoubleValue"
	case types.KindString:
		return "StringValue"
	}
	return "BytesValue"
}

func unsupported(format string, args ...any) error {
	return sqlerr.New(sqlerr.Unsupported, ast.Pos{}, format, args...)
}
