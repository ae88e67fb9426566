package exec

import (
	"unsafe"

	"github.com/sqlstream/sqlstream/physical"
	"github.com/twmb/franz-go/pkg/kgo"
)

// inHeaders is a fetched record's headers as the operators read them:
// the same memory seen as physical.Header, not a copy (one allocation
// per record with headers: every repartition record carries its origin).
// The two structs have the same fields in the same order, which the
// conversion below checks at compile time, so they have the same layout.
// The fetched record is the runner's and never recycled, and neither the
// operators nor franz-go write its headers.
func inHeaders(hs []kgo.RecordHeader) []physical.Header {
	if len(hs) == 0 {
		return nil
	}
	_ = physical.Header(kgo.RecordHeader{}) // the same fields: the same layout
	return unsafe.Slice((*physical.Header)(unsafe.Pointer(unsafe.SliceData(hs))), len(hs))
}
