package protobuf

import (
	"fmt"
	"sort"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sqlstream/sqlstream/sql/types"
)

// Encoder appends the protobuf payload (no Confluent header) of one row.
type Encoder interface {
	Encode(buf []byte, vals []any) ([]byte, error)
}

// NewEncoder compiles an encoder of cols into the message o.FullName ("" =
// the first) of schema, normally the one Schema returned and the registry
// stored. Each column is written to the field of its name (exact, then
// ignoring case), in field-number order; fields no column names are left
// out and read as their defaults. NULL is left out too (read back as the
// default, or as NULL where the field has presence: wrappers, optional,
// messages); NULL inside an ARRAY is written as the element's default, as
// ksqlDB does. A column without a field is an error here.
func NewEncoder(schema string, refs Refs, cols []types.Column, o Options) (Encoder, error) {
	f, err := compile(schema, refs)
	if err != nil {
		return nil, err
	}
	md, err := message(f, o.FullName)
	if err != nil {
		return nil, err
	}
	m, err := newMsgEncoder(md, columnFields(cols), "", 0)
	if err != nil {
		return nil, err
	}
	return &encoder{m: m}, nil
}

type encoder struct{ m *msgEncoder }

func (e *encoder) Encode(buf []byte, vals []any) ([]byte, error) {
	if len(vals) != e.m.n {
		return buf, fmt.Errorf("protobuf encoder: %d values for %d columns (internal error)", len(vals), e.m.n)
	}
	return e.m.encode(buf, vals)
}

// msgEncoder writes the fields of a reader type as one message.
type msgEncoder struct {
	n      int
	fields []*fieldEnc // in field-number order
}

type fieldEnc struct {
	idx      int // value index
	path     string
	tag      []byte
	kind     protoreflect.Kind
	target   *types.Type // SQL type of one value
	list     bool
	isMap    bool
	presence bool
	packed   bool
	wk       wk
	sub      *msgEncoder // STRUCT, wrapper (one field), map entry (key, value)
	enum     protoreflect.EnumDescriptor
	fd       protoreflect.FieldDescriptor // the first member, for a oneof
	oneof    bool                         // a oneof group: sub writes its members
}

func newMsgEncoder(md protoreflect.MessageDescriptor, fields []types.Field, path string, depth int) (*msgEncoder, error) {
	if depth > maxNesting {
		return nil, schemaErr("protobuf schema nests messages more than %d levels at %s", maxNesting, path)
	}
	m := &msgEncoder{n: len(fields)}
	for i, f := range fields {
		p := joinPath(path, f.Name)
		fd := fieldFor(md, f.Name)
		if fd == nil {
			od := oneofFor(md, f.Name)
			if od == nil || f.Type.Kind != types.KindStruct {
				return nil, schemaErr("column %s has no field in protobuf message %s", p, md.FullName())
			}
			fe, err := newOneofEnc(md, od, i, f, p, depth)
			if err != nil {
				return nil, err
			}
			m.fields = append(m.fields, fe)
			continue
		}
		fe := &fieldEnc{idx: i, path: p, fd: fd, presence: fd.HasPresence()}
		if err := fe.compile(fd, f.Type, depth); err != nil {
			return nil, err
		}
		m.fields = append(m.fields, fe)
	}
	sort.Slice(m.fields, func(i, j int) bool { return m.fields[i].fd.Number() < m.fields[j].fd.Number() })
	return m, nil
}

// newOneofEnc writes a STRUCT column read from a oneof (<oneof>_<index>)
// back to its members: each non-NULL member is written (a reader keeps the
// last, so a well-formed value has one).
func newOneofEnc(md protoreflect.MessageDescriptor, od protoreflect.OneofDescriptor, i int, f types.Field, path string, depth int) (*fieldEnc, error) {
	for _, member := range f.Type.Fields {
		if fd := fieldFor(md, member.Name); fd == nil || fd.ContainingOneof() != od {
			return nil, schemaErr("column %s has no member in oneof %s", joinPath(path, member.Name), od.FullName())
		}
	}
	sub, err := newMsgEncoder(md, f.Type.Fields, path, depth+1)
	if err != nil {
		return nil, err
	}
	return &fieldEnc{idx: i, path: path, fd: od.Fields().Get(0), oneof: true, sub: sub, target: f.Type}, nil
}

