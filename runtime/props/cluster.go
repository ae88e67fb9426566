package props

import (
	"math"
	"strconv"
)

// clusterDefs are the properties of a server among others of its
// service id.
func clusterDefs() []*Def {
	onOff := []string{"true", "false"}
	return []*Def{
		{name: AdvertisedListener, kind: kindString, fixed: true,
			doc: "URL the other servers of this service id reach this one at (default: the HTTP API's bound address)"},
		{name: HeartbeatEnable, kind: kindEnum, values: onOff, def: "true", fixed: true,
			doc: "send heartbeats to the other servers (ksqlDB's default is false)"},
		{name: HeartbeatInterval, kind: kindLong, min: 10, def: "100", fixed: true, doc: "milliseconds between heartbeats"},
		{name: HeartbeatWindow, kind: kindLong, min: 100, def: "2000", fixed: true,
			doc: "a server from which no heartbeat arrived for this many milliseconds is dead"},
		{name: LagReportEnable, kind: kindEnum, values: onOff, def: "true", fixed: true,
			doc: "send store lags and query states to the other servers (ksqlDB's default is false)"},
		{name: LagReportInterval, kind: kindLong, min: 10, def: "5000", fixed: true, doc: "milliseconds between lag reports"},
		{name: StandbyReads, kind: kindEnum, values: onOff, def: "false",
			doc: "pull queries may read a standby replica when the active host is dead"},
		{name: MaxOffsetLag, kind: kindLong, min: 0, def: strconv.FormatInt(math.MaxInt64, 10),
			doc: "largest changelog lag of a standby a pull query reads"},
	}
}
