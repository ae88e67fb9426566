package protobuf

import (
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/sqlstream/sqlstream/sql/types"
)

// prune marks the top-level fields read does not (nil: all are read):
// decode leaves them NULL. A plain scalar is only read past (check); any
// other field is decoded as before, so that it fails where it would, and
// dropped.
func (m *msgDecoder) prune(read []bool) {
	if read == nil {
		return
	}
	m.unread = make([]bool, len(m.slots))
	for i, s := range m.slots {
		if read[i] {
			continue
		}
		m.unread[i] = true
		s.checkOnly = s.plainScalar()
	}
}

// plainScalar reports a scalar field whose value converts to its column
// without a check of its own: value cannot refuse it once its bytes are
// there (an INTEGER column can refuse a 64-bit or unsigned number out of
// its range, a BIGINT an unsigned one past 2^63).
func (s *slot) plainScalar() bool {
	if s.shape != shapeScalar || s.parent != nil {
		return false
	}
	switch s.kind {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.BoolKind, protoreflect.FloatKind,
		protoreflect.DoubleKind, protoreflect.EnumKind, protoreflect.Int32Kind, protoreflect.Sint32Kind,
		protoreflect.Sfixed32Kind:
		return true
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return s.vt.Kind != types.KindInteger
	}
	return false
}

// check reads past one value of a checkOnly slot with value's checks
// (its wire type, its bytes) and its errors, storing nothing.
func (s *slot) check(b []byte, typ protowire.Type, at int) (int, error) {
	if want := wireType(s.kind); typ != want {
		return 0, s.errAt(at, "wire type %d, want %d for %s", typ, want, s.kind)
	}
	var n int
	switch typ {
	case protowire.VarintType:
		_, n = protowire.ConsumeVarint(b)
	case protowire.Fixed32Type:
		_, n = protowire.ConsumeFixed32(b)
	case protowire.Fixed64Type:
		_, n = protowire.ConsumeFixed64(b)
	default:
		_, n = protowire.ConsumeBytes(b)
	}
	if n < 0 {
		return 0, s.errAt(at, "truncated %s: %v", s.kind, protowire.ParseError(n))
	}
	return n, nil
}
