package avro

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sqlstream/sqlstream/sql/types"
)

// Schema is the Avro schema ksqlDB registers for cols, as the registry's
// canonical string prints it (Avro's Schema.toString: compact JSON, keys
// in Avro's order). It follows ksqlDB's AvroSchemas and Connect's
// AvroData:
//
//   - a record named o.FullName (default KsqlDataSourceSchema in
//     io.confluent.ksql.avro_schemas) with "connect.name" set to it;
//   - every field a ["null", T] union with "default": null;
//   - a nested STRUCT is a record named <parent>_<FIELD>; a MAP is an
//     array of <parent>_<FIELD> key/value records (Connect's MapEntry,
//     since ksqlDB's map keys are nullable strings);
//   - DECIMAL, DATE, TIME and TIMESTAMP carry Connect's logical types;
//   - with o.Unwrapped the single column's type is the whole schema, not
//     nullable at the root.
//
// A name Avro cannot hold is an error naming it, as ksqlDB's "Schema is
// not compatible with Avro" is.
func Schema(cols []types.Column, o Options) (string, error) {
	p := &printer{}
	full := o.fullName()
	if o.Unwrapped {
		if len(cols) != 1 {
			return "", fmt.Errorf("an unwrapped Avro schema holds exactly one column, got %d", len(cols))
		}
		if err := p.root(cols[0].Type, full); err != nil {
			return "", err
		}
		return p.b.String(), nil
	}
	fields := make([]types.Field, len(cols))
	for i, c := range cols {
		fields[i] = types.Field{Name: c.Name, Type: c.Type}
	}
	if err := p.record(fields, full, ""); err != nil {
		return "", err
	}
	return p.b.String(), nil
}

// KeySchemaName is the full name ksqlDB gives the key record of the
// source named source (AvroFormat.getKeySchemaName): ORDER_LINES →
// io.confluent.ksql.avro_schemas.OrderLinesKey.
func KeySchemaName(source string) string {
	var b strings.Builder
	b.WriteString(Namespace + ".")
	for _, part := range strings.Split(source, "_") {
		if part == "" {
			continue
		}
		b.WriteString(strings.ToUpper(part[:1]))
		b.WriteString(strings.ToLower(part[1:]))
	}
	b.WriteString("Key")
	return b.String()
}

// printer writes Avro JSON; ns is the enclosing namespace, which a nested
// record inherits and so does not repeat.
type printer struct {
	b  strings.Builder
	ns string
}

func splitName(full string) (ns, name string) {
	if i := strings.LastIndexByte(full, '.'); i >= 0 {
		return full[:i], full[i+1:]
	}
	return "", full
}

// root prints an unwrapped column's type: not a union, since the record
// itself may be null only as a whole (a tombstone).
func (p *printer) root(t *types.Type, full string) error {
	switch t.Kind {
	case types.KindStruct:
		return p.record(t.Fields, full, "")
	case types.KindMap:
		return p.mapType(t, full, "")
	}
	return p.typ(t, full, "")
}

// record prints a record named full; path is the column path for errors.
func (p *printer) record(fields []types.Field, full, path string) error {
	ns, name := splitName(full)
	if err := checkName(name, path); err != nil {
		return err
	}
	p.b.WriteString(`{"type":"record","name":`)
	p.str(name)
	if ns != p.ns {
		p.b.WriteString(`,"namespace":`)
		p.str(ns)
	}
	outer := p.ns
	p.ns = ns
	p.b.WriteString(`,"fields":[`)
	for i, f := range fields {
		if i > 0 {
			p.b.WriteByte(',')
		}
		if err := p.field(f, full, join(path, f.Name)); err != nil {
			return err
		}
	}
	p.ns = outer
	p.b.WriteString(`],"connect.name":`)
	p.str(full)
	p.b.WriteByte('}')
	return nil
}

// field prints one optional field; ksqlDB replaces the dots of qualified
// column names (A.B) with underscores.
func (p *printer) field(f types.Field, parent, path string) error {
	name := strings.ReplaceAll(f.Name, ".", "_")
	if err := checkName(name, path); err != nil {
		return err
	}
	p.b.WriteString(`{"name":`)
	p.str(name)
	p.b.WriteString(`,"type":["null",`)
	if err := p.typ(f.Type, parent+"_"+f.Name, path); err != nil {
		return err
	}
	p.b.WriteString(`],"default":null}`)
	return nil
}