func (fe *fieldEnc) mismatch(t *types.Type) error {
	return schemaErr("column %s of type %s cannot be written to protobuf field %s (%s)", fe.path, t, fe.fd.FullName(), fieldTypeName(fe.fd))
}

func (fe *fieldEnc) compile(fd protoreflect.FieldDescriptor, t *types.Type, depth int) error {
	switch {
	case fd.IsMap() || (fd.IsList() && fd.Kind() == protoreflect.MessageKind && t.Kind == types.KindMap):
		return fe.compileMap(fd, t, depth)
	case fd.IsList():
		if t.Kind != types.KindArray {
			return fe.mismatch(t)
		}
		fe.list = true
		fe.packed = packable(fd.Kind()) && fd.IsPacked()
		return fe.compileValue(fd, t.Elem, depth)
	}
	return fe.compileValue(fd, t, depth)
}

func (fe *fieldEnc) compileMap(fd protoreflect.FieldDescriptor, t *types.Type, depth int) error {
	entry := fd.Message()
	if t.Kind != types.KindMap || t.Key.Kind != types.KindString {
		return fe.mismatch(t)
	}
	if _, _, ok := entryFields(entry); !ok && !fd.IsMap() {
		return fe.mismatch(t)
	}
	fe.isMap, fe.target = true, t
	fe.tag = protowire.AppendTag(nil, protowire.Number(fd.Number()), protowire.BytesType)
	sub, err := newMsgEncoder(entry, []types.Field{{Name: "key", Type: types.StringType}, {Name: "value", Type: t.Elem}}, fe.path, depth+1)
	fe.sub = sub
	return err
}

func (fe *fieldEnc) compileValue(fd protoreflect.FieldDescriptor, t *types.Type, depth int) error {
	fe.kind, fe.target = fd.Kind(), t
	wt := wireType(fd.Kind())
	if fe.packed {
		wt = protowire.BytesType
	}
	fe.tag = protowire.AppendTag(nil, protowire.Number(fd.Number()), wt)
	if fd.Kind() != protoreflect.MessageKind {
		if !kindWritable(t.Kind, fd.Kind()) {
			return fe.mismatch(t)
		}
		fe.enum = fd.Enum()
		return nil
	}
	md := fd.Message()
	fe.wk = wellKnown(md)
	var want types.Kind
	switch fe.wk {
	case wkTimestamp:
		want = types.KindTimestamp
	case wkDate:
		want = types.KindDate
	case wkTime:
		want = types.KindTime
	case wkDecimal:
		want = types.KindDecimal
	case wkWrapper:
		sub, err := newMsgEncoder(md, []types.Field{{Name: "value", Type: t}}, fe.path, depth+1)
		fe.sub = sub
		return err
	default:
		if t.Kind != types.KindStruct {
			return fe.mismatch(t)
		}
		sub, err := newMsgEncoder(md, t.Fields, fe.path, depth+1)
		fe.sub = sub
		return err
	}
	if t.Kind != want {
		return fe.mismatch(t)
	}
	return nil
}

// kindWritable reports whether SQL kind t can be written as protobuf kind k.
func kindWritable(t types.Kind, k protoreflect.Kind) bool {
	switch t {
	case types.KindBoolean:
		return k == protoreflect.BoolKind
	case types.KindInteger, types.KindBigint:
		return kindFits(k, types.KindBigint) || k == protoreflect.FloatKind || k == protoreflect.DoubleKind
	case types.KindDouble:
		return k == protoreflect.FloatKind || k == protoreflect.DoubleKind
	case types.KindString:
		return k == protoreflect.StringKind || k == protoreflect.EnumKind
	case types.KindBytes:
		return k == protoreflect.BytesKind
	}
	return false
}

