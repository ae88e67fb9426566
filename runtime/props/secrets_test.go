package props

import "testing"

// TestIsSecret pins which properties SHOW PROPERTIES and EXPLAIN
// print as [hidden].
func TestIsSecret(t *testing.T) {
	for name, want := range map[string]bool{
		"ssl.keystore.password":                     true,
		"ksql.streams.ssl.key.password":             true,
		"sasl.jaas.config":                          true,
		"ksql.streams.producer.sasl.jaas.config":    true,
		"ksql.schema.registry.basic.auth.user.info": true,
		"ssl.keystore.key":                          true,
		"sqlstream.command.topic.secret":            true,
		"ssl.keystore.location":                     false,
		"security.protocol":                         false,
		"sasl.mechanism":                            false,
		"authentication.method":                     false,
	} {
		if got := IsSecret(name); got != want {
			t.Errorf("IsSecret(%q) = %v, want %v", name, got, want)
		}
	}
	if v := Shown("ssl.truststore.password", "changeit"); v != HiddenValue {
		t.Errorf("truststore password shown as %q", v)
	}
}