// typ prints t; full is the name a record or map entry made for it
// takes, path the column path for errors.
func (p *printer) typ(t *types.Type, full, path string) error {
	switch t.Kind {
	case types.KindBoolean:
		p.b.WriteString(`"boolean"`)
	case types.KindInteger:
		p.b.WriteString(`"int"`)
	case types.KindBigint:
		p.b.WriteString(`"long"`)
	case types.KindDouble:
		p.b.WriteString(`"double"`)
	case types.KindString:
		p.b.WriteString(`"string"`)
	case types.KindBytes:
		p.b.WriteString(`"bytes"`)
	case types.KindDecimal:
		p.decimal(t)
	case types.KindDate:
		p.b.WriteString(`{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Date","logicalType":"date"}`)
	case types.KindTime:
		p.b.WriteString(`{"type":"int","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Time","logicalType":"time-millis"}`)
	case types.KindTimestamp:
		p.b.WriteString(`{"type":"long","connect.version":1,"connect.name":"org.apache.kafka.connect.data.Timestamp","logicalType":"timestamp-millis"}`)
	case types.KindArray:
		p.b.WriteString(`{"type":"array","items":["null",`)
		if err := p.typ(t.Elem, full, path+"[]"); err != nil {
			return err
		}
		p.b.WriteString(`]}`)
	case types.KindMap:
		return p.mapType(t, full, path)
	case types.KindStruct:
		return p.record(t.Fields, full, path)
	default:
		return fmt.Errorf("type %s has no Avro representation", t)
	}
	return nil
}

func (p *printer) decimal(t *types.Type) {
	prec, scale := strconv.Itoa(t.Precision), strconv.Itoa(t.Scale)
	p.b.WriteString(`{"type":"bytes","scale":` + scale + `,"precision":` + prec +
		`,"connect.version":1,"connect.parameters":{"scale":"` + scale +
		`","connect.decimal.precision":"` + prec +
		`"},"connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}`)
}

// mapType prints a MAP as Connect's AvroData does for a nullable string
// key: an array of key/value records named after the map, marked
// connect.internal.type MapEntry, the array carrying connect.name.
func (p *printer) mapType(t *types.Type, full, path string) error {
	ns, name := splitName(full)
	p.b.WriteString(`{"type":"array","items":{"type":"record","name":`)
	p.str(name)
	if ns != p.ns {
		p.b.WriteString(`,"namespace":`)
		p.str(ns)
	}
	outer := p.ns
	p.ns = ns
	p.b.WriteString(`,"fields":[{"name":"key","type":["null","string"],"default":null},{"name":"value","type":["null",`)
	if err := p.typ(t.Elem, full+"_MapValue", path+"[]"); err != nil {
		return err
	}
	p.ns = outer
	p.b.WriteString(`],"default":null}],"connect.internal.type":"MapEntry"},"connect.name":`)
	p.str(full)
	p.b.WriteByte('}')
	return nil
}

func (p *printer) str(s string) { p.b.WriteString(strconv.Quote(s)) }

// checkName applies Avro's name rule ([A-Za-z_][A-Za-z0-9_]*) with the
// messages of Avro's Schema.validateName that ksqlDB reports.
func checkName(name, path string) error {
	bad := ""
	switch {
	case name == "":
		bad = "Empty name"
	case !nameStart(name[0]):
		bad = "Illegal initial character: " + name
	default:
		for i := 1; i < len(name); i++ {
			if !nameStart(name[i]) && (name[i] < '0' || name[i] > '9') {
				bad = "Illegal character in: " + name
				break
			}
		}
	}
	if bad == "" {
		return nil
	}
	if path != "" {
		return fmt.Errorf("Schema is not compatible with Avro: %s (column %s)", bad, path)
	}
	return fmt.Errorf("Schema is not compatible with Avro: %s", bad)
}

func nameStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
