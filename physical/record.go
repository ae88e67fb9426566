package physical

// Header is one Kafka record header.
type Header struct {
	Key   string
	Value []byte
}

// InRecord is a raw record read from a topic partition.
type InRecord struct {
	Topic     string
	Partition int32
	Offset    int64
	Key       []byte
	Value     []byte // nil: a tombstone
	Timestamp int64
	Headers   []Header
}

// OutRecord is a raw record a sink writes. Partition -1 lets the producer
// choose by key (Kafka's default partitioner).
type OutRecord struct {
	Topic     string
	Partition int32
	Key       []byte
	Value     []byte
	Timestamp int64
	Headers   []Header
	// PartitionKey, when set, is what the partitioner hashes instead of
	// Key (Partition -1): a windowed key's inner key, as Kafka Streams'
	// WindowedStreamPartitioner places windowed records.
	PartitionKey []byte
	// Loan, when set, is the buffer the emitter lent the operator
	// (BufferLender) that Key, Value and PartitionKey were encoded into:
	// Emit takes it back with the record.
	Loan Loan
}

// PartitionBytes is what a record without a partition is placed by:
// murmur2 of PartitionKey, or of Key.
func (r *OutRecord) PartitionBytes() []byte {
	if r.PartitionKey != nil {
		return r.PartitionKey
	}
	return r.Key
}

// Emitter receives the records sinks write. The runtime's emitter
// produces them to Kafka; the test driver's collects them. r itself is
// valid only during the call (sinks reuse it); its Key, Value and Headers
// are the emitter's to keep, unless it says it copies them (BytesCopier).
type Emitter interface {
	Emit(r *OutRecord)
}

// BytesCopier is implemented by the emitters that may copy what they
// keep of a record's Key, Value, PartitionKey and Headers (the slice and
// its values) during Emit (the Kafka runner's, into buffers it recycles
// once the producer is done with them): CopiesBytes true lets an
// operator encode every record it emits, its headers too, into the same
// buffers, where an emitter that keeps the slices needs new ones per
// record.
type BytesCopier interface {
	CopiesBytes() bool
}

// BufferLender is implemented by the emitters that produce each record
// out of a buffer of their own (the Kafka runner's recycled records,
// into which it would otherwise copy the record's bytes: BytesCopier).
// Lend lends an operator the buffer of the record its next Emit will
// produce, so that the operator encodes the key and value straight into
// it and the emitter copies nothing: the copy, and the stores of it into
// a buffer another core wrote last, were 5–10% of a stateless query
// through the binary (tests/bench/profile.md, eighth pass).
//
// The operator owns a loan from Lend until it emits a record whose Loan
// it is; from that Emit on the loan is the emitter's again (produced,
// held till the commit, or in a transaction) and the operator must not
// touch it or its buffer. An operator that emits nothing for a row (an
// encode failure, a row retried or skipped) keeps the loan for its next
// one; one that is dropped leaves it to the collector. A record whose
// bytes are not all in its loan's buffer (the encoder outgrew it, or the
// record has headers) is copied as one without a loan. Lend returns nil
// when the emitter has nothing to lend (the operator encodes into its
// own buffers, as before).
type BufferLender interface {
	Lend(n int) Loan
}

// Loan is a buffer an emitter lent an operator (BufferLender).
type Loan interface {
	// LentBuf is the buffer: empty, with at least the capacity asked for.
	LentBuf() []byte
}

// lenderOf is e's BufferLender, or nil when it lends nothing.
func lenderOf(e Emitter) BufferLender {
	l, _ := e.(BufferLender)
	return l
}

// copiesBytes reports whether e copies the bytes of the records it is
// given (false when it does not say).
func copiesBytes(e Emitter) bool {
	c, ok := e.(BytesCopier)
	return ok && c.CopiesBytes()
}

// LogKind classifies a processing-log entry.
type LogKind uint8

// Processing-log entry kinds (ksqlDB's processing log message types).
const (
	DeserializationError LogKind = iota
	ExpressionError
	SerializationError
	LateRecord
)

var logKindNames = [...]string{"DESERIALIZATION_ERROR", "RECORD_PROCESSING_ERROR", "SERIALIZATION_ERROR", "LATE_RECORD"}

// String returns the entry kind's name.
func (k LogKind) String() string { return logKindNames[k] }

// LogEntry is one processing-log entry: a record that could not be
// processed (or was dropped), with where it came from and why.
type LogEntry struct {
	Kind      LogKind
	Topic     string
	Partition int32
	Offset    int64
	Target    string // "key" or "value" for (de)serialization errors
	Message   string
	Record    []byte // the offending bytes, when known
}

// ProcessingLog receives entries for records a task skipped or dropped.
type ProcessingLog interface {
	Log(e *LogEntry)
}
