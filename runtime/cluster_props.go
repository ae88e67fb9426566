package runtime

import (
	"math"
	"strconv"
)

// Properties of a server among others of its service id (issue 12).
const (
	// PropAdvertisedListener is the URL the other servers call this one
	// at; default: the address the HTTP API is bound to.
	PropAdvertisedListener = "ksql.advertised.listener"
	PropHeartbeatEnable    = "ksql.heartbeat.enable"
	PropHeartbeatInterval  = "ksql.heartbeat.send.interval.ms"
	PropHeartbeatWindow    = "ksql.heartbeat.window.ms"
	PropLagReportEnable    = "ksql.lag.reporting.enable"
	PropLagReportInterval  = "ksql.lag.reporting.send.interval.ms"
	PropStandbyReads       = "ksql.query.pull.enable.standby.reads"
	PropMaxOffsetLag       = "ksql.query.pull.max.allowed.offset.lag"
)

func clusterPropertyDefs() []*propertyDef {
	onOff := []string{"true", "false"}
	return []*propertyDef{
		{name: PropAdvertisedListener, kind: kindString, fixed: true,
			doc: "URL the other servers of this service id reach this one at (default: the HTTP API's bound address)"},
		{name: PropHeartbeatEnable, kind: kindEnum, values: onOff, def: "true", fixed: true,
			doc: "send heartbeats to the other servers (ksqlDB's default is false)"},
		{name: PropHeartbeatInterval, kind: kindLong, min: 10, def: "100", fixed: true, doc: "milliseconds between heartbeats"},
		{name: PropHeartbeatWindow, kind: kindLong, min: 100, def: "2000", fixed: true,
			doc: "a server from which no heartbeat arrived for this many milliseconds is dead"},
		{name: PropLagReportEnable, kind: kindEnum, values: onOff, def: "true", fixed: true,
			doc: "send store lags and query states to the other servers (ksqlDB's default is false)"},
		{name: PropLagReportInterval, kind: kindLong, min: 10, def: "5000", fixed: true, doc: "milliseconds between lag reports"},
		{name: PropStandbyReads, kind: kindEnum, values: onOff, def: "false",
			doc: "pull queries may read a standby replica when the active host is dead"},
		{name: PropMaxOffsetLag, kind: kindLong, min: 0, def: strconv.FormatInt(math.MaxInt64, 10),
			doc: "largest changelog lag of a standby a pull query reads"},
	}
}
