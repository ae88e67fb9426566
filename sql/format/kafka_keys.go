package format

import (
	"unsafe"

	"github.com/sqlstream/sqlstream/sql/format/internal/boxes"
	"github.com/sqlstream/sqlstream/sql/types"
)

// NewTaskKeyCodec is NewKeyCodec for a codec one task owns: it is used
// by one goroutine at a time and never shared between tasks. A KAFKA
// STRING or BIGINT key then decodes without an allocation of its own
// (string(data) and boxing it into an `any` were two per record): the
// bytes are copied into a slab and the values boxed from an arena, both
// the codec's and kept from record to record (keyArena). Other formats
// and types get NewKeyCodec's codec.
func NewTaskKeyCodec(spec Spec, cols []types.Column) (Codec, error) {
	c, err := NewKeyCodec(spec, cols)
	if k, ok := c.(*kafkaCodec); ok && err == nil && k.arenaKind() {
		return &kafkaCodec{col: k.col, keys: newKeyArena()}, nil
	}
	return c, err
}

// arenaKind reports whether the column's values decode through a
// keyArena: a string, or an integer boxed as its own type.
func (c *kafkaCodec) arenaKind() bool {
	switch c.col.Type.Kind {
	case types.KindString, types.KindBigint, types.KindInteger:
		return true
	}
	return false
}

// keyArena holds the decoded keys of one task's records: string bytes
// in a boxes.Slab, boxes in a boxes.Arena (chunks of 16). Both are only
// appended to, never written again where a value was handed out, as
// sql/types requires of values; a new slab or chunk is allocated when
// one is full, and the old ones live as long as a key in them does.
type keyArena struct {
	slab  boxes.Slab
	boxes boxes.Arena
	str   unsafe.Pointer // type words
	i64   unsafe.Pointer
	i32   unsafe.Pointer
}

func newKeyArena() *keyArena {
	return &keyArena{str: boxes.TypeWord(""), i64: boxes.TypeWord(int64(0)), i32: boxes.TypeWord(int32(0))}
}

// string returns data as a string boxed in the arena.
func (a *keyArena) string(data []byte) any { return boxes.String(&a.boxes, a.str, a.text(data)) }

// text returns data as a string whose bytes are in the slab.
func (a *keyArena) text(data []byte) string { return a.slab.String(data) }

// int64 and int32 box an integer in the arena.
func (a *keyArena) int64(v int64) any { return boxes.Int(&a.boxes, a.i64, v) }
func (a *keyArena) int32(v int32) any { return boxes.Int(&a.boxes, a.i32, v) }
