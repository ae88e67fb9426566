package format

import (
	"time"

	"github.com/sqlstream/sqlstream/sql/types"
)

const msPerDay = 24 * 60 * 60 * 1000

// appendTimestampText appends ts as ksqlDB's REST API prints TIMESTAMP:
// yyyy-MM-dd'T'HH:mm:ss.SSS in UTC.
func appendTimestampText(buf []byte, ts types.Timestamp) []byte {
	return time.UnixMilli(int64(ts)).UTC().AppendFormat(buf, "2006-01-02T15:04:05.000")
}

// appendDateText appends d as yyyy-MM-dd.
func appendDateText(buf []byte, d types.Date) []byte {
	return time.UnixMilli(int64(d)*msPerDay).UTC().AppendFormat(buf, "2006-01-02")
}

// appendTimeText appends t as Java's ISO_LOCAL_TIME prints it: HH:mm:ss,
// followed by the fraction of a second only when it is not zero
// (00:00:10, 00:00:00.01).
func appendTimeText(buf []byte, t types.Time) []byte {
	ms := int64(t)
	buf = time.UnixMilli(ms).UTC().AppendFormat(buf, "15:04:05")
	frac := ((ms % 1000) + 1000) % 1000
	if frac == 0 {
		return buf
	}
	digits := [3]byte{byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := 3
	for n > 1 && digits[n-1] == '0' {
		n--
	}
	buf = append(buf, '.')
	return append(buf, digits[:n]...)
}
