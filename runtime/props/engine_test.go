package props

import (
	"errors"
	"math"
	"testing"
	"time"
)

// TestEngineConfigDefaults: a server configuration that sets nothing
// reads the table's defaults, each stated once in the table.
func TestEngineConfigDefaults(t *testing.T) {
	table := NewTable()
	c, err := NewEngineConfig(table, table.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	want := EngineConfig{ServiceID: "default_", PersistentPrefix: "query_", MaxPartitions: 1000, MaxStatements: DefaultMaxStatements,
		MaxPushQueries: 100, ActiveQueryLimit: math.MaxInt32, ShutdownTimeout: 30 * time.Second, InternalReplicas: 1, MaxResultBytes: 10 << 20,
		MaxWindowsPerRecord: 10000, KeyFormat: "KAFKA", HeartbeatInterval: 100 * time.Millisecond,
		HeartbeatWindow: 2 * time.Second, LagReportInterval: 5 * time.Second, CommandReplayTimeout: 2 * time.Minute}
	if c != want {
		t.Errorf("defaults:\n got %+v\nwant %+v", c, want)
	}
}

// TestEngineConfigSet: what a configuration sets is what the engine
// reads: switches turn their intervals off, optional values are set only
// when given, enums in any case.
func TestEngineConfigSet(t *testing.T) {
	table := NewTable()
	c, err := NewEngineConfig(table, table.Defaults().Merge(map[string]string{
		HeartbeatEnable: "false", LagReportEnable: "FALSE", TopicNaming: "KsqlDB", ShutdownTimeout: "1500",
		WrapSingle: "false", CollectListLimit: "7", SchemaRegistryURL: "http://r:8081", CommandSecret: "s",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.HeartbeatInterval != 0 || c.LagReportInterval != 0 {
		t.Errorf("switched off: heartbeat %v, lag reports %v", c.HeartbeatInterval, c.LagReportInterval)
	}
	if !c.KsqlDBNaming || c.ShutdownTimeout != 1500*time.Millisecond || c.CommandSecret != "s" || c.Registry.URL != "http://r:8081" {
		t.Errorf("set values: %+v", c)
	}
	if c.WrapSingle == nil || *c.WrapSingle || c.CollectListLimit == nil || *c.CollectListLimit != 7 || c.CollectSetLimit != nil {
		t.Errorf("optional values: wrap %v, list %v, set %v", c.WrapSingle, c.CollectListLimit, c.CollectSetLimit)
	}
}

// TestEngineConfigError: a bad value is an *Error naming the property.
func TestEngineConfigError(t *testing.T) {
	table := NewTable()
	_, err := NewEngineConfig(table, table.Defaults().Merge(map[string]string{MaxPushQueries: "many"}))
	var pe *Error
	if !errors.As(err, &pe) || pe.Name != MaxPushQueries || pe.Problem != ProblemInvalid {
		t.Fatalf("got %v, want an invalid %s", err, MaxPushQueries)
	}
}
