package schemaregistry

// confluentProtos are the .proto files Confluent's registry resolves
// without references, besides google/protobuf/*.proto (which protocompile
// supplies): ksqlDB's DECIMAL is a confluent.type.Decimal with its
// precision and scale in a confluent.field_meta option. Written from the
// message and extension shapes those files define (field numbers and the
// 1088 extension number are what serialized descriptors carry).
// decimal.proto imports meta.proto publicly: ksqlDB writes
// [(confluent.field_meta) = …] on a Decimal field importing only
// decimal.proto (QTT protobuf.json), which Confluent's lenient parser
// accepts and protocompile would refuse as an unknown extension.
func confluentProtos() map[string]string {
	return map[string]string{
		"confluent/meta.proto": `syntax = "proto3";
package confluent;

import "google/protobuf/descriptor.proto";

option java_package = "io.confluent.protobuf";

message Meta {
  string doc = 1;
  map<string, string> params = 2;
  repeated string tags = 3;
}

extend google.protobuf.FileOptions {
  Meta file_meta = 1088;
}
extend google.protobuf.MessageOptions {
  Meta message_meta = 1088;
}
extend google.protobuf.FieldOptions {
  Meta field_meta = 1088;
}
extend google.protobuf.EnumOptions {
  Meta enum_meta = 1088;
}
extend google.protobuf.EnumValueOptions {
  Meta enum_value_meta = 1088;
}
`,
		"confluent/type/decimal.proto": `syntax = "proto3";
package confluent.type;

import public "confluent/meta.proto";

option java_package = "io.confluent.protobuf.type";

message Decimal {
  bytes value = 1;
  uint32 precision = 2;
  int32 scale = 3;
}
`,
	}
}
