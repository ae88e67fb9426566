package protobuf

import (
	"sort"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/sql/ast"
	"github.com/sqlstream/sqlstream/sql/sqlerr"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Schema is the proto3 schema ksqlDB registers for cols, printed as
// Confluent's canonical text: one message (ConnectDefault1 unless
// o.FullName names it) with a field per column numbered from 1, STRUCTs
// and MAP entries as nested messages ConnectDefault2, ConnectDefault3Entry
// … (depth first), DECIMAL as confluent.type.Decimal with its precision
// and scale in (confluent.field_meta), TIMESTAMP, DATE and TIME as
// google.protobuf.Timestamp, google.type.Date and google.type.TimeOfDay,
// and nullable primitives as o.NullableRepresentation asks.
func Schema(cols []types.Column, o Options) (string, error) {
	if err := o.validate(); err != nil {
		return "", err
	}
	p := &printer{rep: o.representation(), imports: map[string]bool{}}
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
	imports map[string]bool
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
	imports := make([]string, 0, len(p.imports))
	for imp := range p.imports {
		imports = append(imports, imp)
	}
	sort.Strings(imports)
	for _, imp := range imports {
		b.WriteString("import \"" + imp + "\";\n")
	}
	if len(imports) > 0 {
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
func (p *printer) field(f types.Field, num, depth int) (string, []string, error) {
	indent := strings.Repeat("  ", depth)
	tail := " " + f.Name + " = " + strconv.Itoa(num)
	switch f.Type.Kind {
	case types.KindArray:
		elem, msgs, err := p.elemType(f.Name, f.Type.Elem, depth)
		if err != nil {
			return "", nil, err
		}
		return indent + "repeated " + elem + tail + ";\n", msgs, nil
	case types.KindMap:
		entry, msg, err := p.mapEntry(f.Name, f.Type, depth)
		if err != nil {
			return "", nil, err
		}
		return indent + "repeated " + entry + tail + ";\n", []string{msg}, nil
	case types.KindStruct:
		name := p.nextName("")
		msg, err := p.message(name, f.Type.Fields, depth)
		return indent + name + tail + ";\n", []string{msg}, err
	}
	typ, opts, err := p.scalar(f.Name, f.Type, true)
	if err != nil {
		return "", nil, err
	}
	label := ""
	if p.rep == NullableOptional && isPrimitive(f.Type.Kind) {
		label = "optional "
	}
	return indent + label + typ + tail + opts + ";\n", nil, nil
}

// elemType is the type of a repeated field's elements.
func (p *printer) elemType(name string, t *types.Type, depth int) (string, []string, error) {
	switch t.Kind {
	case types.KindArray, types.KindMap:
		return "", nil, unsupported("PROTOBUF cannot write column %s: an ARRAY of %s has no protobuf type (repeated fields do not nest)", name, t.Kind)
	case types.KindStruct:
		msgName := p.nextName("")
		msg, err := p.message(msgName, t.Fields, depth)
		return msgName, []string{msg}, err
	}
	typ, opts, err := p.scalar(name, t, false)
	if opts != "" {
		return "", nil, unsupported("PROTOBUF cannot write column %s: an ARRAY of DECIMAL needs field options on each element", name)
	}
	return typ, nil, err
}

// mapEntry prints a MAP's entry message (string key = 1, value = 2).
func (p *printer) mapEntry(name string, t *types.Type, depth int) (string, string, error) {
	if t.Key.Kind != types.KindString {
		return "", "", unsupported("PROTOBUF format only supports MAP types with STRING keys")
	}
	if k := t.Elem.Kind; k == types.KindArray || k == types.KindMap {
		return "", "", unsupported("PROTOBUF cannot write column %s: a MAP of %s has no protobuf type", name, k)
	}
	entry := p.nextName("Entry")
	value := types.Field{Name: "value", Type: t.Elem}
	saved := p.rep
	p.rep = NullableDefault // entry values are never wrapped
	msg, err := p.message(entry, []types.Field{{Name: "key", Type: types.StringType}, value}, depth)
	p.rep = saved
	return entry, msg, err
}

// scalar is the protobuf type of a non-container SQL type, and the field
// options it needs. wrap says a nullable primitive may use a wrapper.
func (p *printer) scalar(name string, t *types.Type, wrap bool) (string, string, error) {
	if wrap && p.rep == NullableWrapper && isPrimitive(t.Kind) {
		p.imports["google/protobuf/wrappers.proto"] = true
		return "google.protobuf." + wrapperName(t.Kind), "", nil
	}
	switch t.Kind {
	case types.KindDecimal:
		p.imports["confluent/meta.proto"] = true
		p.imports["confluent/type/decimal.proto"] = true
		return "confluent.type.Decimal", decimalOptions(t), nil
	case types.KindTimestamp:
		p.imports["google/protobuf/timestamp.proto"] = true
		return "google.protobuf.Timestamp", "", nil
	case types.KindDate:
		p.imports["google/type/date.proto"] = true
		return "google.type.Date", "", nil
	case types.KindTime:
		p.imports["google/type/timeofday.proto"] = true
		return "google.type.TimeOfDay", "", nil
	}
	if s, ok := scalarName(t.Kind); ok {
		return s, "", nil
	}
	return "", "", unsupported("PROTOBUF cannot write column %s of type %s", name, t)
}

func decimalOptions(t *types.Type) string {
	return ` [(confluent.field_meta) = { params: [{ key: "precision", value: "` + strconv.Itoa(t.Precision) +
		`" }, { key: "scale", value: "` + strconv.Itoa(t.Scale) + `" }] }]`
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
