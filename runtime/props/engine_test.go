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
		MaxPushQueries: 100, ActiveQueryLimit: math.MaxInt32, ShutdownTimeout: 30 * time.Second, InternalReplicas: 1, InsertValues: true, MaxResultBytes: 10 << 20,
		MaxWindowsPerRecord: 10000, KeyFormat: "KAFKA", HeartbeatInterval: 100 * time.Millisecond,
		HeartbeatWindow: 2 * time.Second, LagReportInterval: 5 * time.Second, CommandReplayTimeout: 2 * time.Minute,
		Kafka:   Kafka{Mechanism: "plain"},
		Connect: ConnectConfig{URL: DefaultConnectURL, Timeout: 5 * time.Second, VerifyHost: true}}
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

// TestEngineConfigKafka: the Kafka clients' security settings are read
// once, in any case; SASL takes its credentials from sasl.jaas.config,
// and a SASL protocol without them, or a protocol or mechanism Kafka has
// not, is an *Error naming the setting (the JAAS entry hidden).
func TestEngineConfigKafka(t *testing.T) {
	table := NewTable()
	read := func(set map[string]string) (Kafka, error) {
		c, err := NewEngineConfig(table, table.Defaults().Merge(set))
		return c.Kafka, err
	}
	jaas := `org.apache.kafka.common.security.scram.ScramLoginModule required username="bob" password='pw b';`
	for _, c := range []struct {
		set  map[string]string
		want Kafka
	}{
		{map[string]string{SecProtocol: "ssl", TrustLocation: "/ca.pem"}, Kafka{TLS: true, Mechanism: "plain", Trust: "/ca.pem"}},
		{map[string]string{SecProtocol: "SASL_SSL", SASLMechanism: "SCRAM-SHA-512", SASLJAAS: jaas, KeyLocation: "/k.pem"},
			Kafka{TLS: true, SASL: true, Mechanism: "scram-sha-512", User: "bob", Password: "pw b", Key: "/k.pem"}},
		{map[string]string{SecProtocol: "sasl_plaintext", SASLJAAS: jaas}, Kafka{SASL: true, Mechanism: "plain", User: "bob", Password: "pw b"}},
		// Credentials are read only for SASL.
		{map[string]string{SecProtocol: "PLAINTEXT", SASLJAAS: "nonsense"}, Kafka{Mechanism: "plain"}},
	} {
		got, err := read(c.set)
		if err != nil || got != c.want {
			t.Errorf("%v:\n got %+v, %v\nwant %+v", c.set, got, err, c.want)
		}
	}
	for name, c := range map[string]struct {
		set  map[string]string
		bad  string
		text string
	}{
		"no password": {map[string]string{SecProtocol: "SASL_SSL", SASLJAAS: `PlainLoginModule required username="a";`}, SASLJAAS, "Invalid value [hidden] for configuration sasl.jaas.config: a PlainLoginModule or ScramLoginModule entry needs username=\"…\" and password=\"…\" (ksql.streams.security.protocol is SASL_SSL)"},
		"no JAAS":     {map[string]string{SecProtocol: "SASL_PLAINTEXT"}, SASLJAAS, ""},
		"protocol":    {map[string]string{SecProtocol: "TLS"}, SecProtocol, ""},
		"mechanism":   {map[string]string{SecProtocol: "SASL_SSL", SASLMechanism: "GSSAPI", SASLJAAS: jaas}, SASLMechanism, ""},
	} {
		_, err := read(c.set)
		var pe *Error
		if !errors.As(err, &pe) || pe.Name != c.bad || pe.Problem != ProblemInvalid {
			t.Errorf("%s: got %v, want an invalid %s", name, err, c.bad)
		} else if c.text != "" && err.Error() != c.text {
			t.Errorf("%s: message\n%s\nwant\n%s", name, err, c.text)
		}
	}
}

// TestSessionConfig: a session that sets nothing reads the table's
// defaults; what it sets is what statements read.
func TestSessionConfig(t *testing.T) {
	table := NewTable()
	c, err := NewSessionConfig(table, table.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	want := SessionConfig{InsertValues: true, CreateOrReplace: true, VarSubstitution: true, PullLimit: true,
		AssertTopicTimeout: time.Second, AssertSchemaTimeout: time.Second,
		ConnectDefault: true}
	if c != want {
		t.Errorf("defaults:\n got %+v\nwant %+v", c, want)
	}
	c, err = NewSessionConfig(table, table.Defaults().Merge(map[string]string{InsertValues: "false", CreateOrReplace: "FALSE",
		OffsetReset: "earliest", OutputTopicPrefix: "p_", ConnectURL: " http://c:8083 ", AssertTopicTimeout: "50"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.InsertValues || c.CreateOrReplace || !c.FromEarliest || c.OutputTopicPrefix != "p_" ||
		c.ConnectDefault || c.AssertTopicTimeout != 50*time.Millisecond {
		t.Errorf("set values: %+v", c)
	}
}