func (m *msgEncoder) encode(buf []byte, vals []any) ([]byte, error) {
	var err error
	for _, fe := range m.fields {
		v := vals[fe.idx]
		if v == nil {
			continue
		}
		switch {
		case fe.oneof:
			buf, err = fe.appendOneof(buf, v)
		case fe.isMap:
			buf, err = fe.appendMap(buf, v)
		case fe.list:
			buf, err = fe.appendList(buf, v)
		default:
			buf, err = fe.appendField(buf, v)
		}
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

func (fe *fieldEnc) errf(format string, args ...any) error {
	return &EncodeError{Path: fe.path, Msg: fmt.Sprintf(format, args...)}
}

func (fe *fieldEnc) appendOneof(buf []byte, v any) ([]byte, error) {
	sv, ok := v.(*types.StructValue)
	if !ok || len(sv.Values) != fe.sub.n {
		return buf, fe.errf("want a STRUCT of %d fields, got %T", fe.sub.n, v)
	}
	return fe.sub.encode(buf, sv.Values)
}

// appendField writes tag and value, leaving out proto3 defaults of fields
// without presence.
func (fe *fieldEnc) appendField(buf []byte, v any) ([]byte, error) {
	if !fe.presence && fe.kind != protoreflect.MessageKind && isDefault(v) {
		return buf, nil
	}
	start := len(buf)
	buf = append(buf, fe.tag...)
	out, err := fe.appendValue(buf, v)
	if err != nil {
		return buf[:start], err
	}
	return out, nil
}

func isDefault(v any) bool {
	switch x := v.(type) {
	case bool:
		return !x
	case int32:
		return x == 0
	case int64:
		return x == 0
	case float64:
		return x == 0 && !signbit(x)
	case string:
		return x == ""
	case []byte:
		return len(x) == 0
	}
	return false
}

func (fe *fieldEnc) appendList(buf []byte, v any) ([]byte, error) {
	list, ok := v.([]any)
	if !ok {
		return buf, fe.errf("want an ARRAY value, got %T", v)
	}
	if len(list) == 0 {
		return buf, nil
	}
	var err error
	if fe.packed {
		buf = append(buf, fe.tag...)
		return fe.withLength(buf, func(b []byte) ([]byte, error) {
			for _, e := range list {
				if b, err = fe.appendValue(b, orZero(e, fe.target)); err != nil {
					return b, err
				}
			}
			return b, nil
		})
	}
	for _, e := range list {
		buf = append(buf, fe.tag...)
		if buf, err = fe.appendValue(buf, orZero(e, fe.target)); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// orZero is an element's value, or its default for NULL (repeated fields
// cannot hold NULL).
func orZero(v any, t *types.Type) any {
	if v != nil {
		return v
	}
	switch t.Kind {
	case types.KindBoolean:
		return false
	case types.KindInteger:
		return int32(0)
	case types.KindBigint:
		return int64(0)
	case types.KindDouble:
		return float64(0)
	case types.KindString:
		return ""
	case types.KindBytes:
		return []byte{}
	case types.KindStruct:
		return &types.StructValue{Type: t, Values: make([]any, len(t.Fields))}
	}
	return v
}

func (fe *fieldEnc) appendMap(buf []byte, v any) ([]byte, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return buf, fe.errf("want a MAP value, got %T", v)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var kv [2]any
	var err error
	for _, k := range keys {
		kv[0], kv[1] = k, m[k]
		buf = append(buf, fe.tag...)
		buf, err = fe.withLength(buf, func(b []byte) ([]byte, error) { return fe.sub.encodeEntry(b, kv[:]) })
		if err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// encodeEntry writes a map entry; unlike a plain message it always writes
// the key, as protobuf's own map encoder does.
func (m *msgEncoder) encodeEntry(buf []byte, kv []any) ([]byte, error) {
	var err error
	for _, fe := range m.fields {
		if kv[fe.idx] == nil {
			continue
		}
		buf = append(buf, fe.tag...)
		if buf, err = fe.appendValue(buf, kv[fe.idx]); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// withLength appends a length-delimited body written by body: one byte is
// reserved for the length and the body moved when it needs more.
func (fe *fieldEnc) withLength(buf []byte, body func([]byte) ([]byte, error)) ([]byte, error) {
	start := len(buf)
	buf = append(buf, 0)
	buf, err := body(buf)
	if err != nil {
		return buf, err
	}
	n := len(buf) - start - 1
	if n < 0x80 {
		buf[start] = byte(n)
		return buf, nil
	}
	size := protowire.SizeVarint(uint64(n))
	buf = append(buf, make([]byte, size-1)...)
	copy(buf[start+size:], buf[start+1:start+1+n])
	protowire.AppendVarint(buf[start:start], uint64(n))
	return buf, nil
}
