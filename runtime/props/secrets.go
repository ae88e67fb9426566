package props

import "strings"

// HiddenValue is what SHOW PROPERTIES, EXPLAIN and error messages print
// instead of a secret's value: ksqlDB's (Kafka's Password.toString).
const HiddenValue = "[hidden]"

// secretSuffixes are the properties that hold secrets without saying
// "password" or "secret": Kafka's PASSWORD-typed client configs and the
// schema registry's credentials, under any prefix (ksql.streams.,
// ksql.schema.registry., producer., …).
var secretSuffixes = [...]string{
	"sasl.jaas.config",
	"basic.auth.user.info",
	"ssl.keystore.key",
	"ssl.keystore.certificate.chain",
	"ssl.truststore.certificates",
}

// IsSecret says whether a property's value is a secret, as
// ksqlDB decides it: Kafka's PASSWORD-typed configs (every *.password,
// sasl.jaas.config, the inline PEM keys) and the schema registry's
// basic.auth.user.info; also any name containing "secret" (sqlstream's
// command topic key, OAuth client secrets).
func IsSecret(name string) bool {
	n := strings.ToLower(Normalize(name))
	if strings.Contains(n, "password") || strings.Contains(n, "secret") {
		return true
	}
	for _, s := range secretSuffixes {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	return false
}

// Shown is value as it may be printed: HiddenValue for a secret.
func Shown(name, value string) string {
	if IsSecret(name) {
		return HiddenValue
	}
	return value
}
