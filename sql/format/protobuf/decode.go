package protobuf

import (
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sqlstream/sqlstream/sql/format/internal/boxes"
	"github.com/sqlstream/sqlstream/sql/types"
)

// Decoder fills one Go value per reader column (sql/types/value.go) from a
// protobuf payload (no Confluent header). It never keeps the payload and
// holds no per-call state, so one Decoder may serve many goroutines.
type Decoder interface {
	Decode(payload []byte, dst []any) error
	// DecodeScratch is Decode putting the record's strings and boxed
	// values in s, which one goroutine at a time uses (Scratch).
	DecodeScratch(s *Scratch, payload []byte, dst []any) error
}

// NewDecoder compiles, once per writer schema, a decoder from the message
// o.FullName ("" = the first) of writer into cols: a table by field number
// of slot decoders, matched to columns by name (exact, then ignoring case).
// Absent fields read as their defaults, except messages (wrappers
// included), proto3 optional fields and oneof members, which read as NULL;
// absent repeated fields read as an empty ARRAY or MAP. Unknown fields are
// skipped; columns the writer lacks are NULL. A column whose type cannot
// hold its field is an error here, not at decode time.
func NewDecoder(writer string, refs Refs, cols []types.Column, o Options) (Decoder, error) {
	f, err := compile(writer, refs)
	if err != nil {
		return nil, err
	}
	md, err := message(f, o.FullName)
	if err != nil {
		return nil, err
	}
	m, err := newMsgDecoder(md, columnFields(cols), "", 0)
	if err != nil {
		return nil, err
	}
	d := &decoder{m: m}
	m.prune(o.Read)
	for i, c := range cols {
		if o.Read != nil && !o.Read[i] {
			continue
		}
		switch c.Type.Kind {
		case types.KindString:
			d.strs++
		case types.KindBigint:
			d.words++
		}
	}
	return d, nil
}

func columnFields(cols []types.Column) []types.Field {
	fields := make([]types.Field, len(cols))
	for i, c := range cols {
		fields[i] = types.Field{Name: c.Name, Type: c.Type}
	}
	return fields
}

type decoder struct {
	m *msgDecoder
	// words and strs size the first chunks of a record's arena: its
	// top-level BIGINT and STRING columns.
	words, strs int
}

func (d *decoder) Decode(payload []byte, dst []any) error {
	if len(dst) != len(d.m.slots) {
		return fmt.Errorf("protobuf decoder: %d destination slots for %d columns (internal error)", len(dst), len(d.m.slots))
	}
	st := decodeState{payload: payload, arena: boxes.New(d.words, d.strs)}
	return d.m.decode(&st, payload, dst, 0)
}

func (d *decoder) DecodeScratch(s *Scratch, payload []byte, dst []any) error {
	if len(dst) != len(d.m.slots) {
		return fmt.Errorf("protobuf decoder: %d destination slots for %d columns (internal error)", len(dst), len(d.m.slots))
	}
	st := decodeState{payload: payload, arena: s.arena, scratch: s}
	err := d.m.decode(&st, payload, dst, 0)
	s.arena = st.arena
	return err
}

// denseLimit bounds the field numbers looked up by slice index; higher
// numbers (rare) go through a map.
const denseLimit = 256

// msgDecoder decodes one message type into the fields of a reader type.
type msgDecoder struct {
	slots  []*slot // one per reader field, in reader order
	dense  []*slot // by field number
	sparse map[protowire.Number]*slot
	// unread marks the fields (top-level columns) the query does not
	// read (Options.Read): decode leaves them NULL; nil: none.
	unread []bool
}

// shape is how a slot's wire data becomes a value.
type shape uint8

const (
	shapeScalar  shape = iota // one primitive value
	shapeMessage              // STRUCT, a wrapper or a well-known message
	shapeList                 // repeated scalar or message
	shapeMap                  // map field or repeated …Entry
	shapeOneof                // a oneof group read as a STRUCT of its members
	shapeAbsent               // the writer has no such field: always NULL
)

