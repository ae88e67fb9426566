package protobuf

import (
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// wk names the messages that map to SQL types other than STRUCT.
type wk uint8

const (
	wkNone wk = iota
	wkTimestamp
	wkDate
	wkTime
	wkDecimal
	wkWrapper // google.protobuf.*Value: a nullable primitive
)

func wellKnown(md protoreflect.MessageDescriptor) wk {
	switch md.FullName() {
	case "google.protobuf.Timestamp":
		return wkTimestamp
	case "google.type.Date":
		return wkDate
	case "google.type.TimeOfDay":
		return wkTime
	case "confluent.type.Decimal":
		return wkDecimal
	case "google.protobuf.BoolValue", "google.protobuf.Int32Value", "google.protobuf.Int64Value",
		"google.protobuf.UInt32Value", "google.protobuf.UInt64Value", "google.protobuf.FloatValue",
		"google.protobuf.DoubleValue", "google.protobuf.StringValue", "google.protobuf.BytesValue":
		return wkWrapper
	}
	return wkNone
}

// fieldMetaNumber is the extension number of (confluent.field_meta).
const fieldMetaNumber = 1088

// decimalParams reads precision and scale from a Decimal field's
// (confluent.field_meta) params. The options are read from their wire form,
// so it does not matter whether the compiler kept the extension typed or
// as unknown fields.
func decimalParams(fd protoreflect.FieldDescriptor) (precision, scale int, ok bool) {
	opts, err := proto.MarshalOptions{Deterministic: true}.Marshal(fd.Options())
	if err != nil {
		return 0, 0, false
	}
	params := map[string]string{}
	eachField(opts, func(num protowire.Number, v []byte) {
		if num == fieldMetaNumber {
			eachField(v, func(num protowire.Number, entry []byte) {
				if num == 2 {
					k, val := mapEntryStrings(entry)
					params[k] = val
				}
			})
		}
	})
	p, err1 := strconv.Atoi(params["precision"])
	s, err2 := strconv.Atoi(params["scale"])
	if err1 != nil || p <= 0 {
		return 0, 0, false
	}
	if err2 != nil {
		s = 0
	}
	return p, s, s >= 0 && s <= p
}

// eachField calls fn with each length-delimited field of a message; it
// stops at the first malformed byte.
func eachField(b []byte, fn func(protowire.Number, []byte)) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return
		}
		b = b[n:]
		if typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return
			}
			fn(num, v)
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return
		}
		b = b[m:]
	}
}

func mapEntryStrings(entry []byte) (k, v string) {
	eachField(entry, func(num protowire.Number, b []byte) {
		switch num {
		case 1:
			k = string(b)
		case 2:
			v = string(b)
		}
	})
	return k, v
}
