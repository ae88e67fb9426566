package protobuf

// builtin returns the imports Confluent's serializers resolve without a
// reference (its ProtobufSchema's known dependencies), beyond
// protocompile's google/protobuf/*.proto: Confluent's own meta and decimal
// types and the google/type messages. They are written here from the
// published definitions (message, field names and numbers are the wire
// contract; options and comments are left out). decimal.proto imports
// meta.proto publicly so a schema that imports only the decimal type (as
// ksqlDB's tests write) can use (confluent.field_meta) on its fields.
func builtin(path string) (string, bool) {
	switch path {
	case "confluent/meta.proto":
		return metaProto, true
	case "confluent/type/decimal.proto":
		return decimalProto, true
	case "google/type/date.proto":
		return dateProto, true
	case "google/type/timeofday.proto":
		return timeOfDayProto, true
	}
	return googleType(path)
}

const metaProto = `syntax = "proto3";
package confluent;
import "google/protobuf/descriptor.proto";
message Meta {
  string doc = 1;
  map<string, string> params = 2;
  repeated string tags = 3;
}
extend google.protobuf.FileOptions { Meta file_meta = 1088; }
extend google.protobuf.MessageOptions { Meta message_meta = 1088; }
extend google.protobuf.FieldOptions { Meta field_meta = 1088; }
extend google.protobuf.EnumOptions { Meta enum_meta = 1088; }
extend google.protobuf.EnumValueOptions { Meta enum_value_meta = 1088; }
`

const decimalProto = `syntax = "proto3";
package confluent.type;
import public "confluent/meta.proto";
message Decimal {
  bytes value = 1;
  uint32 precision = 2;
  int32 scale = 3;
}
`

const dateProto = `syntax = "proto3";
package google.type;
message Date {
  int32 year = 1;
  int32 month = 2;
  int32 day = 3;
}
`

const timeOfDayProto = `syntax = "proto3";
package google.type;
message TimeOfDay {
  int32 hours = 1;
  int32 minutes = 2;
  int32 seconds = 3;
  int32 nanos = 4;
}
`

// googleType returns the other google/type files Confluent knows; their
// messages read as plain STRUCTs and their enums as STRING.
func googleType(path string) (string, bool) {
	const head = "syntax = \"proto3\";\npackage google.type;\n"
	switch path {
	case "google/type/latlng.proto":
		return head + "message LatLng { double latitude = 1; double longitude = 2; }\n", true
	case "google/type/money.proto":
		return head + "message Money { string currency_code = 1; int64 units = 2; int32 nanos = 3; }\n", true
	case "google/type/fraction.proto":
		return head + "message Fraction { int64 numerator = 1; int64 denominator = 2; }\n", true
	case "google/type/quaternion.proto":
		return head + "message Quaternion { double x = 1; double y = 2; double z = 3; double w = 4; }\n", true
	case "google/type/expr.proto":
		return head + "message Expr { string expression = 1; string title = 2; string description = 3; string location = 4; }\n", true
	case "google/type/dayofweek.proto":
		return head + "enum DayOfWeek { DAY_OF_WEEK_UNSPECIFIED = 0; MONDAY = 1; TUESDAY = 2; WEDNESDAY = 3; " +
			"THURSDAY = 4; FRIDAY = 5; SATURDAY = 6; SUNDAY = 7; }\n", true
	case "google/type/month.proto":
		return head + "enum Month { MONTH_UNSPECIFIED = 0; JANUARY = 1; FEBRUARY = 2; MARCH = 3; APRIL = 4; MAY = 5; " +
			"JUNE = 6; JULY = 7; AUGUST = 8; SEPTEMBER = 9; OCTOBER = 10; NOVEMBER = 11; DECEMBER = 12; }\n", true
	case "google/type/calendar_period.proto":
		return head + "enum CalendarPeriod { CALENDAR_PERIOD_UNSPECIFIED = 0; DAY = 1; WEEK = 2; FORTNIGHT = 3; " +
			"MONTH = 4; QUARTER = 5; HALF = 6; YEAR = 7; }\n", true
	case "google/type/color.proto":
		return head + "import \"google/protobuf/wrappers.proto\";\n" +
			"message Color { float red = 1; float green = 2; float blue = 3; google.protobuf.FloatValue alpha = 4; }\n", true
	case "google/type/datetime.proto":
		return head + "import \"google/protobuf/duration.proto\";\n" +
			"message DateTime { int32 year = 1; int32 month = 2; int32 day = 3; int32 hours = 4; int32 minutes = 5; " +
			"int32 seconds = 6; int32 nanos = 7; oneof time_offset { google.protobuf.Duration utc_offset = 8; TimeZone time_zone = 9; } }\n" +
			"message TimeZone { string id = 1; string version = 2; }\n", true
	case "google/type/postal_address.proto":
		return head + "message PostalAddress { int32 revision = 1; string region_code = 2; string language_code = 3; " +
			"string postal_code = 4; string sorting_code = 5; string administrative_area = 6; string locality = 7; " +
			"string sublocality = 8; repeated string address_lines = 9; repeated string recipients = 10; string organization = 11; }\n", true
	}
	return "", false
}