// slot decodes one writer field into one reader field.
type slot struct {
	idx      int
	path     string
	target   *types.Type
	shape    shape
	fd       protoreflect.FieldDescriptor
	vt       *types.Type       // the type of one value: target, or its element for lists
	kind     protoreflect.Kind // writer kind of one value (a wrapper's inner kind)
	wk       wk                // for message kinds
	sub      *msgDecoder       // STRUCT fields, wrapper value, map entry
	enum     protoreflect.EnumValueDescriptors
	presence bool // absent reads as NULL, not as the default
	zero     any  // the proto3 default, for scalars without presence
	parent   *slot
	// checkOnly: a column the query does not read whose value decode
	// cannot refuse once its bytes are there (plainScalar): read past.
	checkOnly bool
}

func newMsgDecoder(md protoreflect.MessageDescriptor, fields []types.Field, path string, depth int) (*msgDecoder, error) {
	if depth > maxNesting {
		return nil, schemaErr("protobuf schema nests messages more than %d levels at %s", maxNesting, path)
	}
	m := &msgDecoder{slots: make([]*slot, len(fields))}
	for i, f := range fields {
		s, err := newSlot(md, f, joinPath(path, f.Name), depth)
		if err != nil {
			return nil, err
		}
		s.idx = i
		m.slots[i] = s
	}
	m.index()
	return m, nil
}

// maxNesting bounds message nesting (recursive schemas are cut there).
const maxNesting = 100

// index builds the by-number table, oneof members included.
func (m *msgDecoder) index() {
	m.dense = make([]*slot, 0)
	add := func(num protowire.Number, s *slot) {
		if num < denseLimit {
			for int(num) >= len(m.dense) {
				m.dense = append(m.dense, nil)
			}
			m.dense[num] = s
			return
		}
		if m.sparse == nil {
			m.sparse = map[protowire.Number]*slot{}
		}
		m.sparse[num] = s
	}
	for _, s := range m.slots {
		switch s.shape {
		case shapeAbsent:
		case shapeOneof:
			for _, member := range s.sub.slots {
				if member.shape != shapeAbsent {
					add(member.num(), member)
				}
			}
		default:
			add(s.num(), s)
		}
	}
}

func (m *msgDecoder) lookup(num protowire.Number) *slot {
	if num < protowire.Number(len(m.dense)) {
		return m.dense[num]
	}
	return m.sparse[num]
}

// fieldFor finds the writer field a reader field reads: by name, then
// ignoring case.
func fieldFor(md protoreflect.MessageDescriptor, name string) protoreflect.FieldDescriptor {
	fs := md.Fields()
	if fd := fs.ByName(protoreflect.Name(name)); fd != nil {
		return fd
	}
	for i := 0; i < fs.Len(); i++ {
		if strings.EqualFold(string(fs.Get(i).Name()), name) {
			return fs.Get(i)
		}
	}
	return nil
}

func oneofFor(md protoreflect.MessageDescriptor, name string) protoreflect.OneofDescriptor {
	os := md.Oneofs()
	for i := 0; i < os.Len(); i++ {
		od := os.Get(i)
		if !od.IsSynthetic() && strings.EqualFold(string(od.Name())+"_"+strconv.Itoa(od.Index()), name) {
			return od
		}
	}
	return nil
}

func newSlot(md protoreflect.MessageDescriptor, f types.Field, path string, depth int) (*slot, error) {
	fd := fieldFor(md, f.Name)
	if fd == nil {
		if od := oneofFor(md, f.Name); od != nil && f.Type.Kind == types.KindStruct {
			return newOneofSlot(od, f, path, depth)
		}
		return &slot{path: path, target: f.Type, shape: shapeAbsent}, nil
	}
	s := &slot{path: path, target: f.Type, kind: fd.Kind(), fd: fd}
	return s, s.compile(fd, depth)
}

func newOneofSlot(od protoreflect.OneofDescriptor, f types.Field, path string, depth int) (*slot, error) {
	s := &slot{path: path, target: f.Type, shape: shapeOneof, presence: true, sub: &msgDecoder{}}
	for i, member := range f.Type.Fields {
		ms := &slot{idx: i, path: joinPath(path, member.Name), target: member.Type, shape: shapeAbsent, parent: s}
		for j := 0; j < od.Fields().Len(); j++ {
			if fd := od.Fields().Get(j); strings.EqualFold(string(fd.Name()), member.Name) {
				ms.kind, ms.fd = fd.Kind(), fd
				if err := ms.compile(fd, depth); err != nil {
					return nil, err
				}
			}
		}
		s.sub.slots = append(s.sub.slots, ms)
	}
	return s, nil
}
