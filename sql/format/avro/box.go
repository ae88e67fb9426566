package avro

import (
	"unsafe"

	"github.com/sqlstream/sqlstream/sql/format/internal/boxes"
)

// Decoded values are boxed in the record's arena (sql/format/internal/boxes):
// a record's boxed values cost about one allocation, not one each.

// typeWord is the type word of v's dynamic type.
func typeWord(v any) unsafe.Pointer { return boxes.TypeWord(v) }

// box returns an interface of the type typ (a type word of T) holding v,
// stored in r's arena. T must be a pointer-free type of at most 8 bytes.
func box[T any](r *reader, typ unsafe.Pointer, v T) any { return boxes.Word(&r.arena, typ, v) }

// boxInt is box for an INTEGER or BIGINT (boxes.Int: one in [0, 256)
// needs no place in the arena).
func boxInt[T int32 | int64](r *reader, typ unsafe.Pointer, v T) any {
	return boxes.Int(&r.arena, typ, v)
}

// boxString returns s as an interface of type typ (the type word of
// string), its header stored in r's arena.
func boxString(r *reader, typ unsafe.Pointer, s string) any { return boxes.String(&r.arena, typ, s) }
